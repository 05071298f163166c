"""Who talks to whom, persona spread, mood and affinity over time (docs/evaluation.md).

Pure functions over message and thought records and what the thoughts applied (`History`).
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ideaco.ids import BOSS, boss_chat_owner, dm_members


def _partners(conversation: str, sender: str) -> list[str]:
    """The other side of a 1-on-1 (a DM or the boss chat), from its id; [] for a room."""
    members = dm_members(conversation)
    if members is not None:
        return [p for p in members[:2] if p != sender]
    employee = boss_chat_owner(conversation)
    if employee is not None:
        return [BOSS] if sender != BOSS else [employee]
    return []


def talk_edges(messages: Sequence[dict[str, Any]], people: set[str]) -> list[dict[str, Any]]:
    """Directed edges speaker -> addressee, counted once per message and addressee.

    A message is to the people it mentions; else, in a 1-on-1, to the other side; else (a room)
    a reply to the last earlier speaker there who is not its sender. `people`: employees and the boss.
    """
    last: dict[str, str] = {}  # conversation -> its last speaker
    counts: Counter[tuple[str, str]] = Counter()
    for m in messages:
        sender, conv = m["sender"], m["conversation"]
        if sender not in people:
            continue
        targets = [e for e in m.get("mentions") or () if e != sender and e in people]
        if not targets:
            targets = [p for p in _partners(conv, sender) if p in people]
        if not targets and last.get(conv) not in (None, sender):
            targets = [last[conv]]
        for t in dict.fromkeys(targets):
            counts[(sender, t)] += 1
        last[conv] = sender
    return [{"from": a, "to": b, "count": n} for (a, b), n in sorted(counts.items())]


def graph_summary(edges: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Pairs that talk, how many of them talk back, and the share of words addressed to the boss."""
    pairs = {(e["from"], e["to"]) for e in edges}
    total = sum(e["count"] for e in edges)
    to_boss = sum(e["count"] for e in edges if e["to"] == BOSS)
    return {
        "pairs": len(pairs),
        "reciprocity": round(sum((b, a) in pairs for a, b in pairs) / len(pairs), 4) if pairs else None,
        "to_boss_share": round(to_boss / total, 4) if total else None,
    }


def persona_spread(
    archetypes: Mapping[str, str],
    messages_by: Mapping[str, int],
    thoughts_by: Mapping[str, int],
    spoke_by: Mapping[str, int],
    hours: float,
) -> dict[str, Any]:
    """Per archetype: employees, messages per employee-hour, speak rate; and the spread of the rates.

    The spread is the coefficient of variation (population standard deviation / mean) of the
    per-archetype message rates: 0 when every archetype talks as much, None with fewer than two.
    """
    groups: dict[str, list[str]] = {}
    for employee, archetype in archetypes.items():
        groups.setdefault(archetype, []).append(employee)
    rows = {}
    for archetype, members in sorted(groups.items()):
        msgs = sum(messages_by.get(e, 0) for e in members)
        thoughts = sum(thoughts_by.get(e, 0) for e in members)
        rows[archetype] = {
            "employees": sorted(members),
            "messages": msgs,
            "messages_per_hour": round(msgs / len(members) / hours, 3) if hours > 0 else None,
            "speak_rate": round(sum(spoke_by.get(e, 0) for e in members) / thoughts, 4) if thoughts else None,
        }
    rates = [r["messages_per_hour"] for r in rows.values() if r["messages_per_hour"] is not None]
    mean = statistics.fmean(rates) if len(rates) >= 2 else 0.0
    spread = round(statistics.pstdev(rates) / mean, 4) if mean > 0 else None
    return {"by_archetype": rows, "spread": spread}


def mood(thoughts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Interest and saturation of every thought, per employee, in time order; and their means."""
    by_employee: dict[str, list[dict[str, Any]]] = {}
    for t in sorted(thoughts, key=lambda r: r["at"]):
        thought = t.get("thought")
        if not thought:
            continue
        by_employee.setdefault(t["employee"], []).append(
            {"at": t["at"], "interest": thought["interestLevel"], "saturation": thought["topicSaturation"]}
        )
    points = [p for pts in by_employee.values() for p in pts]
    return {
        "interest_mean": round(statistics.fmean(p["interest"] for p in points), 3) if points else None,
        "saturation_mean": round(statistics.fmean(p["saturation"] for p in points), 3) if points else None,
        "by_employee": by_employee,
    }
