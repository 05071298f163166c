"""What one thought does to its thinker's mind, spoken or silent (spec 2.4-2.6), as a value.

`apply_thought(mind, thought, facts, now)` tries the thought's ops on a scratch copy of the mind
through the rules beside it (memory, relationships, tasks with claims and onResolve, stalls,
stamina events, escalation) and returns what came of it: the changed mind, the stamina events,
the thinks the mind now owes (an onResolve report, a stalled task's report, an escalation) and
the corrections to log. The mind it is given is not touched; the office applies the result.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime

from ideaco.cycle import Owed, Trigger
from ideaco.ids import REQUIREMENT_PREFIX, boss_conversation_id
from ideaco.mind import board, relationships, stamina, tasks
from ideaco.mind import memory as memories
from ideaco.mind.board import Offer
from ideaco.mind.mind import Mind
from ideaco.mind.thought import Thought

Claims = Mapping[str, tuple[str, str]]


@dataclass(frozen=True)
class ThoughtFacts:
    """What a thought's ops need to know of the world around its thinker."""

    employee: str
    conversation: str  # where the thought happened (its summary is kept per conversation)
    origin: str  # who asked for a task created here (`tasks.Task.origin`)
    people: Mapping[str, str]  # who works here now: id -> name
    conversations: Collection[str]  # the conversations the thinker is in
    employees: Collection[str]  # every employee id ever (a dm target may name one)
    # Open claim keys company-wide, and the board's offers by claim key with when each opens to this
    # thinker: read only by a thought that creates or offers a task (`creates_tasks`), so the
    # office collects them (every task of everyone) only for such a thought.
    claims: Claims = field(default_factory=dict)
    calls: int = 1  # model calls the thought took (a repair is a second)
    task_counter: int = 0  # task ids handed out so far in the company
    speakers: Collection[str] | None = None  # whose words it read (None: anyone's affinity may move)
    # Parts of the mind an ablation switches off (docs/evaluation.md): their ops are dropped.
    memory: bool = True
    relationships: bool = True
    stamina: bool = True
    board: Mapping[str, Offer] = field(default_factory=dict)
    opens: Mapping[str, datetime] = field(
        default_factory=dict
    )  # claim key -> when it opens (default: offered)
    offer_room: str | None = None  # where work offered or released now is posted (its members may claim it)
    department: str | None = None  # the thinker's: its lead hears of work nobody claims
    # A small model's wire cannot name a piece's document: a requirement's piece then expects one
    # named after its claim key (`board.default_document`), so the document tools can apply.
    name_documents: bool = False
    # Why a claim key the thought gives is no claim key people can read (None: it is); the office's
    # rule (office/rules/labels.py), passed in. Keys of offers on the board are never asked about.
    claim_key_problem: Callable[[str], str | None] = lambda _key: None
    # Documents the thinker's tasks deliver that are not written, nor written by this thought: a
    # task that delivers one is not resolved yet (`tasks.apply_ops`).
    unwritten: Collection[str] = ()
    # Why a task's text (description, result, reason) may not be shown, by the office's text rules
    # under the run's `filters` (office/rules/text/), passed in; None: it may.
    text_problem: Callable[[str], str | None] = lambda _text: None


@dataclass
class MindResult:
    """A thought's effect on its thinker's mind, not yet applied."""

    mind: Mind  # the mind after the thought (a changed copy)
    events: list[str] = field(default_factory=list)  # stamina events, in order
    owed: list[Owed] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)
    task_counter: int = 0
    tasks_touched: bool = False  # the thought had task ops: its conversation's loop counters reset
    offers: list[Offer] = field(default_factory=list)  # work released or offered: onto the board
    claimed: list[str] = field(default_factory=list)  # board tasks it took: off the board


def report_note(task: tasks.Task) -> str:
    hint = f" Hint: {task.on_resolve_hint}." if task.on_resolve_hint else ""
    return (
        f"Your task [{task.id}] '{task.description}' is done. Result: {task.result or 'done'}.{hint} "
        "Report it here in your own words."
    )


def stalled_note(task: tasks.Task) -> str:
    return (
        f"Your task [{task.id}] has not moved for three thoughts. Tell the boss where it stands "
        "and what blocks it."
    )


def escalation_note(pending: list[tasks.Task]) -> str:
    lines = "; ".join(f"[{t.id}] {t.description}" for t in pending[:3])
    return (
        f"You are worn out and stuck. Escalate to the boss: say what blocks you on {lines} and what you need."
    )


def creates_tasks(thought: Thought) -> bool:
    """Whether the thought creates or offers a task: only then do its ops read the claims and the board."""
    return any(op.op in ("create", "offer") for op in thought.taskOps)


