"""What a run's workspace holds and how its reviews went (issue 20), read from `applied` alone.

`history(thoughts)` is every document step in the order it landed, with what it did in a reader's
words and the document as it stood after it, rebuilt from the steps (each logs only what it
changed, issue 28 item 6): the one reading of a document's history, which the report, the viewer
(`viewer/documents.py`) and `inspect --docs` share. `documents(thoughts)` is the report's
`documents` section: each document (author, versions, rejections, where its review stands, its
reviewer), how many were written, and per reviewer the verdicts given and the share that were
rejections. `requirements(...)` times each requirement from the boss's hand-over to its lead's
report and to the boss's approval.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ideaco.ids import BOSS
from ideaco.kinds import StepKind, ToolName
from ideaco.office.core.company import REPORTED, UNSIGNED
from ideaco.office.core.documents import APPROVED, FAILED, REBUTTED, REJECTED, REQUESTED

# What each document tool did, in a reader's words (a review: its verdict, `_verdict`).
DID = {
    ToolName.WRITE_DOCUMENT: "written",
    ToolName.REVISE_DOCUMENT: "revised",
    ToolName.REQUEST_REVIEW: "review asked",
    ToolName.REBUT: REBUTTED,
}


@dataclass(frozen=True)
class DocumentEvent:
    """One document step as it landed, and the document as it stood after it."""

    record: dict[str, Any]  # the thought that applied it
    tool: str
    key: str  # <department>/<path>
    what: str  # what the step did: written, revised, review asked, rejected, approved, ...
    author: str
    count: int  # versions it had had by then
    version: str | None  # the version it was at
    added: tuple[dict[str, Any], ...]  # the versions this step added (hash, author, at, thought)
    content: str | None  # the text those versions made; None when the step changed no text
    review: dict[str, Any]  # the review after the step; {} when none was asked


# The tools whose success changes the workspace, a review or a requirement (not read_document, which
# changes nothing): the terminal's ✎ lines (`cli/display.py`) and the viewer's, defined here once.
WORK_TOOLS = frozenset(
    (
        ToolName.WRITE_DOCUMENT,
        ToolName.REVISE_DOCUMENT,
        ToolName.REQUEST_REVIEW,
        ToolName.REVIEW,
        ToolName.REBUT,
        ToolName.SIGN_OFF,
    )
)


def line_text(step: dict[str, Any]) -> str:
    """What a work line says after who did it, in the terminal and the viewer alike: the tool's own
    message (`asked the boss to sign off requirement req-1`), or its name."""
    return str(step.get("message") or step.get("tool") or "")


def _verdict(review: dict[str, Any]) -> str:
    status = review.get("status")
    if status == REQUESTED and review.get("final"):  # the last rejection handed it to the lead
        return "rejected, the lead decides"
    return {FAILED: "rejected for good"}.get(str(status), str(status))


def _rejection(review: dict[str, Any]) -> bool:
    return _verdict(review).startswith(REJECTED)


def history(thoughts: Iterable[dict[str, Any]]) -> list[DocumentEvent]:
    """Every document step of `thoughts` (records as `RunLog` checked them), in order."""
    out: list[DocumentEvent] = []
    seen: dict[str, tuple[int, str | None]] = {}  # key -> versions so far, the last one's hash
    for record in thoughts:
        for step in (record.get("applied") or {}).get("steps") or ():
            if not isinstance(step, dict) or step.get("step") != StepKind.DOCUMENT:
                continue
            doc = step.get("document") or step  # an older ideaco logged the whole document
            key = f"{doc.get('department')}/{doc.get('path')}"
            count, version = seen.get(key, (0, None))
            versions = tuple(doc.get("versions") or ())
            added = versions if doc is step else versions[count:]  # an older record: all so far
            if added:
                count, version = count + len(added), added[-1].get("hash")
            seen[key] = (count, version)
            tool, review = str(step.get("tool") or ""), doc.get("review") or {}
            out.append(
                DocumentEvent(
                    record,
                    tool,
                    key,
                    _verdict(review) if tool == ToolName.REVIEW else DID.get(tool, tool or "changed"),
                    str(doc.get("author") or ""),
                    count,
                    version,
                    added,
                    doc.get("content") if added else None,
                    review,
                )
            )
    return out


def documents(thoughts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The `documents` section of a report (empty lists when the run wrote none)."""
    last: dict[str, DocumentEvent] = {}
    written = 0
    verdicts: dict[str, dict[str, int]] = {}
    for event in history(thoughts):
        last[event.key] = event
        written += event.tool == ToolName.WRITE_DOCUMENT
        if event.tool == ToolName.REVIEW:
            who = str(event.record.get("employee"))
            tally = verdicts.setdefault(who, {"reviews": 0, "rejections": 0})
            tally["reviews"] += 1
            tally["rejections"] += _rejection(event.review)
    rows = [
        {
            "document": key,
            "author": event.author,
            "versions": event.count,
            "rejections": int(event.review.get("round") or 0),
            "status": event.review.get("status") or "not reviewed",
            "reviewer": event.review.get("reviewer"),
        }
        for key, event in last.items()
    ]
    reviewers = {
        who: t | {"rejection_rate": round(t["rejections"] / t["reviews"], 3) if t["reviews"] else 0.0}
        for who, t in verdicts.items()
    }
    return {"written": written, "documents": rows, "reviewers": reviewers}


