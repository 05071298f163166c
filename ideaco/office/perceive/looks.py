"""A look at the chat as a plan: what a wake finds, under which trigger and note, after which pause.

`plan_look` only reads (the office, the desk) and draws from the stream it is handed, in the
order a look always draws (an idle room's chance, then the typing pause); `take_look` applies a
plan to the employee's desk. The office does both at a wake; `engine/early.py` plans the looks still
to come, on copies of the streams, to build the request of a think before its moment.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from ideaco.cycle import Phase, Trigger, first_trigger
from ideaco.office import rules
from ideaco.office.core.state import Desk, Employee
from ideaco.office.perceive import waking
from ideaco.office.perceive.view import OfficeView


@dataclass(frozen=True)
class LookPlan:
    """What a look found and how its think begins."""

    found: waking.Look
    trigger: Trigger
    note: str
    deferred: tuple[Trigger, ...]  # the wake's other causes, kept for the look after the think
    pause: float  # the typing pause, seconds

    @property
    def conversation(self) -> str:
        return self.found.conversation


def plan_look(
    policy: waking.WakePolicy,
    office: OfficeView,
    emp: Employee,
    triggers: Sequence[str],
    now: datetime,
    stream: random.Random,
    considered: dict[str, str],
) -> LookPlan | None:
    """The think a wake of `emp` at `now` starts (None: nothing to read, no model call)."""
    found = waking.look(policy, office, emp, now, stream, considered)
    if found is None:
        return None
    causes = [Trigger(t) for t in triggers]
    if found.alert or found.idle:  # the look itself found nothing: the think has its own cause
        causes = []
    owed, deferred = found.owed, ()
    if owed is not None:
        # An owed think is labelled by its own cause; the wake's other causes (a mention
        # elsewhere, say) are kept for the look right after it.
        deferred = tuple(t for t in causes if t not in (Trigger.TIMER, Trigger.IDLE))
        causes = [owed.trigger]
    pause = rules.typing_pause(stream, office.config.timers)
    return LookPlan(found, first_trigger(causes), owed.note if owed else "", deferred, pause)


def take_look(desk: Desk, plan: LookPlan, now: datetime, considered: dict[str, str]) -> None:
    """The desk of an employee whose look found `plan`: its alert noted, its owed think taken, typing."""
    found = plan.found
    if found.alert is not None:
        desk.task_alerts[found.alert[0]] = found.alert[1]
    if found.idle:  # an idle think restarts its room's idle time, like a message would
        considered[found.conversation] = now.isoformat()
    owed = found.owed
    desk.inflight = owed if owed is not None and owed.trigger != Trigger.IDLE else None
    if owed is not None:
        desk.owed = [o for o in desk.owed if o is not owed]
        desk.deferred_triggers.extend(t for t in plan.deferred if t not in desk.deferred_triggers)
    desk.phase = Phase.TYPING
