"""The chat's work commands (issue 20): `/docs` (the workspace), `/requirement` (a requirement's
pieces and documents), `/approve REQ` and `/reopen REQ NOTES` (the boss decides a requirement its
lead reported done: only the boss can, issue 37).

`/approve` and `/reopen` are boss lines in the lead's boss chat (`/approve req-1`), applied where
every boss line is (office/resolve/apply.py), so the logs keep them and a resume replays them.
"""

from __future__ import annotations

from rich.text import Text

from ideaco.cli.display import safe_text
from ideaco.ids import REQUIREMENT_PREFIX, boss_chat_owner
from ideaco.kinds import Verdict
from ideaco.office.core.company import REOPENED, UNSIGNED
from ideaco.office.core.documents import APPROVED
from ideaco.office.engine.office import Office

QUOTE = "  │ "  # before each line of a document's text


class WorkCommandError(ValueError):
    """A work command the chat cannot act on (one line for the boss)."""


def docs_lines(office: Office, path: str | None = None) -> list[Text]:
    """Every document with its version, author and review; with a path, its text too, each line
    quoted under the header (a document's `09:10:00 ★ Boss: ...` must not print like the boss)."""
    docs = office.state.documents
    if path is not None:
        doc = docs.get(path) or next((d for d in docs.values() if d.path == path), None)
        if doc is None:
            raise WorkCommandError(f"no document {safe_text(path)!r} (/docs lists them)")
        docs = {doc.key: doc}
    if not docs:
        return [Text("no documents yet", style="dim")]
    lines = []
    for doc in docs.values():
        review = doc.review
        state = (
            f"{review.status}, reviewer {review.reviewer}, rejections {review.round}"
            if review
            else "not reviewed"
        )
        line = Text.assemble(
            (doc.key, "bold"),
            f" · version {doc.version} ({doc.count} in all) · by {doc.author} · {state}",
        )
        lines.append(line)
        if path is not None:  # quoted under its header: no line of it prints like the transcript's
            lines += [Text.assemble((QUOTE, "dim"), safe_text(row)) for row in doc.content.splitlines()]
    return lines


def _requirement_rooms(office: Office) -> list[str]:
    return [c for c in office.conversations if c.startswith(REQUIREMENT_PREFIX)]


def requirement_lines(office: Office, room: str | None = None) -> list[Text]:
    """Each requirement (or one): its sign-off, its pieces (owner, status, document)."""
    rooms = [room] if room else _requirement_rooms(office)
    if not rooms:
        return [Text("no requirements yet", style="dim")]
    lines = []
    for rid in rooms:
        conv = office.conversations.get(rid)
        if conv is None:
            raise WorkCommandError(f"no requirement {safe_text(rid)!r}")
        signoff = office.company_model.signoffs.get(rid, UNSIGNED)
        lines.append(Text.assemble((rid, "bold"), f" · {safe_text(conv.name)} · {signoff}"))
        for emp in office.employees.values():
            for task in emp.mind.tasks:
                if task.requirement != rid:
                    continue
                doc = f" · {task.document}" if task.document else ""
                lines.append(
                    Text(f"  [{task.id}] {emp.id} · {task.status}{doc} · {safe_text(task.description)}")
                )
    return lines


def sign_off(office: Office, room: str, verdict: str, notes: str = "") -> str:
    """The boss's `/approve req-<n>` or `/reopen req-<n> NOTES`, written in the requirement's lead's boss chat."""
    try:
        message = office.sign_off(room, verdict, notes)
    except ValueError as exc:
        raise WorkCommandError(safe_text(str(exc))) from None
    lead = boss_chat_owner(message.conversation) or ""
    done = APPROVED if verdict == Verdict.APPROVE else REOPENED
    return f"{safe_text(room.strip().lower())} {done}; {office.name_of(lead)} is told"
