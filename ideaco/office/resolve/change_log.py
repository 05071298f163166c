"""What changes the office between thoughts, as records of changes.jsonl (issue 21).

A thought's record holds what it applied (`applied`). Four things change the office outside
one: the boss's own commands (`/hire`, `/dismiss`, ...: `Office.apply_tool`), the boss's sign-off
of a requirement (a `/approve req-<n>` or `/reopen req-<n> NOTES` line), a release from a
hold (the note of what arrived meanwhile), and a think that began (stamina recovered, notes read)
but whose record is not logged when state.json is saved (cut by a stop, or still waiting for its
model at the end of a run). Each is one line of changes.jsonl, in the patch format of a
thought's `applied`:

    {"at": ..., "cause": "command", "tool": ..., "args": {...}, "steps": [<step records>]}
    {"at": ..., "cause": "approval", "requirement": "req-1", "verdict": "approve"|"reopen", "by": "boss",
     "message": <its line's id>, "steps": [...]}
    {"at": ..., "cause": "release", "employee": ..., "message": <the boss's line>, "steps": [...]}
    {"at": ..., "cause": "begun", "employee": ..., "thought": <its id>, "began": {...}}

Readers (`store/runlog.py`, `analysis.history`, `interview.minds_at`) apply them with the
thoughts, so what they show equals state.json; a resume's catch-up applies the commands logged
after the last save (an approval and a release are redone by their message, a begun think by
its re-wake).
`office.meta["changes"]` counts the lines logged, and is saved with the state.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from ideaco.ids import BOSS
from ideaco.mind.changes import MindChanges
from ideaco.office.core.steps import MindStep, Step
from ideaco.office.resolve.journal import Journal

COMMAND = "command"
RELEASE = "release"
APPROVAL = "approval"
BEGUN = "begun"


def command_record(at: datetime, tool: str, args: Mapping[str, Any], steps: Iterable[Step]) -> dict[str, Any]:
    """The boss's own organization command, with the steps it applied."""
    return {
        "at": at.isoformat(),
        "cause": COMMAND,
        "tool": tool,
        "args": dict(args),
        "steps": [s.to_record() for s in steps],
    }


def approval_record(
    at: datetime, requirement: str, verdict: str, message: str, steps: Iterable[Step]
) -> dict[str, Any]:
    """The boss's `/approve req-<n>` or `/reopen req-<n> NOTES` line (message id `message`), with
    the sign-off it applied; `by` says who decided (the boss: nothing else can)."""
    return {
        "at": at.isoformat(),
        "cause": APPROVAL,
        "requirement": requirement,
        "verdict": verdict,
        "by": BOSS,
        "message": message,
        "steps": [s.to_record() for s in steps],
    }


def release_record(at: datetime, employee: str, message: str, notes: Iterable[str]) -> dict[str, Any]:
    """A release from a hold: the employee's notes with the one it leaves (what arrived meanwhile)."""
    step = MindStep(employee, MindChanges(notes=tuple(notes)))
    return {
        "at": at.isoformat(),
        "cause": RELEASE,
        "employee": employee,
        "message": message,
        "steps": [step.to_record()],
    }


def begun_record(at: datetime, employee: str, thought: str, began: Mapping[str, Any]) -> dict[str, Any]:
    """A think that began and has no record yet: what beginning it took (a thought's `applied.began`)."""
    return {
        "at": at.isoformat(),
        "cause": BEGUN,
        "employee": employee,
        "thought": thought,
        "began": dict(began),
    }


def log(journal: Journal, meta: dict[str, Any], record: dict[str, Any]) -> None:
    """One line of changes.jsonl, counted in `meta` (saved with the state: where a resume's catch-up starts)."""
    journal.change(record)
    meta["changes"] = meta.get("changes", 0) + 1


def replayed_by_catch_up(record: Mapping[str, Any]) -> bool:
    """Whether a resume applies this record again: the boss's commands (the rest follows from the logs)."""
    return record.get("cause") == COMMAND
