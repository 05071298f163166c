"""summary.json: counts at the end of a run (spec 1.5), computed from the run's own logs."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

ENDED = "reached the end of the simulated time"
CLOSED_EARLY = "closed before the end of the simulated time"


def stop_reason(given: str | None, now: datetime, end_at: datetime | None) -> str:
    """Why a run stopped, always said: the reason given, else whether it reached its end."""
    if given:
        return given
    return ENDED if end_at is None or now >= end_at else CLOSED_EARLY


def summarize(
    thoughts: list[dict[str, Any]],
    messages: list[dict[str, Any]],
    *,
    employees: list[str],
    tasks: dict[str, int] | None = None,
    simulated_start: datetime,
    simulated_now: datetime,
    wall_time_s: float,
    stop_reason: str | None,
    errors: dict[str, int] | None = None,
) -> dict[str, Any]:
    """Totals and per-employee counts; `stop_reason` says why the run ended."""
    by_employee: dict[str, dict[str, int]] = {
        e: {"thoughts": 0, "spoke": 0, "silent": 0, "messages": 0, "prompt_tokens": 0, "completion_tokens": 0}
        for e in employees
    }
    gates: Counter[str] = Counter()
    rules: Counter[str] = Counter()  # why drafts were refused: loop breakers and filters, by rule
    llm = Counter()
    calls = 0
    for rec in thoughts:
        row = by_employee.setdefault(
            rec["employee"],
            {
                "thoughts": 0,
                "spoke": 0,
                "silent": 0,
                "messages": 0,
                "prompt_tokens": 0,
                "completion_tokens": 0,
            },
        )
        row["thoughts"] += 1
        row["spoke" if rec.get("spoke") else "silent"] += 1
        if rec.get("gate"):
            gates[rec["gate"]] += 1
        for step in (rec.get("applied") or {}).get("steps") or ():
            if step.get("step") == "draft" and step.get("gate") and step.get("rule"):
                rules[f"{step['gate']}:{step['rule']}"] += 1
        usage = rec.get("llm")
        if usage:
            calls += usage.get("calls", 1)
            for key in ("prompt_tokens", "completion_tokens", "cached_tokens"):
                llm[key] += usage.get(key, 0)
            row["prompt_tokens"] += usage.get("prompt_tokens", 0)
            row["completion_tokens"] += usage.get("completion_tokens", 0)
    senders: Counter[str] = Counter(m["sender"] for m in messages)
    for emp, row in by_employee.items():
        row["messages"] = senders.get(emp, 0)
    simulated = simulated_now - simulated_start
    return {
        "messages": len(messages),
        "messages_by_sender": dict(senders),
        "thoughts": len(thoughts),
        "silences_by_gate": dict(gates),
        "drafts_refused_by_rule": dict(sorted(rules.items())),
        "tasks_by_status": dict(tasks or {}),
        "llm": {
            "calls": calls,
            **{k: llm.get(k, 0) for k in ("prompt_tokens", "completion_tokens", "cached_tokens")},
        },
        "errors_by_kind": dict(errors or {}),
        "wall_time_s": round(wall_time_s, 2),
        "simulated_time": str(simulated),
        "simulated_seconds": simulated.total_seconds(),
        "simulated_start": simulated_start.isoformat(),
        "simulated_end": simulated_now.isoformat(),
        "stop_reason": stop_reason,
        "by_employee": by_employee,
    }
