"""What an office schedules when it starts, or resumes: the script's lines still to come, and each
employee's pending wake (a think a kill cut short is owed again first)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any, Protocol

from ideaco.cycle import Trigger
from ideaco.ids import BOSS, script_line_id
from ideaco.office.core.conversation import Message
from ideaco.office.decide.speech import build_message
from ideaco.office.engine.clock import Clock
from ideaco.office.engine.streams import Streams
from ideaco.office.perceive.view import OfficeView
from ideaco.office.resolve import waking


class StartingOffice(OfficeView, Protocol):
    """The office as its start sees it."""

    clock: Clock
    meta: dict[str, Any]
    script: list[dict[str, Any]]
    script_next: int
    streams: Streams

    def schedule_wake(self, emp: Any, at: datetime, trigger: Trigger | str) -> None: ...

    def resolve_conversation(self, target: str) -> str: ...

    def post(self, message: Message) -> Any: ...


def line_at(office: OfficeView, index: int) -> datetime:
    """When the script's line `index` is posted: its offset from the run's start (without a start
    saved: from now), or now if that moment is past (a resume)."""
    now = office.now()
    start = datetime.fromisoformat(office.meta["start"]) if "start" in office.meta else now
    return max(now, start + timedelta(seconds=office.script[index]["offset_s"]))


def schedule(office: StartingOffice) -> None:
    """Put the script's remaining lines and every employee's next wake on the clock."""
    now = office.now()
    for index in range(office.script_next, len(office.script)):

        async def post_line(i: int = index) -> None:
            post_script(office, i)

        office.clock.call_at(line_at(office, index), post_line)
    for emp in sorted(office.state.employees.values(), key=lambda e: e.id):
        if not emp.dismissed and emp.desk.hold is None:  # the held wait for their release
            emp.desk.restore_cut_think()
            wakes = waking.pending(emp.desk, now, office.streams.of(emp.id), office.config.timers)
            emp.desk.wake_at, emp.desk.wake_triggers = None, []  # scheduled again here
            for at, trigger in wakes:
                office.schedule_wake(emp, at, trigger)


def script_message(office: StartingOffice, view: OfficeView, index: int, at: datetime) -> Message:
    """The boss's script line `index` as the message it posts at `at`, in `view` (the office, or a
    what-if of it): the one way a script line is made (issue 38, item 2)."""
    line = office.script[index]
    conv = view.state.conversations[office.resolve_conversation(line["to"])]
    return build_message(conv, BOSS, line["text"], script_line_id(index), view.people, at)


def post_script(office: StartingOffice, index: int) -> None:
    """The boss's script line `index`, posted once and in order (a resume does not post it again)."""
    if index != office.script_next:
        return
    office.post(script_message(office, office, index, office.now()))
    office.script_next = index + 1
