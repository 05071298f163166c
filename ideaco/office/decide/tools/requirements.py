"""A requirement all the way (issue 20): its pieces' documents approved, the lead's report, the boss's sign-off.

A requirement is the lead's task in its work room (`req-<n>`, office/decide/tools/org.py); the pieces are the
tasks claimed from the board there. When every piece is resolved (an approved document resolves
its piece) and none waits on the board, the requirement's task resolves with its documents listed
and the lead owes the boss a report. The boss's approval closes it; anything else reopens it as a
new task of the lead's, with the boss's words as the feedback.
"""

from __future__ import annotations

import re
from datetime import datetime

from ideaco.cycle import Owed, Trigger
from ideaco.ids import BOSS, REQUIREMENT_ROOM, boss_conversation_id
from ideaco.mind.tasks import RESOLVED, Task
from ideaco.office.core.company import REOPENED, REPORTED
from ideaco.office.core.documents import APPROVED
from ideaco.office.core.refusal import Refusal
from ideaco.office.decide.scratch import Scratch

_APPROVE = re.compile(rf"^\s*/approve\s+({REQUIREMENT_ROOM.pattern})\s*$", re.IGNORECASE)
FEEDBACK_CHARS = 400


def requirement_task(scratch: Scratch, room: str) -> Task | None:
    """The lead's open task for the requirement of `room`."""
    for emp in scratch.employees.values():
        for task in emp.mind.pending_tasks:
            if task.requirement == room and task.origin == BOSS:
                return task
    return None


def pieces_done(scratch: Scratch, room: str) -> bool:
    """Every piece claimed from the room's board is resolved, and none waits on the board."""
    if any(o.room == room for o in scratch.board.values()):
        return False
    pieces = [
        t
        for e in scratch.employees.values()
        for t in e.mind.tasks
        if t.requirement == room and t.origin != BOSS
    ]
    return bool(pieces) and all(t.status == RESOLVED for t in pieces)


def documents_of(scratch: Scratch, room: str) -> list[str]:
    """The documents the room's pieces delivered, with their versions."""
    paths = {
        t.document
        for e in scratch.employees.values()
        for t in e.mind.tasks
        if t.requirement == room and t.document
    }
    return [f"{d.key} (version {d.version})" for d in scratch.documents.values() if d.path in paths]


def done_result(scratch: Scratch, room: str) -> str:
    listed = ", ".join(documents_of(scratch, room)) or "none"
    return f"every piece approved; documents: {listed}. Ask the boss to approve it (/approve {room})"


def sign_off(
    scratch: Scratch, room: str, verdict: str, feedback: str, now: datetime
) -> tuple[str, list[tuple[str, Owed]]] | Refusal:
    """The boss's word on a reported requirement: approve closes it, reopen gives its lead the work again."""
    company = scratch.company
    if company.signoffs.get(room) != REPORTED:
        return Refusal(f"{room!r} is not a requirement waiting for the boss's sign-off")
    if verdict not in ("approve", "reopen"):
        return Refusal(f"verdict is approve or reopen, not {verdict!r}")
    scratch.edit_company().signoffs[room] = APPROVED if verdict == "approve" else REOPENED
    if verdict == "approve":
        return f"requirement {room} approved by the boss", []
    dept = next((d for d in company.departments.values() if room in _rooms_of(scratch, d.id)), None)
    lead = dept.lead if dept else None
    if lead is None or lead not in scratch.employees:
        return f"requirement {room} reopened", []
    words = " ".join(feedback.split())[:FEEDBACK_CHARS] or "not good enough yet"
    task = Task(
        id=scratch.next_task_id(),
        owner=lead,
        description=f"Rework requirement {room}; the boss said: {words}",
        created_at=now,
        origin=BOSS,
        on_resolve_target=boss_conversation_id(lead),
        requirement=room,
    )
    scratch.employee(lead).mind.tasks.append(task)
    note = (
        f"The boss did not approve requirement {room}; the feedback is your task [{task.id}]. Rework it here."
    )
    return f"requirement {room} reopened with the boss's feedback", [(lead, Owed(room, Trigger.TASK, note))]


def _rooms_of(scratch: Scratch, department: str) -> set[str]:
    return {c.id for c in scratch.conversations.values() if c.department == department}


def approval(text: str) -> str | None:
    """The requirement a boss line `/approve req-<n>` approves, if it is one."""
    match = _APPROVE.match(text)
    return match.group(1).lower() if match else None
