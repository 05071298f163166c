"""Who replies to whom, who answers in person, and how soon: the boss's lines and mentions
(docs/evaluation.md). A reply is any later message of an employee a line names; an answer is the
addressee's own.

Pure functions over message records (`{id, at, conversation, sender, text, mentions}`) in the
order they were posted; times are simulated.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ideaco.ids import BOSS, boss_chat_owner, boss_conversation_id
from ideaco.office.rules.mentions import parse_mentions


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


def addressees(line: dict[str, Any], agents: set[str], people: Mapping[str, str]) -> list[str]:
    """The employees a boss line speaks to in person: those it @-mentions (`@all` is everyone),
    and the other side of the boss's 1-on-1 it is written in. A room line that names nobody
    addresses no one in particular (its `mentions` are then the whole room, spec 2.1)."""
    mentions = [str(e) for e in line.get("mentions") or ()]
    named = parse_mentions(str(line.get("text") or ""), people, mentions, sender=BOSS)
    found = dict.fromkeys(mentions if named else ())
    owner = boss_chat_owner(str(line.get("conversation") or ""))
    if owner is not None:
        found.setdefault(owner)
    return [e for e in found if e in agents]


def answered_by_addressee(
    messages: Sequence[dict[str, Any]], agents: set[str], people: Mapping[str, str]
) -> dict[int, dict[str, bool]]:
    """Boss line index -> {addressee: answered}: a message of that employee, in the line's
    conversation or its own 1-on-1 with the boss, before the boss's next line to it."""
    out: dict[int, dict[str, bool]] = {}
    waiting: dict[str, int] = {}  # employee -> the boss line it owes an answer to
    for i, m in enumerate(messages):
        sender = m["sender"]
        if sender == BOSS:
            out[i] = {}
            for e in addressees(m, agents, people):
                waiting[e] = i  # the boss's next line to it: the one before goes unanswered
                out[i][e] = False
        elif sender in waiting:
            line = messages[waiting[sender]]
            if m["conversation"] in (line["conversation"], boss_conversation_id(sender)):
                out[waiting.pop(sender)][sender] = True
    return out


def boss_lines(
    messages: Sequence[dict[str, Any]], agents: set[str], people: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Each boss line: a question (it has a '?') or a request; who replied first and how soon; and
    whether each employee it speaks to in person answered it (docs/evaluation.md).

    Replied to (`replied_by`, `latency_s`; `replied`, `replied_rate`): the first message, after the
    line, of an employee in its `mentions` (the @-mentioned, or everyone in the conversation when
    it names nobody), written in its conversation or in that employee's 1-on-1 with the boss (where
    a report comes). Any such message is a reply, whoever of them writes it and whatever it says.
    Answered (`addressees`, `answered_by_addressee`; `addressed`, `answered`, `answered_rate`): each
    employee the line speaks to in person wrote there before the boss's next line to it; someone
    else's reply is no answer. `people` maps ids to names (for @Name).
    """
    people = people if people is not None else {a: a for a in agents}
    in_person = answered_by_addressee(messages, agents, people)
    rows = []
    for i, b in enumerate(messages):
        if b["sender"] != BOSS:
            continue
        addressed = [e for e in b.get("mentions") or () if e in agents]
        at = _dt(b["at"])
        reply = next(
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
                "replied_by": reply["sender"] if reply else None,
                "latency_s": round((_dt(reply["at"]) - at).total_seconds(), 3) if reply else None,
                "addressees": list(in_person[i]),
                "answered_by_addressee": [e for e, yes in in_person[i].items() if yes],
            }
        )
    replied = [r for r in rows if r["replied_by"] is not None]
    owed = sum(len(r["addressees"]) for r in rows)
    answers = Counter(e for r in rows for e in r["answered_by_addressee"])
    answered = sum(answers.values())
    return {
        "lines": rows,
        "questions": sum(r["kind"] == "question" for r in rows),
        "requests": sum(r["kind"] == "request" for r in rows),
        "replied": len(replied),
        "replied_rate": round(len(replied) / len(rows), 4) if rows else None,
        "latency": latency_summary([r["latency_s"] for r in replied]),
        "replied_by": dict(Counter(r["replied_by"] for r in replied).most_common()),
        "addressed": owed,
        "answered": answered,
        "answered_rate": round(answered / owed, 4) if owed else None,
        "answered_by": dict(answers.most_common()),
    }


def mention_latency(messages: Sequence[dict[str, Any]], agents: set[str]) -> dict[str, Any]:
    """For every (message, employee it mentions): the time to that employee's next message there,
    a reply whatever it says (`replied`, `replied_rate`, `latency`)."""
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
        "replied": len(latencies),
        "replied_rate": round(len(latencies) / mentions, 4) if mentions else None,
        "latency": latency_summary(latencies),
    }
