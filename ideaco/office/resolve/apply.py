"""How a resolved think lands on the office: the body of `Office.resolve`, and of every other resolve.

Only the engine calls these (a test checks it), handing them a `Landing` (the state, the parts a
resolve writes, its moment and random stream): they are the one place where what a think decided
becomes the office's state, and they never call back into the engine. `resolve(land, result,
posts)` is a think's whole landing: its steps in order, its next look, its record with `applied`,
the desk it leaves (idle, its next look and the wakes that waited, as the wake policy says,
`waking.py`); it returns `Effects`, what the engine is left to do (the messages to log and show,
the lines of changes.jsonl, the workspace's files, the wakes to put on the clock, the record).
Each step lands as it is returned, with any value drawn for it from the event's random stream (an
owed think's wake time, a new hire's age), which is what the thought's record logs and a resume
re-applies as is.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ideaco.cycle import LoopRule, Owed, Phase, Trigger
from ideaco.ids import BOSS, SECRETARY, TASK
from ideaco.kinds import ConversationKind
from ideaco.mind import changes as mind_changes
from ideaco.mind.tasks import task_number
from ideaco.office import rules
from ideaco.office.core.company import BossVerdict, Company
from ideaco.office.core.conversation import Message
from ideaco.office.core.state import Begin, ConversationState, Employee, Hold
from ideaco.office.core.steps import (
    BoardStep,
    CompanyStep,
    ConversationStep,
    DocumentStep,
    DraftStep,
    EmployeeStep,
    GateHoldStep,
    MindStep,
    NoticeStep,
    OweAgainStep,
    OweStep,
    Step,
    ToolStep,
    landed,
    step_from_record,
)
from ideaco.office.core.think import ThinkContext, ThinkResult
from ideaco.office.resolve import change_log
from ideaco.office.resolve.landing import Effects, Landing
from ideaco.office.resolve.records import thought_record
from ideaco.office.rules import holds, toolcaps


def resolve(land: Landing, result: ThinkResult, posts: dict[str, Message] | None) -> Effects:
    """A think's result landed: its steps in order, its next look, its record, the desk it leaves.

    While replaying (`land.live` False), `posts` holds the logged messages the think posted, and
    what starting the think took is applied first (for a state saved before it started). A re-think
    leaves the desk as it is (the engine begins it); a stop leaves it idle with no look set.
    """
    ctx = result.ctx
    emp = land.state.employees[ctx.employee]
    if not land.live:
        replay_began(emp, ctx, superseded=result.rethink is not None)
    steps = [apply_step(land, step, posts) for step in result.steps]
    look = next_look(land, emp, result)
    record = thought_record(result, steps, look, land.at)
    if result.rethink is None:
        if result.stop is not None:
            emp.desk.phase = Phase.IDLE
        elif look is not None:
            after_think(land, emp, look, read=ctx.conversation)
    return land.effects(steps, record, look)


def apply_step(land: Landing, step: Step, posts: dict[str, Message] | None) -> Step:
    """Apply one step; returns it as it landed (with any value drawn for it)."""
    if isinstance(step, MindStep):
        return _mind(land, step)
    if isinstance(step, EmployeeStep):
        return _employee(land, step)
    if isinstance(step, ConversationStep):
        if step.opened is not None:
            land.state.conversations[step.id] = ConversationState.from_dict(step.opened)
        conv = land.state.conversations[step.id]
        for name, value in step.fields.items():
            setattr(conv, name, value)
        land.invalidate_index()
        return step
    if isinstance(step, CompanyStep):
        land.state.company = Company.from_dict(step.company)
        return step
    if isinstance(step, OweStep):
        emp = land.state.employees[step.employee]
        emp.desk.owed.append(step.owed)
        wake_at = step.wake_at
        if wake_at is None:  # "soon": 1-5 s, drawn now
            wake_at = land.at + timedelta(seconds=rules.mention_delay(land.rng, land.config.timers))
        land.wakes.schedule(land.policy, emp, wake_at, step.owed.trigger)
        return landed(step, wake_at=wake_at)
    if isinstance(step, OweAgainStep):
        desk = land.state.employees[step.employee].desk
        if step.owed is not None and not any(
            o.conversation == step.owed.conversation and o.note == step.owed.note for o in desk.owed
        ):
            desk.owed.append(step.owed)
        if step.trigger not in desk.wake_triggers and step.trigger not in (Trigger.TIMER, Trigger.IDLE):
            desk.wake_triggers.append(step.trigger)  # the next look (or a resume) keeps the trigger
        return step
    if isinstance(step, DraftStep):
        message = step.message or (posts or {}).get(step.message_id or "")
        if message is None:
            return step
        rule = post(land, message)
        return landed(step, rule=rule) if rule else step
    if isinstance(step, GateHoldStep):
        emp = land.state.employees[step.employee]
        emp.desk.held_until[step.conversation] = step.reopens_at
        emp.desk.owed.append(step.owed)
        land.wakes.schedule(land.policy, emp, step.reopens_at, step.owed.trigger)
        return step
    if isinstance(step, BoardStep):
        for taken in step.removed:
            land.state.board.pop(taken, None)
        for offer in step.added:
            land.state.board[offer.id] = offer
            _handed_out(land, offer.id)  # an offer's id is a task id: the next one goes on from it
        return step
    if isinstance(step, NoticeStep):
        notice = step.message or (posts or {}).get(step.message_id)
        if notice is not None:
            post(land, notice)
        return step
    if isinstance(step, DocumentStep):  # replayed too: a resume's files are rebuilt from applied
        before = land.state.documents.get(step.key)
        after = land.state.documents[step.key] = step.on(before)
        if before is None or before.content != after.content:
            land.documents.append((step.key, after.content))  # written by the engine
        return step
    assert isinstance(step, ToolStep)  # what a tool said; its changes are steps of their own
    if step.counted:  # a costly call of the secretary's: the per-hour cap counts it (rules/toolcaps.py)
        desk = land.state.employees[SECRETARY].desk
        desk.tool_log = [*toolcaps.recent(desk.tool_log, land.at), (step.tool, land.at)]
    return step


def next_look(land: Landing, emp: Employee, result: ThinkResult) -> datetime | None:
    """When the employee looks again after this think: at the adaptive delay drawn from its interest
    and saturation (its own pace), from the moment it thought; or the fixed moment a failure set."""
    if result.look is None:
        return result.look_at
    timers = land.policy.timers_for(land, emp)  # this employee's pace (talkativeness, stamina)
    delay = rules.adaptive_delay(*result.look, land.rng, timers)
    at = result.ctx.at + timedelta(seconds=delay)
    return at if at > land.at else land.at + timedelta(seconds=timers.min_s)


def after_think(land: Landing, emp: Employee, look: datetime, read: str | None) -> None:
    """Back to idle: the next look, and any wake that arrived while the think was busy."""
    emp.desk.phase = Phase.IDLE
    emp.desk.inflight = None
    wakes = land.policy.after_think(land, emp, look, read, land.rng, land.at)
    emp.desk.deferred_triggers = []
    for wake in wakes:
        land.wakes.schedule(land.policy, emp, wake.at, wake.trigger)


def post(
    land: Landing, message: Message, approval: tuple[BossVerdict, list[Step]] | None = None
) -> LoopRule | None:
    """Record a message and wake whom it reaches (as the office's policy says); a known id does nothing.

    `approval`: for a boss line `/approve req-<n>` or `/reopen req-<n> NOTES`, the boss's verdict
    and the steps that apply it (`decide/commands.approval`), landed before the wakes and logged as
    a change."""
    if not land.wakes.remember(message.id):
        return None
    conv = land.state.conversations[message.conversation]
    conv.add(message)
    land.posted.append(message)  # counted, and logged and shown once the resolve is done (if new)
    if message.from_agent:
        emp = land.state.employees.get(message.sender)
        if emp is not None and emp.desk.cursors.get(conv.id, 0) == conv.count - 1:
            emp.desk.cursors[conv.id] = conv.count  # one's own message is read
    if message.sender == BOSS:  # the boss can always post, and a boss message reopens a room
        conv.closed_until, conv.last_boss_at, conv.blocked_pair = None, message.at, None
        boss_orders(land, message)  # before the wakes: a stop's own mention wakes no one
        if approval is not None:  # `/approve req-1`, `/reopen req-1 ...`: the boss decides a requirement
            verdict, steps = approval
            landed_steps = [apply_step(land, step, None) for step in steps]
            if landed_steps:
                record = change_log.approval_record(
                    land.at, verdict.requirement, verdict.verdict, message.id, landed_steps
                )
                log_change(land, record)
    reach = land.policy.reached_by(land, conv, message, land.rng)
    if reach.blocked_pair is not None:
        conv.blocked_pair = reach.blocked_pair
    if reach.escalated:
        conv.escalated_at = message.at
    for employee, owed in reach.owed:
        land.state.employees[employee].desk.owed.append(owed)
    for wake in reach.wakes:
        land.wakes.schedule(land.policy, land.state.employees[wake.employee], wake.at, wake.trigger)
    return reach.rule


def boss_orders(land: Landing, message: Message) -> None:
    """`@Name stop` holds the named, `@Name continue` releases them (rules/holds.py)."""
    named = [land.state.employees[m] for m in message.mentions if m in land.state.employees]
    order = holds.boss_order(message.text, [w for e in named for w in (e.name, e.id)])
    if order is None:
        return
    for emp in named:
        if emp.dismissed:
            continue
        if order.verb == holds.STOP:
            hold(land, emp, message.at, order.reason)
        else:
            release(land, emp, message)


def hold(land: Landing, emp: Employee, at: datetime, reason: str) -> None:
    """The employee takes no thinks from now on: its pending wake is dropped (a think already
    under way finishes); what reaches it meanwhile waits for its release."""
    if emp.desk.hold is not None:
        emp.desk.hold = Hold(emp.desk.hold.since, reason or emp.desk.hold.reason)
        return
    emp.desk.hold = Hold(at, reason)
    emp.desk.wake_at, emp.desk.wake_triggers, emp.desk.deferred_triggers = None, [], []
    land.wakes.forget(emp.id)


def release(land: Landing, emp: Employee, order: Message) -> None:
    """Back to work: one note with everything addressed to it while held, and one wake, 1-5 s on."""
    held = emp.desk.hold
    if held is None:
        return
    emp.desk.hold = None
    arrived = _arrived(land, emp, held.since, skip=order.id)
    emp.mind.notes.append(holds.batch_note(arrived, held.since.strftime("%H:%M")))
    log_change(land, change_log.release_record(land.at, emp.id, order.id, emp.mind.notes))
    trigger = Trigger.TIMER
    if any(a.from_boss for a in arrived):
        trigger = Trigger.BOSS
    elif arrived:
        trigger = Trigger.MENTION
    soon = rules.mention_delay(land.rng, land.config.timers)
    land.wakes.schedule(land.policy, emp, land.at + timedelta(seconds=soon), trigger)


def _arrived(land: Landing, emp: Employee, since: datetime, skip: str) -> list[holds.Arrived]:
    """Unread messages addressed to `emp` since `since`: mentions, DMs, the boss's (boss orders aside)."""
    out = []
    for conv in land.state.conversations.values():
        if emp.id not in conv.members:
            continue
        mine = []
        for m in conv.since(emp.desk.cursors.get(conv.id, 0)):
            if m.id == skip or m.sender == emp.id or m.at < since:
                continue
            addressed = emp.id in m.mentions or (conv.kind is ConversationKind.DM and m.from_agent)
            if m.sender == BOSS:
                named = [land.state.employees[i] for i in m.mentions if i in land.state.employees]
                if holds.boss_order(m.text, [w for e in named for w in (e.name, e.id)]) is not None:
                    continue  # the hold and release orders themselves
                addressed = addressed or conv.kind is ConversationKind.BOSS
            if addressed:
                mine.append(m)
        if mine:
            names = tuple(
                dict.fromkeys("the boss" if m.sender == BOSS else land.name_of(m.sender) for m in mine)
            )
            boss = any(m.sender == BOSS for m in mine)
            out.append(holds.Arrived(conv.name, conv.kind, names, len(mine), boss))
    return out


def _mind(land: Landing, step: MindStep) -> Step:
    emp = land.state.employees[step.employee]
    mind_changes.apply(emp.mind, step.changes)
    if step.read is not None:
        conv, upto = step.read
        emp.desk.cursors[conv] = max(emp.desk.cursors.get(conv, 0), upto)
    for task in step.changes.tasks.added:  # ids go on from the highest handed out
        _handed_out(land, task.id)
    return step


def _handed_out(land: Landing, task_id: str) -> None:
    number = task_number(task_id)
    if number is not None:
        land.state.counters[TASK] = max(land.state.counters.get(TASK, 0), number)


def _employee(land: Landing, step: EmployeeStep) -> Step:
    if step.joined is not None:
        doc = dict(step.joined)
        if doc.get("age") is None:  # a hire of no stated age: drawn now, logged as drawn
            doc["age"] = land.rng.randint(24, 58)
        land.state.employees[step.id] = Employee.from_dict(doc)
        step = landed(step, joined=doc)
    emp = land.state.employees[step.id]
    for name, value in step.fields.items():
        setattr(emp, name, value)
    if step.fields.get("dismissed"):  # no more wakes or owed thinks; memory and state are kept
        emp.desk.owed.clear()
        emp.desk.wake_at, emp.desk.wake_triggers, emp.desk.deferred_triggers = None, [], []
        land.wakes.forget(emp.id)
    land.invalidate_index()
    return step


def replay_began(emp: Employee, ctx: ThinkContext, *, superseded: bool) -> None:
    """What starting a logged think took, for a state saved before it started (else: already so).

    The wake that started it is spent (an employee has one pending wake, and one due before the
    think began has fired). The owed think it answered is no longer owed — unless its draft was
    superseded: then its re-think takes it, and if that never finished (a kill) it is still owed.
    """
    desk, began = emp.desk, ctx.began
    if desk.wake_at is not None and desk.wake_at <= ctx.at:
        desk.wake_at, desk.wake_triggers = None, []
    owed = began.get("owed")
    taken = Owed.from_dict(owed) if owed else None
    if taken in desk.owed and not superseded:
        desk.owed.remove(taken)
    emp.begin(Begin.from_record(began))  # as the live run began it


def apply_command(land: Landing, tool: str, args: dict[str, Any], steps: list[Step]) -> None:
    """The boss's own organization command (decided by `decide/commands.tool`): its steps land, logged."""
    landed_steps = [apply_step(land, step, None) for step in steps]
    if landed_steps:  # a refused command changed nothing
        log_change(land, change_log.command_record(land.at, tool, args, landed_steps))


def log_change(land: Landing, record: dict[str, Any]) -> None:
    """One line of changes.jsonl (what changed between thoughts), counted in the saved state; while
    replaying, nothing (it is logged already)."""
    if not land.live:
        return
    land.changes.append(record)  # logged by the engine once the resolve is done


def apply_logged(land: Landing, record: dict[str, Any]) -> None:
    """A logged command applied again (a resume's catch-up): its steps as they landed, nothing drawn."""
    for step in record.get("steps") or ():
        apply_step(land, step_from_record(step), None)
