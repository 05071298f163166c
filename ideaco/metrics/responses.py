"""Who answers whom, and how soon: the boss's lines and mentions (docs/evaluation.md).

Pure functions over message records (`{id, at, conversation, sender, text, mentions}`) in the
order they were posted; times are simulated.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ideaco.ids import BOSS, boss_conversation_id


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def latency_summary(values: Sequence[float]) -> dict[str, Any]:
    """Count, mean, median and 90th percentile of simulated seconds (None when there are none)."""
    if not values:
        return {"count": 0, "mean_s": None, "median_s": None, "p90_s": None}
    ordered = sorted(values)
    return {
        "count": len(ordered),
        "mean_s": round(statistics.fmean(ordered), 3),
        "median_s": round(statistics.median(ordered), 3),
        "p90_s": round(ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))], 3),
    }


def boss_lines(messages: Sequence[dict[str, Any]], agents: set[str]) -> dict[str, Any]:
    """Each boss line: a question (it has a '?') or a request, who replied first (a reply, whatever it says), and how soon.

    A line is answered by the first message, after it, of an employee it addresses (its
    `mentions`: the @-mentioned, or everyone in the conversation when it names nobody), written
    in its conversation or in that employee's 1-on-1 with the boss (where a report comes).
    """
    rows = []
    for i, b in enumerate(messages):
        if b["sender"] != BOSS:
            continue
        addressed = [e for e in b.get("mentions") or () if e in agents]
        at = _dt(b["at"])
        answer = next(
            (
                m
                for m in messages[i + 1 :]
                if m["sender"] in addressed
                and m["conversation"] in (b["conversation"], boss_conversation_id(m["sender"]))
                and _dt(m["at"]) >= at
            ),
            None,
        )
        rows.append(
            {
                "id": b.get("id"),
                "at": b["at"],
                "conversation": b["conversation"],
                "kind": "question" if "?" in (b.get("text") or "") else "request",
                "addressed": addressed,
                "answered_by": answer["sender"] if answer else None,
                "latency_s": round((_dt(answer["at"]) - at).total_seconds(), 3) if answer else None,
            }
        )
    answered = [r for r in rows if r["answered_by"] is not None]
    return {
        "lines": rows,
        "questions": sum(r["kind"] == "question" for r in rows),
        "requests": sum(r["kind"] == "request" for r in rows),
        "answered": len(answered),
        "answered_rate": round(len(answered) / len(rows), 4) if rows else None,
        "latency": latency_summary([r["latency_s"] for r in answered]),
        "answered_by": dict(Counter(r["answered_by"] for r in answered).most_common()),
    }


def mention_latency(messages: Sequence[dict[str, Any]], agents: set[str]) -> dict[str, Any]:
    """For every (message, employee it mentions): the time to that employee's next message there."""
    pending: dict[tuple[str, str], list[datetime]] = {}  # (conversation, employee) -> mentions waiting
    latencies: list[float] = []
    mentions = 0
    for m in messages:
        at, conv = _dt(m["at"]), m["conversation"]
        waiting = pending.pop((conv, m["sender"]), None)
        if waiting:
            latencies += [(at - t).total_seconds() for t in waiting]
        for e in m.get("mentions") or ():
            if e in agents and e != m["sender"]:
                mentions += 1
                pending.setdefault((conv, e), []).append(at)
    return {
        "mentions": mentions,
        "answered": len(latencies),
        "answered_rate": round(len(latencies) / mentions, 4) if mentions else None,
        "latency": latency_summary(latencies),
    }
