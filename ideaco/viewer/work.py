"""The viewer's work lines (issue 37, item 7): what each thought did to the workspace or a review,
a row per tool call that changed it, as `ideaco run` prints them (`✎ Dev wrote docs/release-notes.md
(version 150429f2)`), at the moment the thought landed.

A thought's record is dated when its think began (`at`); what it did landed at `applied.at`, the
moment its messages are dated too. Work lines and the Documents tab take the landing moment.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ideaco.kinds import StepKind
from ideaco.reviews import WORK_TOOLS, line_text


def landed(record: dict[str, Any]) -> str | None:
    """When a thought's changes landed: its `applied.at`, else (an older record) its `at`."""
    applied = record.get("applied")
    at = applied.get("at") if isinstance(applied, dict) else None
    return str(at or record.get("at") or "") or None


def offset(at: Any, start: datetime) -> float | None:
    """Seconds from the run's start to the ISO moment `at`; None for no moment or no readable one."""
    if not at:
        return None
    try:
        return round((datetime.fromisoformat(str(at)) - start).total_seconds(), 3)
    except ValueError:
        return None


def work_rows(thoughts: list[dict[str, Any]], start: datetime) -> list[dict[str, Any]]:
    """One row per work tool call that succeeded: when it landed, who, in which room, what it did,
    and the index of the thought that did it (the page shows that thought when the row is clicked)."""
    out: list[dict[str, Any]] = []
    for index, record in enumerate(thoughts):
        applied = record.get("applied")
        if not isinstance(applied, dict):
            continue  # an old run's format logs no applied steps
        for step in applied.get("steps") or ():
            if not isinstance(step, dict) or step.get("step") != StepKind.TOOL or not step.get("ok"):
                continue
            if step.get("tool") not in WORK_TOOLS:
                continue
            out.append(
                {
                    "t": offset(landed(record), start),
                    "emp": str(record.get("employee", "")),
                    "conv": str(record.get("conversation", "")),
                    "tool": str(step.get("tool")),
                    "text": line_text(step),
                    "thought": index,
                }
            )
    return out
