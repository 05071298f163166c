"""The wakes a resolve sets, as values for the engine to put on the clock, and the posted ids.

A wake lands on the employee's desk at once (its trigger joins the batch; the earlier time wins),
so what resolves next reads it; the clock event that fires it is a `DueWake` left in `due`, which
the engine registers, in order, when the resolve is done (`Office.schedule_due`). A wake carries
its version: a later one, or a dismissal (`forget`), makes an earlier event do nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from ideaco.cycle import Trigger
from ideaco.office.core.state import Employee
from ideaco.office.perceive.waking import WakePolicy


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