def requirements(
    thoughts: Iterable[dict[str, Any]], changes: Iterable[dict[str, Any]] = ()
) -> list[dict[str, Any]]:
    """Each requirement: when the boss handed it over, and how long until its lead reported it done
    and until the boss approved it (seconds of simulated time; None while it has not happened).

    Read from what was applied (the lead's task, the company's sign-offs), by thoughts and by the
    changes between them (the boss's `/approve req-N` line is one, with the sign-off it applied)."""
    # (when, the step, who decided it: the boss's line, or a thought's employee in an older run
    # where a lead's sign_off could approve)
    events: list[tuple[str, dict[str, Any], str | None]] = []
    for record in thoughts:
        by = record.get("employee")
        events += [(str(record.get("at")), s, by) for s in (record.get("applied") or {}).get("steps") or ()]
    for record in changes:
        by = record.get("by", BOSS) if record.get("cause") == "approval" else None
        events += [(str(record.get("at")), s, by) for s in record.get("steps") or ()]
    rows: dict[str, dict[str, Any]] = {}
    signoffs: dict[str, str] = {}
    for at, step, by in sorted(events, key=lambda e: e[0]):
        kind = step.get("step") if isinstance(step, dict) else None
        if kind == StepKind.MIND:
            for task in (step.get("tasks") or {}).get("added") or ():
                room = task.get("requirement")
                if room and task.get("origin") == BOSS and room not in rows:
                    rows[room] = {
                        "requirement": room,
                        "lead": task.get("owner"),
                        "asked_at": at,
                        "reported_after_s": None,
                        "approved_after_s": None,
                        "approved_by": None,
                        "status": UNSIGNED,
                    }
        elif kind == StepKind.COMPANY:
            now = (step.get("company") or {}).get("signoffs") or {}
            for room, status in now.items():
                if signoffs.get(room) != status:
                    _mark(rows.get(room), status, at, by)
            signoffs = dict(now)
    return list(rows.values())


def _mark(row: dict[str, Any] | None, status: str, at: str, by: str | None) -> None:
    if row is None:
        return
    row["status"] = status
    after = round((datetime.fromisoformat(at) - datetime.fromisoformat(row["asked_at"])).total_seconds(), 1)
    if status == REPORTED and row["reported_after_s"] is None:
        row["reported_after_s"] = after
    if status == APPROVED:
        row["approved_after_s"], row["approved_by"] = after, by