def apply_thought(mind: Mind, thought: Thought, facts: ThoughtFacts, now: datetime) -> MindResult:
    """Try `thought` on a copy of `mind`; return the changed copy and what else came of it."""
    out = MindResult(mind=mind.copy(), task_counter=facts.task_counter)
    new = out.mind

    def event(name: str) -> None:
        if not facts.stamina:  # switched off (an ablation): no stamina event happens
            return
        if stamina.counts(new.stamina, name, now):
            out.events.append(name)
        else:
            out.corrections.append(f"stamina: {name} not counted, {stamina.PER_HOUR[name]} already this hour")
        new.stamina = stamina.apply(new.stamina, name, now)

    new.interest, new.saturation = thought.interestLevel, thought.topicSaturation
    for _ in range(facts.calls):
        event("llm_call")
    notes: list[str] = []
    if facts.memory:
        notes += memories.apply_ops(new.memory, thought.memoryOps, now)
        notes += memories.set_summary(new.memory, facts.conversation, thought.memorySummary)
    swings: list = []
    if facts.relationships:
        rel_notes, swings = relationships.apply_ops(
            new.relationships,
            thought.relationshipOps,
            now,
            self_id=facts.employee,
            people=facts.people,
            speakers=facts.speakers,
        )
        notes += rel_notes
    for _who, delta in swings:
        swing = stamina.affinity_event(round(delta))
        if swing:
            event(swing)
    notes += _apply_tasks(out, thought, facts, now, event)
    if stamina.should_escalate(new.stamina):
        if not new.escalated and new.pending_tasks:
            new.escalated = True
            out.owed.append(
                Owed(
                    boss_conversation_id(facts.employee),
                    Trigger.SYSTEM,
                    escalation_note(new.pending_tasks),
                    escalation=True,
                )
            )
    else:
        new.escalated = False
    new.stamina = stamina.mark_active(new.stamina, now)
    out.corrections = notes + out.corrections
    return out


def _apply_tasks(
    out: MindResult, thought: Thought, facts: ThoughtFacts, now: datetime, event: Callable[[str], None]
) -> list[str]:
    new = out.mind

    def new_id() -> str:
        out.task_counter += 1
        return tasks.task_id(out.task_counter)

    claims, offers = facts.claims, facts.board
    opens = {k: facts.opens.get(k, o.offered_at) for k, o in offers.items()}
    result = tasks.apply_ops(
        new.tasks,
        thought.taskOps,
        now,
        owner=facts.employee,
        origin=facts.origin,
        new_id=new_id,
        claims=claims,
        conversations=facts.conversations,
        employees=facts.employees,
        people=facts.people,
        claimable={k: board.claimed(o, facts.employee, now) for k, o in offers.items() if opens[k] <= now},
        not_yet={k: opens[k] for k, o in offers.items() if opens[k] > now},
        may_claim=stamina.may_claim(new.stamina),
        key_problem=facts.claim_key_problem,
        unwritten=facts.unwritten,
        text_problem=facts.text_problem,
    )
    new.notes.extend(result.refused)
    out.tasks_touched = bool(thought.taskOps)
    out.claimed = [t.id for t in result.claimed]
    _to_board(out, result, facts, now, taken={*claims, *offers})
    for _ in result.created:
        event("task_assigned")
    for _ in result.failed:
        event("task_fail")
    for task in result.resolved:
        event("task_complete")
        out.owed.append(Owed(tasks.report_target(task), Trigger.ON_RESOLVE, report_note(task)))
    for task in tasks.note_thought(new.tasks, result.advanced):
        event("repetition")
        out.owed.append(Owed(boss_conversation_id(facts.employee), Trigger.SYSTEM, stalled_note(task)))
    if result.resolved or result.failed:
        tasks.prune_closed(new.tasks)  # the state stays bounded; the logs keep every task op
    return result.corrections


def _to_board(
    out: MindResult, result: tasks.TaskOpsResult, facts: ThoughtFacts, now: datetime, taken: set[str]
) -> None:
    """Work the thought released or offered, as offers for the board (each with a unique claim key)."""
    here = {"room": facts.offer_room, "department": facts.department}
    for task, reason in result.released:
        key = task.claim_key or board.key_for(task.description, None, taken)
        out.offers.append(replace(board.offer_of(task, facts.employee, reason, now, key=key), **here))
        taken.add(key)
    asked_by = facts.origin if facts.origin != tasks.SELF else facts.employee
    names = facts.name_documents and (facts.offer_room or "").startswith(REQUIREMENT_PREFIX)
    for task in result.offered:
        key = board.key_for(task.description, task.claim_key, taken - {task.claim_key or ""})
        out.offers.append(
            board.Offer(
                id=task.id,
                description=task.description,
                claim_key=key,
                offered_by=facts.employee,
                offered_at=now,
                origin=asked_by,
                type=task.type,
                hint=task.on_resolve_hint,
                document=task.document or (board.default_document(key) if names else None),
                **here,
            )
        )
        taken.add(key)
