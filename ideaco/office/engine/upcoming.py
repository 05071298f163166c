"""The office's upcoming thinks as predictions, and what, due before one, may change what it reads.

`predict` builds the request an employee's next think will send, with the functions its own
moment uses (`looks.plan_look`, `reading.begin_request`) on a copy of the employee's stream:
it only reads. `outcome`, `held` and `scripted_before` say what, due before a think, may change
what it reads (whether a think's answer posts anything, as far as known; whether its gates hold
it; a line of the boss's script), which `early.py` reads to start early only the thinks nothing
known will change.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from ideaco.cycle import Phase, Trigger
from ideaco.ids import boss_conversation_id
from ideaco.llm.base import ChatRequest
from ideaco.office import rules
from ideaco.office.core.think import ThinkContext
from ideaco.office.engine.calls import InFlight
from ideaco.office.engine.streams import Streams
from ideaco.office.perceive import looks, reading
from ideaco.office.perceive.view import OfficeView
from ideaco.office.resolve.waking import WakePolicy
from ideaco.office.rules import levers


class UpcomingOffice(OfficeView, Protocol):
    """The office as the predictions read it."""

    policy: WakePolicy
    streams: Streams
    meta: dict[str, Any]
    script: list[dict[str, Any]]
    script_next: int
    typing: dict[str, Typing]
    thinking: dict[str, ThinkContext]


@dataclass(frozen=True)
class Typing:
    """A think whose typing pause is under way: it begins at `at`."""

    at: datetime
    conversation: str
    trigger: Trigger
    note: str


@dataclass(frozen=True)
class Prediction:
    """An upcoming think as the office stands: where it reads, when it begins, what it sends."""

    conversation: str
    at: datetime
    trigger: Trigger
    request: ChatRequest
    # How it begins, for a what-if that lands its answer (`whatif.py`); not part of what is compared.
    note: str = field(default="", compare=False)
    plan: looks.LookPlan | None = field(default=None, compare=False)  # the look that finds it; None: typing
    begun: reading.Beginning | None = field(default=None, compare=False)
    stream: Any = field(default=None, compare=False)  # the employee's stream after its begin's draws


UNKNOWN, QUIET, POSTS = "unknown", "quiet", "posts"  # what a think's answer does, as far as known


def outcome(call: InFlight) -> str:
    """Whether a think's answer posts anything (a draft, an action, a board notice), if known yet."""
    if not call.done():
        return UNKNOWN
    if call.cancelled() or call.exception() is not None:
        return QUIET  # a failed think posts nothing (it is looked at again later)
    thought = call.result().value
    if thought is None:
        return QUIET
    board = any(op.op in ("offer", "release") for op in thought.taskOps)
    return POSTS if thought.shouldSpeak or thought.actions or board else QUIET


def upcoming(office: UpcomingOffice, exclude: Iterable[str] = ()) -> list[tuple[datetime, str]]:
    """Employees not thinking now, by the moment their next think could begin: a think typing
    now begins at its moment, an idle employee's next look comes at its wake."""
    skip = set(exclude)
    out = []
    for emp in office.state.employees.values():
        if emp.id in skip or emp.dismissed or emp.desk.hold is not None:
            continue
        pending = office.typing.get(emp.id)
        if emp.desk.phase is Phase.TYPING and pending is not None:
            out.append((pending.at, emp.id))
        elif emp.desk.phase is Phase.IDLE and emp.desk.wake_at is not None:
            out.append((emp.desk.wake_at, emp.id))
    out.sort()
    return out


# Empty looks a prediction sees past, to the look that thinks (an idle room's, say). Measured in
# virtual time (useful calls in flight, workday 1 h / calls made per used): 0 -> 2.07 / 1.10, 1 ->
# 2.14 / 1.12, 3 -> 2.22 / 1.17; but with a model that answers at once, 3 restarts the far looks'
# calls over and over (610 started for 400 thoughts in a 10-person office, 41 with 0, 75 with 1).
EMPTY_LOOKS = 1


def predict(office: UpcomingOffice, employee: str, empty_looks: int = EMPTY_LOOKS) -> Prediction | None:
    """The employee's next think, with the request it will send, if nothing changes before it
    (None: its next looks, up to `empty_looks` past the first, find nothing to think about; or it
    is thinking now). Changes nothing."""
    emp = office.state.employees[employee]
    desk = emp.desk
    if emp.dismissed or desk.hold is not None:
        return None
    stream = office.streams.of(employee).copy()
    pending, plan = office.typing.get(employee), None
    if desk.phase is Phase.TYPING and pending is not None:
        at, conv_id, trigger, note = pending.at, pending.conversation, pending.trigger, pending.note
    elif desk.phase is Phase.IDLE and desk.wake_at is not None:
        considered = dict(office.meta.get("idle_thought_at") or {})
        look, triggers = desk.wake_at, list(desk.wake_triggers)
        plan = looks.plan_look(office.policy, office, emp, triggers, look, stream, considered)
        for _ in range(empty_looks):
            if plan is not None:
                break
            # As the office does after an empty look: the next one at the longest delay (or sooner).
            max_s = office.policy.timers_for(office, emp).max_s
            look = office.policy.next_look(office, emp, look + timedelta(seconds=max_s), look)
            plan = looks.plan_look(office.policy, office, emp, [Trigger.TIMER], look, stream, considered)
        if plan is None:
            return None
        # (what the look leaves on the desk, a prompt does not read: the employee stands for itself)
        at = look + timedelta(seconds=plan.pause)
        conv_id, trigger, note = plan.found.conversation, plan.trigger, plan.note
    else:
        return None
    conv = office.state.conversations.get(conv_id)
    if conv is None:
        return None
    begun = reading.begin_request(office, emp, conv, trigger, note, at, stream)
    return Prediction(conv_id, at, trigger, begun.request, note, plan, begun, stream)


def finish_at(office: UpcomingOffice, begins: datetime) -> datetime:
    """When a think beginning at `begins` posts what it posts."""
    return begins + timedelta(seconds=office.config.think_seconds)


def held(office: UpcomingOffice, employee: str, conv_id: str, at: datetime, call: InFlight) -> bool:
    """Whether a draft of the employee's in this conversation at `at` is held whatever it says (its
    anti-spam or cooldown, a room closed to agents), and its answer, if known, posts nowhere else."""
    conv, emp = office.state.conversations.get(conv_id), office.state.employees.get(employee)
    if conv is None or emp is None:
        return False
    if call.done() and not call.cancelled() and call.exception() is None:
        thought = call.result().value
        if thought is not None and (thought.actions or thought.taskOps):
            return False
    if rules.is_closed(conv.closed_until, at):
        return True
    if not office.config.switches.gates:
        return False
    own = [m.at for m in conv.recent if m.sender == employee]
    gates = levers.gates_of(emp, office.config.gates, office.config.person_levers())
    return not rules.check_timing(conv.kind, own, at, gates).allowed


def scripted_before(office: UpcomingOffice, where: set[str], at: datetime) -> bool:
    """Whether a line of the boss's script lands in one of these conversations before `at`."""
    start = office.meta.get("start")  # as `starting.schedule` reads the script (without one: now)
    begin = datetime.fromisoformat(start) if start else office.now()
    for line in office.script[office.script_next :]:
        when = begin + timedelta(seconds=line["offset_s"])
        if when > at:
            break
        target = line["to"]
        if target in where or boss_conversation_id(target) in where:
            return True
    return False
