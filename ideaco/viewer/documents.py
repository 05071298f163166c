"""The viewer's Documents tab (issue 20): each document's versions with their diffs and its review
thread, from `reviews.history` (the document steps each thought applied; nothing recomputed but
the diffs). Every time is when the step landed (the thought's `applied.at`, the moment its version
is dated), never when its think began (issue 37, item 7)."""

from __future__ import annotations

import difflib
from datetime import datetime
from typing import Any

from ideaco.kinds import ToolName
from ideaco.reviews import history
from ideaco.viewer.work import landed, offset

MAX_DIFF_LINES = 400  # of one version's diff shown


def documents(thoughts: list[dict[str, Any]], start: datetime) -> list[dict[str, Any]]:
    """One entry per document: its text now, each version's diff, and its history of tool calls."""
    out: dict[str, dict[str, Any]] = {}
    for event in history(thoughts):
        record = event.record
        entry = out.setdefault(
            event.key, {"key": event.key, "author": event.author, "versions": [], "history": []}
        )
        if event.content is not None:
            before = entry["versions"][-1]["content"] if entry["versions"] else ""
            diff = list(
                difflib.unified_diff(
                    before.splitlines(), event.content.splitlines(), "before", "after", lineterm=""
                )
            )
            made = event.added[-1]
            entry["versions"].append(
                {
                    "hash": made.get("hash"),
                    "author": made.get("author"),
                    "t": offset(made.get("at") or landed(record), start),
                    "content": event.content,
                    "diff": "\n".join(diff[:MAX_DIFF_LINES]),
                }
            )
        entry["history"].append(
            {
                "t": offset(landed(record), start),
                "thought": record.get("id"),
                "employee": record.get("employee"),
                "tool": event.tool,
                "status": event.what,  # what the call did: a revision reads "revised" (issue 29)
                "notes": event.review.get("notes") if event.tool == ToolName.REVIEW else None,
                "argument": event.review.get("argument") if event.tool == ToolName.REBUT else None,
            }
        )
        entry["count"] = event.count
        entry["review"] = event.review or None
    return list(out.values())
