"""What a run's workspace holds and how its reviews went (issue 20), read from `applied` alone.

`documents(thoughts)` is the report's `documents` section: each document (author, versions,
rejections, where its review stands, its reviewer), how many were written, and per reviewer the
verdicts given and the share that were rejections. `requirements(...)` times each requirement
from the boss's hand-over to its lead's report and to the boss's approval.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from ideaco.office.core.company import APPROVED, REPORTED

REJECTED = ("rejected", "failed")


def documents(thoughts: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """The `documents` section of a report (empty lists when the run wrote none)."""
    last: dict[str, dict[str, Any]] = {}
    written = 0
    verdicts: dict[str, dict[str, int]] = {}
    for record in thoughts:
        steps = (record.get("applied") or {}).get("steps") or ()
        for step in steps:
            if not isinstance(step, dict) or step.get("step") != "document":
                continue
            doc = step.get("document") or {}
            key = f"{doc.get('department')}/{doc.get('path')}"
            last[key] = doc
            written += step.get("tool") == "write_document"
            review = doc.get("review") or {}
            if step.get("tool") == "review":
                tally = verdicts.setdefault(str(record.get("employee")), {"reviews": 0, "rejections": 0})
                tally["reviews"] += 1
                # a rejection that hands the decision to the lead is logged as requested again
                tally["rejections"] += review.get("status") in REJECTED or bool(
                    review.get("final") and review.get("status") == "requested"
                )
    rows = []
    for key, doc in last.items():
        review = doc.get("review") or {}
        rows.append(
            {
                "document": key,
                "author": doc.get("author"),
                "versions": len(doc.get("versions") or ()),
                "rejections": int(review.get("round") or 0),
                "status": review.get("status") or "not reviewed",
                "reviewer": review.get("reviewer"),
            }
        )
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
    events: list[tuple[str, dict[str, Any]]] = []
    for record in thoughts:
        events += [(str(record.get("at")), s) for s in (record.get("applied") or {}).get("steps") or ()]
    for record in changes:
        events += [(str(record.get("at")), s) for s in record.get("steps") or ()]
    rows: dict[str, dict[str, Any]] = {}
    signoffs: dict[str, str] = {}
    for at, step in sorted(events, key=lambda e: e[0]):
        kind = step.get("step") if isinstance(step, dict) else None
        if kind == "mind":
            for task in (step.get("tasks") or {}).get("added") or ():
                room = task.get("requirement")
                if room and task.get("origin") == "boss" and room not in rows:
                    rows[room] = {
                        "requirement": room,
                        "lead": task.get("owner"),
                        "asked_at": at,
                        "reported_after_s": None,
                        "approved_after_s": None,
                        "status": "open",
                    }
        elif kind == "company":
            now = (step.get("company") or {}).get("signoffs") or {}
            for room, status in now.items():
                if signoffs.get(room) != status:
                    _mark(rows.get(room), status, at)
            signoffs = dict(now)
    return list(rows.values())


def _mark(row: dict[str, Any] | None, status: str, at: str) -> None:
    if row is None:
        return
    row["status"] = status
    after = round((datetime.fromisoformat(at) - datetime.fromisoformat(row["asked_at"])).total_seconds(), 1)
    if status == REPORTED and row["reported_after_s"] is None:
        row["reported_after_s"] = after
    if status == APPROVED:
        row["approved_after_s"] = after
