"""A requirement all the way (issue 20): its pieces' documents approved, the lead's report, the boss's sign-off.

A requirement is the lead's task in its work room (`req-<n>`, office/decide/tools/org.py); the pieces are the
tasks claimed from the board there. When every piece is resolved (an approved document resolves
its piece) and none waits on the board, the requirement's task resolves with its documents listed
and the lead owes the boss a report. The lead's `sign_off` asks the boss to sign it off (a line in
its boss chat of what was delivered); it never changes the requirement. Only the boss's own command
does (issue 37): `/approve req-<n>` closes it, `/reopen req-<n> NOTES` reopens it as a new task of
the lead's, with the boss's notes as the feedback.
"""

from __future__ import annotations

import re
from datetime import datetime

from ideaco.cycle import Owed, Trigger
from ideaco.ids import BOSS, REQUIREMENT_ROOM, SYSTEM, boss_conversation_id, display_name
from ideaco.kinds import BOSS_VERDICTS, MessageKind, Verdict
from ideaco.mind.tasks import RESOLVED, Task
from ideaco.office.core.company import ASKED, REOPENED, REPORTED, WAITING, BossVerdict
from ideaco.office.core.conversation import Message
from ideaco.office.core.documents import APPROVED, Document
from ideaco.office.core.refusal import Refusal
from ideaco.office.core.steps import NoticeStep
from ideaco.office.decide.scratch import Scratch

# The boss's commands: `/approve req-1`, `/reopen req-1 list the error codes first` (the notes are
# the feedback the lead's rework task quotes).
_COMMAND = re.compile(
    rf"^\s*/({Verdict.APPROVE}|{Verdict.REOPEN})\s+({REQUIREMENT_ROOM.pattern})(?:\s+(\S.*?))?\s*$",
    re.IGNORECASE | re.DOTALL,
)
FEEDBACK_CHARS = 400
NO_FEEDBACK = "not good enough yet"


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


def delivered(scratch: Scratch, room: str) -> list[Document]:
    """The documents the room's pieces deliver."""
    paths = {
        t.document
        for e in scratch.employees.values()
        for t in e.mind.tasks
        if t.requirement == room and t.document
    }
    return [d for d in scratch.documents.values() if d.path in paths]


def documents_of(scratch: Scratch, room: str) -> list[str]:
    """The documents the room's pieces delivered, with their versions."""
    return [f"{d.key} (version {d.version})" for d in delivered(scratch, room)]


def done_result(scratch: Scratch, room: str) -> str:
    listed = ", ".join(documents_of(scratch, room)) or "none"
    return f"every piece approved; documents: {listed}. Ask the boss to approve it (/approve {room})"


def sign_off(
    scratch: Scratch, room: str, verdict: str, feedback: str, now: datetime
) -> tuple[str, list[tuple[str, Owed]]] | Refusal:
    """The boss's own command on a requirement waiting for it: approve closes it, reopen gives its
    lead the work again with the boss's notes. Nothing else calls this: a lead only asks (`request`)."""
    company = scratch.company
    if company.signoffs.get(room) not in WAITING:
        return Refusal(f"{room!r} is not a requirement waiting for the boss's sign-off")
    if verdict not in BOSS_VERDICTS:
        return Refusal(f"verdict is {Verdict.APPROVE} or {Verdict.REOPEN}, not {verdict!r}")
    scratch.edit_company().signoffs[room] = APPROVED if verdict == Verdict.APPROVE else REOPENED
    if verdict == Verdict.APPROVE:
        return f"requirement {room} approved by the boss", []
    lead = lead_of_room(scratch, room)
    if lead is None:
        return f"requirement {room} reopened", []
    words = " ".join(feedback.split())[:FEEDBACK_CHARS] or NO_FEEDBACK
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


def lead_of_room(scratch: Scratch, room: str) -> str | None:
    """The lead of the department whose work room `room` is (None if it has none here)."""
    conv = scratch.conversations.get(room)
    dept = scratch.company.departments.get(conv.department or "") if conv is not None else None
    lead = dept.lead if dept else None
    return lead if lead is not None and lead in scratch.employees else None


def request(
    scratch: Scratch, lead: str, room: str, msg_id: str, now: datetime
) -> tuple[str, NoticeStep] | Refusal:
    """A lead's `sign_off`: the boss is asked, in the lead's boss chat, to sign off a requirement
    its lead reported done, with what was delivered (documents, versions, reviews) and the two
    commands that decide it. The requirement itself does not change but to `asked` (once)."""
    status = scratch.company.signoffs.get(room)
    if status == ASKED:
        return Refusal(f"you already asked the boss to sign {room} off; the boss decides when it will")
    if status != REPORTED:
        return Refusal(f"{room!r} is not a requirement reported done and waiting for the boss")
    scratch.edit_company().signoffs[room] = ASKED
    conv = scratch.conversations.get(room)
    title = f" ({conv.name})" if conv is not None and conv.name and conv.name != room else ""
    names = {e.id: e.name for e in scratch.employees.values()}
    delivered = "; ".join(_delivered(scratch, room, names)) or "no documents"
    text = (
        f"{display_name(lead, names.get(lead))} asks you to sign off requirement {room}{title}. Delivered: {delivered}. "
        f"Type /approve {room} to approve it, or /reopen {room} and what to rework."
    )
    chat = boss_conversation_id(lead)
    message = Message(msg_id, now, chat, SYSTEM, text, kind=MessageKind.SYSTEM)
    scratch.conversation(chat).add(message)
    return f"asked the boss to sign off requirement {room}", NoticeStep(chat, msg_id, message)


def _delivered(scratch: Scratch, room: str, names: dict[str, str]) -> list[str]:
    """Each document the room's pieces delivered: its version, its author and its review."""
    out = []
    for doc in delivered(scratch, room):
        review = doc.review
        said = (
            f", {review.status} by {display_name(review.reviewer, names.get(review.reviewer))}"
            if review is not None
            else ""
        )
        out.append(f"{doc.key} version {doc.count}{said}")
    return out


def boss_verdict(text: str) -> BossVerdict | None:
    """The requirement a boss line `/approve req-<n>` or `/reopen req-<n> NOTES` decides, if it is one."""
    match = _COMMAND.match(text)
    if match is None:
        return None
    return BossVerdict(match.group(2).lower(), match.group(1).lower(), (match.group(3) or "").strip())
