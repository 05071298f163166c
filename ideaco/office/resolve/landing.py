"""What a resolve is handed and what it returns: `Landing`, the office's state and the parts a
resolve writes (a context object, not a value), with `Wakes`, the wakes a resolve sets, and
`Effects`, what a resolve leaves the engine to do (values).

The engine makes a `Landing` for each resolve (a think's result, the boss's post or command, a
logged record applied again) and `apply.py` lands steps on it. The moment, the random stream of
the event being handled and whether the records are new (`live`; a resume's catch-up applies
logged ones) are fixed for the whole resolve, so a resolve never calls back into the engine. It
writes the state and the desks; what goes out of the office (the messages posted, the lines of
changes.jsonl, the workspace's files) and the wakes it set are gathered on the landing and handed
back as `Effects` (`Landing.effects`): the engine logs and shows them and puts the wakes on the
clock.

A wake lands on the employee's desk at once (its trigger joins the batch; the earlier time wins),
so what resolves next reads it; the clock event that fires it is a `DueWake` left in `due`, which
the resolve hands back, in order, in its `Effects` (`Office._take` puts them on the clock). A wake
carries its version: a later one, or a dismissal (`forget`), makes an earlier event do nothing.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ideaco.cycle import Trigger
from ideaco.llm.config import Models
from ideaco.office.core.conversation import Message
from ideaco.office.core.directory import Directory, StateReads
from ideaco.office.core.state import Employee, OfficeState
from ideaco.office.core.steps import Step
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
    models: Models
    script: list[dict[str, Any]]
    script_next: int
    # What a resolve writes.
    state: OfficeState
    _directory: Directory
    wakes: Wakes
    meta: dict[str, Any]
    # Fixed for this resolve.
    at: datetime
    rng: random.Random
    live: bool  # False while logged records are applied again: nothing is logged or shown twice
    # What goes out, in order, handed back as `Effects`.
    posted: list[Message] = field(default_factory=list)  # every message recorded (a replayed one too)
    changes: list[dict[str, Any]] = field(default_factory=list)  # changes.jsonl lines (live only)
    documents: list[tuple[str, str]] = field(default_factory=list)  # workspace files: (key, content)

    def now(self) -> datetime:
        return self.at

    def effects(
        self, steps: Sequence[Step] = (), record: dict[str, Any] | None = None, look: datetime | None = None
    ) -> Effects:
        """What this resolve leaves the engine to do: what it gathered, and the wakes it set."""
        return Effects(
            tuple(steps),
            record,
            look,
            tuple(self.posted),
            tuple(self.changes),
            tuple(self.documents),
            tuple(self.wakes.take_due()),
        )


@dataclass(frozen=True)
class Effects:
    """What a resolve changed and what it leaves the engine to do, as values.

    The engine counts `posted` and, when the records are new, logs and shows them; logs `changes`;
    writes `documents`; puts `wakes` on the clock in order (while replaying, they stay on the
    desks: a start schedules them).
    """

    steps: tuple[Step, ...]  # a think's steps as they landed (what `applied` logs)
    record: dict[str, Any] | None  # a think's record, with `applied` (None: a post or a command)
    next_look: datetime | None  # when the thinker looks again (None: no timed look was set)
    posted: tuple[Message, ...]  # messages recorded, in order
    changes: tuple[dict[str, Any], ...]  # lines of changes.jsonl
    documents: tuple[tuple[str, str], ...]  # workspace files written: (department/path, content)
    wakes: tuple[DueWake, ...]  # clock events to add, in order
