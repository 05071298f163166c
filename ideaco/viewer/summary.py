"""The viewer's Summary & metrics tab as rows of text, formatted as `ideaco report` formats them
(`ideaco.metrics.units.value_text`: rates in %, seconds in s, counts with separators)."""

from __future__ import annotations

from typing import Any

from ideaco.metrics import SUMMARY
from ideaco.metrics.units import value_text

EMPLOYEE_COLUMNS = (
    ("thoughts", "thoughts"),
    ("spoke", "spoke"),
    ("silent", "silent"),
    ("messages", "messages"),
    ("prompt_tokens", "prompt tokens"),
    ("completion_tokens", "completion tokens"),
)


def metric_rows(collab: dict[str, Any]) -> list[dict[str, Any]]:
    """Every summary metric: its key, label, value, the value as text, and which way is better."""
    return [
        {
            "key": m.key,
            "label": m.label,
            "value": collab["summary"].get(m.key),
            "text": value_text(m.key, collab["summary"].get(m.key)),
            "better": m.better,
            "kind": m.kind,
        }
        for m in SUMMARY
    ]


def silence_rows(silences: dict[str, Any]) -> list[list[str]]:
    """[gate, thoughts it held, share of all thoughts] per gate."""
    rates = silences.get("rates") or {}
    return [
        [gate, value_text("thoughts", n), value_text(f"silence_{gate}", rates.get(gate))]
        for gate, n in (silences.get("by_gate") or {}).items()
    ]


def summary_rows(summary: dict[str, Any] | None) -> dict[str, Any] | None:
    """summary.json's totals ([label, text]) and its per-employee counts; None without one."""
    if not summary:
        return None
    llm = summary.get("llm") or {}
    tasks = summary.get("tasks_by_status") or {}
    totals = [
        ["messages", value_text("messages", summary.get("messages"))],
        ["thoughts", value_text("thoughts", summary.get("thoughts"))],
        ["model calls", value_text("calls", llm.get("calls"))],
        ["prompt tokens", value_text("tokens", llm.get("prompt_tokens"))],
        ["completion tokens", value_text("tokens", llm.get("completion_tokens"))],
        ["cached prompt tokens", value_text("tokens", llm.get("cached_tokens"))],
        ["wall time", value_text("wall_time_s", summary.get("wall_time_s"))],
        ["tasks", ", ".join(f"{status} {value_text('tasks', n)}" for status, n in tasks.items()) or "-"],
    ]
    employees = {
        emp: [value_text(key, row.get(key)) for key, _ in EMPLOYEE_COLUMNS]
        for emp, row in (summary.get("by_employee") or {}).items()
    }
    return {"totals": totals, "columns": [label for _, label in EMPLOYEE_COLUMNS], "employees": employees}
