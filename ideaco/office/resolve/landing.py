"""What a resolve is handed: `Landing`, the office's state and the parts a resolve writes (a context
object, not a value), with `Wakes`, the wakes a resolve sets.

The engine makes one for each resolve (a think's result, the boss's post or command, a logged
record applied again) and `apply.py` lands steps on it. The moment, the random stream of the event
being handled and whether the records are new (`live`; a resume's catch-up applies logged ones)
are fixed for the whole resolve, so a resolve never calls back into the engine; what it posted is
left in `posted` (values) for the engine to show, and the wakes it set in `wakes.due`.

A wake lands on the employee's desk at once (its trigger joins the batch; the earlier time wins),
so what resolves next reads it; the clock event that fires it is a `DueWake` left in `due`, which
the engine registers, in order, when the resolve is done (`Office.schedule_due`). A wake carries
its version: a later one, or a dismissal (`forget`), makes an earlier event do nothing.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ideaco.cycle import Trigger
from ideaco.office.core.conversation import Message
from ideaco.office.core.directory import Directory, StateReads
from ideaco.office.core.state import Employee, OfficeState
from ideaco.office.core.stats import RunStats
from ideaco.office.resolve.journal import Journal
from ideaco.office.resolve.waking import WakePolicy
from ideaco.office.rules.config import OfficeConfig


@dataclass(frozen=True)
class DueWake:
    """A clock event to add: wake `employee` at `at`, unless a later version replaced it."""

    employee: str
    at: datetime
    version: int


@dataclass
class Wakes:
    """The desk side of waking: versions per employee, and the wakes set but not on the clock yet."""

    versions: dict[str, int] = field(default_factory=dict)
    due: list[DueWake] = field(default_factory=list)
    posted: set[str] = field(default_factory=set)  # message ids posted (a resume: from the logs)

    def schedule(self, policy: WakePolicy, emp: Employee, at: datetime, trigger: Trigger | str) -> None:
        """Wake `emp` at `at` unless it is already due earlier; the trigger joins the batch."""
        trigger = Trigger(trigger)
        if emp.dismissed or emp.desk.hold is not None or not policy.keeps(trigger):
            return  # a held employee is woken by its release
        desk = emp.desk
        if trigger not in desk.wake_triggers:
            desk.wake_triggers.append(trigger)
        if desk.wake_at is not None and desk.wake_at <= at:
            return
        desk.wake_at = at
        version = self.versions.get(emp.id, 0) + 1
        self.versions[emp.id] = version
        self.due.append(DueWake(emp.id, at, version))

    def forget(self, employee: str) -> None:
        """Wakes already scheduled for `employee` do nothing when they come (a dismissal)."""
        self.versions[employee] = self.versions.get(employee, 0) + 1

    def current(self, employee: str, version: int) -> bool:
        """Whether a wake of this version is still the employee's latest."""
        return self.versions.get(employee) == version

    def take_due(self) -> list[DueWake]:
        """The wakes set since the last call, in the order they were set."""
        due, self.due = self.due, []
        return due

    def remember(self, message_id: str) -> bool:
        """Note a message as posted; False if it already was (re-sending an id never duplicates it)."""
        if message_id in self.posted:
            return False
        self.posted.add(message_id)
        return True


@dataclass
class Landing(StateReads):
    """The office as a resolve sees it (an `OfficeView`), with the moment and stream it lands in."""

    # What the office is (read; the wake policy reads it as an OfficeView).
    company: str
    language: str
    config: OfficeConfig
    policy: WakePolicy
    model_for: Callable[[str | None], str]
    script: list[dict[str, Any]]
    script_next: int
    # What a resolve writes.
    state: OfficeState
    _directory: Directory
    wakes: Wakes
    journal: Journal
    stats: RunStats
    meta: dict[str, Any]
    # Fixed for this resolve.
    at: datetime
    rng: random.Random
    live: bool  # False while logged records are applied again: nothing is logged or shown twice
    posted: list[Message] = field(default_factory=list)  # new messages, in order, for the engine to show

    def now(self) -> datetime:
        return self.at
