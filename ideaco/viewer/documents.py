"""The viewer's Documents tab (issue 20): each document's versions with their diffs and its review
thread, from the `document` steps each thought applied (nothing recomputed but the diffs)."""

from __future__ import annotations

import difflib
from datetime import datetime
from typing import Any

MAX_DIFF_LINES = 400  # of one version's diff shown


def _offset(at: Any, start: datetime) -> float | None:
    try:
        return round((datetime.fromisoformat(str(at)) - start).total_seconds(), 3)
    except ValueError:
        return None


def documents(thoughts: list[dict[str, Any]], start: datetime) -> list[dict[str, Any]]:
    """One entry per document: its text now, each version's diff, and its history of tool calls."""
    out: dict[str, dict[str, Any]] = {}
    for record in thoughts:
        for step in (record.get("applied") or {}).get("steps") or ():
            if not isinstance(step, dict) or step.get("step") != "document":
                continue
            doc = step.get("document") or {}
            key = f"{doc.get('department')}/{doc.get('path')}"
            entry = out.setdefault(
                key, {"key": key, "author": doc.get("author"), "versions": [], "history": []}
            )
            content = str(doc.get("content") or "")
            versions = doc.get("versions") or [{}]
            if not entry["versions"] or entry["versions"][-1]["hash"] != versions[-1].get("hash"):
                before = entry["versions"][-1]["content"] if entry["versions"] else ""
                diff = list(
                    difflib.unified_diff(
                        before.splitlines(), content.splitlines(), "before", "after", lineterm=""
                    )
                )
                entry["versions"].append(
                    {
                        "hash": versions[-1].get("hash"),
                        "author": versions[-1].get("author"),
                        "t": _offset(versions[-1].get("at"), start),
                        "content": content,
                        "diff": "\n".join(diff[:MAX_DIFF_LINES]),
                    }
                )
            review = doc.get("review") or {}
            entry["history"].append(
                {
                    "t": _offset(record.get("at"), start),
                    "thought": record.get("id"),
                    "employee": record.get("employee"),
                    "tool": step.get("tool"),
                    "status": review.get("status"),
                    "notes": review.get("notes") if step.get("tool") == "review" else None,
                    "argument": review.get("argument") if step.get("tool") == "rebut" else None,
                }
            )
            entry["review"] = review or None
    return list(out.values())
