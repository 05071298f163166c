"""summary.json: counts at the end of a run (spec 1.5), computed from the run's own logs."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from ideaco.kinds import StepKind
from ideaco.store.usage import USAGE_KEYS, usage_of, usage_totals

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
    kinds: Counter[str] = Counter()  # drafts the text rules refused, by kind: guarantee or hygiene
    tools: Counter[str] = Counter()  # the secretary's tool calls: made, refused, refused by a cap
    capped: Counter[str] = Counter()
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
            if step.get("step") == StepKind.DRAFT and step.get("gate") and step.get("rule"):
                rules[f"{step['gate']}:{step['rule']}"] += 1
                kinds.update([step["kind"]] if step.get("kind") else [])
            elif step.get("step") == StepKind.TOOL:
                tools["made" if step.get("ok") else "refused"] += 1
                capped.update([step["cap"]] if step.get("cap") else [])
        usage = usage_of(rec)
        row["prompt_tokens"] += usage["prompt_tokens"]
        row["completion_tokens"] += usage["completion_tokens"]
    senders: Counter[str] = Counter(m["sender"] for m in messages)
    totals = usage_totals(thoughts)
    for emp, row in by_employee.items():
        row["messages"] = senders.get(emp, 0)
    simulated = simulated_now - simulated_start
    return {
        "messages": len(messages),
        "messages_by_sender": dict(senders),
        "thoughts": len(thoughts),
        "silences_by_gate": dict(gates),
        "drafts_refused_by_rule": dict(sorted(rules.items())),
        "drafts_filtered_by_kind": dict(sorted(kinds.items())),
        # office/rules/toolcaps.py: per request (rounds, repeated, no_request), per thought, per hour
        "tool_calls": {
            "made": tools["made"],
            "refused": tools["refused"],
            "by_cap": dict(sorted(capped.items())),
        },
        "tasks_by_status": dict(tasks or {}),
        "llm": {k: totals[k] for k in USAGE_KEYS},
        "errors_by_kind": dict(errors or {}),
        "wall_time_s": round(wall_time_s, 2),
        "simulated_time": str(timedelta(seconds=int(simulated.total_seconds()))),  # H:MM:SS, no microseconds
        "simulated_seconds": simulated.total_seconds(),
        "simulated_start": simulated_start.isoformat(),
        "simulated_end": simulated_now.isoformat(),
        "stop_reason": stop_reason,
        "by_employee": by_employee,
    }


def add_session_calls(
    previous: dict[str, Any] | None, flight: dict[str, Any], early: dict[str, int], wall_s: float
) -> dict[str, Any]:
    """The run's model calls so far: an earlier session's (state.json keeps them) plus this one's.

    `flight` is what the concurrency cap let through this session (`Flight.to_dict`), `early` the
    early calls' counts (`EarlyCounts`); the mean in flight is over every session's wall time.
    """
    out = dict(previous or {})
    out["made"] = out.get("made", 0) + flight.get("sent", 0)
    out["tokens_made"] = out.get("tokens_made", 0) + flight.get("tokens", 0)
    for key in ("started", "used", "dropped", "dropped_calls", "chained"):
        out[f"early_{key}"] = out.get(f"early_{key}", 0) + early.get(key, 0)
    out["busy_s"] = out.get("busy_s", 0.0) + flight.get("mean", 0.0) * wall_s
    out["wall_s"] = out.get("wall_s", 0.0) + wall_s
    out["peak"] = max(out.get("peak", 0), flight.get("peak", 0))
    return out


def calls_section(counts: dict[str, Any], llm: dict[str, Any], speculate: int) -> dict[str, Any]:
    """summary.json's `calls`: the model calls made, those the logged thoughts used, those dropped
    (started early for a request that was not the one sent at its moment), with their tokens
    (`tokens_unused`: paid for, used by no thought: dropped calls, and calls a stop cut); the calls
    in flight at once, on average over the run's wall time and at most.

    A session killed before its end leaves no count of the calls it made (they are counted when a
    session finishes); the calls its logged thoughts used are then the least it made."""
    wall = counts.get("wall_s", 0.0)
    used_tokens = llm.get("prompt_tokens", 0) + llm.get("completion_tokens", 0)
    tokens_made = max(counts.get("tokens_made", 0), used_tokens)
    return {
        "made": max(counts.get("made", 0), llm.get("calls", 0)),
        "used": llm.get("calls", 0),
        "dropped": counts.get("early_dropped_calls", 0),
        "tokens_made": tokens_made,
        "tokens_used": used_tokens,
        "tokens_unused": tokens_made - used_tokens,
        "speculate": speculate,
        "early": {k: counts.get(f"early_{k}", 0) for k in ("started", "used", "dropped", "chained")},
        "in_flight": {
            "mean": round(counts.get("busy_s", 0.0) / wall, 2) if wall > 0 else 0.0,
            "peak": counts.get("peak", 0),
        },
    }


def calls_line(calls: dict[str, Any]) -> str:
    """The closing line about the model calls, e.g. `model calls: 70 made, 62 used (30 of them started
    early), 8 started early and dropped (1,204 tokens used by no thought); 1.8 in flight on average, 4 at most`."""
    early = calls["early"]
    line = f"model calls: {calls['made']} made, {calls['used']} used"
    if early["started"]:
        line += f" ({early['used']} of them started early)"
        if calls["dropped"]:
            line += f", {calls['dropped']} started early and dropped"
    if calls["tokens_unused"]:
        line += f" ({calls['tokens_unused']:,} tokens used by no thought)"
    flight = calls["in_flight"]
    return line + f"; {flight['mean']:.1f} in flight on average, {flight['peak']} at most"
