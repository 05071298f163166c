"""What a run's workspace holds and how its reviews went (issue 20), read from `applied` alone.

`documents(thoughts)` is the report's `documents` section: each document (author, versions,
rejections, where its review stands, its reviewer), how many were written, and per reviewer the
verdicts given and the share that were rejections.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

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
