"""What the viewer shows, gathered from a run directory into plain JSON-ready data.

Everything comes through `RunLog` (the one reader of a run directory, every format), the report's
`history` and `ideaco.metrics.evaluate`: the page computes nothing the report does not. Times are
seconds since the run's start, so the page never parses dates. The full thought records (with
`applied`) travel apart from the timeline's compact rows, so that the page parses them only when a
message is first clicked.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from ideaco.analysis import History, history
from ideaco.ids import boss_chat_owner, display_name, dm_members
from ideaco.kinds import GROUP_KINDS, ConversationKind, StepKind
from ideaco.metrics import evaluate
from ideaco.store.forks import read_fork
from ideaco.store.runlog import RunLog
from ideaco.viewer.documents import documents
from ideaco.viewer.summary import metric_rows, silence_rows, summary_rows
from ideaco.viewer.work import landed, offset, work_rows

# Columns: rooms, then the boss's chats, then DMs.
KIND_ORDER = {k.value: n for n, k in enumerate((*GROUP_KINDS, ConversationKind.BOSS, ConversationKind.DM))}
_THOUGHT_OF = re.compile(r"^(.+)-\d+$")  # a posted message's id: <thought id>-<n>


def _offset(at: str | None, start: datetime) -> float | None:
    if not at:
        return None
    return round((datetime.fromisoformat(at) - start).total_seconds(), 3)


def _kind(conv_id: str) -> str:
    if boss_chat_owner(conv_id) is not None:
        return ConversationKind.BOSS.value
    if dm_members(conv_id) is not None:
        return ConversationKind.DM.value
    return ConversationKind.WORK.value


def _rooms(run: RunLog) -> list[dict[str, Any]]:
    """Every conversation: those state.json holds, then any only the logs name (a closed DM, an old run)."""
    rooms: dict[str, dict[str, Any]] = {}
    for conv in run.conversations:
        cid = str(conv.get("id"))
        rooms[cid] = {
            "id": cid,
            "name": str(conv.get("name") or cid),
            "kind": str(conv.get("kind") or _kind(cid)),
            "members": [str(m) for m in conv.get("members") or ()],
        }
    for rec in (*run.messages, *run.thoughts):
        cid = str(rec.get("conversation") or "")
        if cid and cid not in rooms:
            rooms[cid] = {"id": cid, "name": cid, "kind": _kind(cid), "members": []}
    used = {str(r.get("conversation")) for r in (*run.messages, *run.thoughts)}
    order = sorted(rooms.values(), key=lambda r: (KIND_ORDER.get(r["kind"], 4), r["id"]))
    # An empty casual room (nobody spoke or thought there) would only be a blank column.
    return [r for r in order if r["id"] in used]


def _people(run: RunLog) -> list[dict[str, Any]]:
    """Employees from state.json, then anyone else the logs name (the boss, an employee since removed)."""
    out = [
        {
            "id": e.id,
            "name": e.name,
            "role": e.role,
            "archetype": str(e.persona.get("archetype") or e.persona.get("id") or ""),
            "dismissed": e.dismissed,
        }
        for e in run.employees
    ]
    known = {p["id"] for p in out}
    for rec in (*run.messages, *run.thoughts):
        who = str(rec.get("sender") or rec.get("employee") or "")
        if who and who not in known:
            known.add(who)
            name = display_name(who)
            out.append({"id": who, "name": name, "role": "", "archetype": "", "dismissed": False})
    return out


def _withheld(rec: dict[str, Any]) -> dict[str, Any]:
    """Why a silent thought posted nothing: the first draft a gate held, with its rule and detail."""
    for step in (rec.get("applied") or {}).get("steps") or ():
        if step.get("step") == StepKind.DRAFT and step.get("gate"):
            return {k: step[k] for k in ("gate", "rule", "detail", "reopens_at") if step.get(k)}
    return {}


def _thought_row(rec: dict[str, Any], index: int, start: datetime) -> dict[str, Any]:
    thought = rec.get("thought") if isinstance(rec.get("thought"), dict) else {}
    drafts = [m.get("content", "") for m in thought.get("messages") or () if isinstance(m, dict)]
    row = {
        "n": index,
        "id": str(rec.get("id", index)),
        "t": _offset(rec.get("at"), start),  # when its think began
        "landed": offset(landed(rec), start),  # when what it did landed: a silence shows then (issue 37)
        "emp": str(rec.get("employee", "")),
        "conv": str(rec.get("conversation", "")),
        "trigger": rec.get("trigger"),
        "spoke": bool(rec.get("spoke")),
        "gate": rec.get("gate") or (None if rec.get("spoke") else "no_text"),
        "inner": str(thought.get("innerThoughts") or ""),
        "reason": str(thought.get("reason") or ""),
        "interest": thought.get("interestLevel"),
        "saturation": thought.get("topicSaturation"),
        "drafts": [str(d) for d in drafts],
    }
    held = _withheld(rec)
    if held:
        row["held"] = held
    return row


def _link(messages: list[dict[str, Any]], thoughts: list[dict[str, Any]]) -> dict[str, int]:
    """Message id -> the index of the thought that posted it (its `messages` list, else its id's prefix)."""
    by_id = {str(t.get("id")): i for i, t in enumerate(thoughts)}
    out: dict[str, int] = {}
    for i, t in enumerate(thoughts):
        for mid in t.get("messages") or ():
            out.setdefault(str(mid), i)
    for m in messages:
        mid = str(m.get("id"))
        match = _THOUGHT_OF.match(mid)
        if mid not in out and match and match.group(1) in by_id:
            out[mid] = by_id[match.group(1)]
    return out


def _stamina(hist: History, start: datetime) -> dict[str, list[list[float]]]:
    """Per employee: [t, comfort, patience, fatigue, stress] after every change."""
    return {
        emp: [
            [
                round((p.at - start).total_seconds(), 1),
                round(p.comfort, 2),
                round(p.patience, 2),
                round(p.fatigue, 2),
                round(p.stress, 2),
            ]
            for p in points
        ]
        for emp, points in hist.stamina.items()
    }


def _affinity(trajectories: dict[str, Any], start: datetime) -> dict[str, dict[str, list[list[float]]]]:
    """Per employee and colleague: [t, affinity] from 50 (where every impression starts) on."""
    out: dict[str, dict[str, list[list[float]]]] = {}
    for emp, others in trajectories.items():
        for other, changes in others.items():
            points = [[0.0, float(changes[0]["before"])]] if changes else []
            points += [[_offset(c["at"], start) or 0.0, round(float(c["after"]), 2)] for c in changes]
            out.setdefault(emp, {})[other] = points
    return out


def gather(run: RunLog) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The page's data: (the timeline, people, charts and metrics; the full thought records)."""
    start, end = run.start, run.end
    hist = history(run)
    collab = evaluate(run, hist)
    link = _link(run.messages, run.thoughts)
    messages = [
        {
            "id": str(m.get("id")),
            "t": _offset(m.get("at"), start),
            "conv": str(m.get("conversation", "")),
            "sender": str(m.get("sender", "")),
            "text": str(m.get("text", "")),
            "mentions": [str(x) for x in m.get("mentions") or ()],
            "kind": m.get("kind"),
            "thought": link.get(str(m.get("id"))),
        }
        for m in run.messages
    ]
    thoughts = [_thought_row(rec, i, start) for i, rec in enumerate(run.thoughts)]
    summary = run.summary or {}
    data = {
        "meta": {
            "path": str(run.path),
            "company": run.company,
            "scenario": (run.office.get("scenario") or {}).get("name"),
            "start": start.isoformat(),
            "end": end.isoformat(),
            "duration": round((end - start).total_seconds(), 3),
            "format": run.format,
            "applied": hist.available,
            "complete": run.complete,
            "stop_reason": summary.get("stop_reason") or run.office.get("stop_reason"),
            "fork": fork.describe() if (fork := read_fork(run.path)) is not None else None,
        },
        "people": _people(run),
        "rooms": _rooms(run),
        "teams": run.teams,
        "messages": messages,
        "thoughts": thoughts,
        "summary": run.summary,
        "summary_rows": summary_rows(run.summary),
        "metrics": metric_rows(collab),
        "silences": collab["silences"],
        "silence_rows": silence_rows(collab["silences"]),
        "boss": {
            "lines": len(collab["boss"]["lines"]),
            "replied": collab["boss"]["replied"],
            "replied_rate": collab["boss"]["replied_rate"],
            "addressed": collab["boss"]["addressed"],
            "answered": collab["boss"]["answered"],
            "answered_rate": collab["boss"]["answered_rate"],
        },
        "talk": collab["talk"]["edges"],
        "stamina": _stamina(hist, start),
        "affinity": _affinity(collab["affinity"], start),
        "documents": documents(list(run.thoughts), start),
        "work_lines": work_rows(list(run.thoughts), start),
    }
    return data, list(run.thoughts)
