"""Metrics of a finished (or killed) run, computed from its run directory (spec 1.5).

Pure apart from `load_run`: `report(run)` returns plain JSON-ready data. Stamina and affinity
are stored only as current values, so their history is reconstructed by replaying
thoughts.jsonl through the same pure rules the engine uses (`ideaco.mind.stamina`,
`ideaco.mind.relationships`, `ideaco.mind.tasks`); task times come from state.json.
"""

from __future__ import annotations

import dataclasses
import math
import re
import statistics
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ideaco.mind import relationships, stamina, tasks
from ideaco.mind.thought import RelationshipOp
from ideaco.office.conversation import Message
from ideaco.office.rules import check_duplicate
from ideaco.store import jsonl
from ideaco.store.rundir import RunDir
from ideaco.store.state import StateStore

DEFAULT_THINK_SECONDS = 5.0  # OfficeConfig.think_seconds: a thought's effects land this long after `at`
NO_TEXT = "no_text"  # shouldSpeak with nothing to post: not spoken, yet no gate held it
GROUP_KINDS = ("work", "casual")  # rooms where only the first message of a thought is posted
_HELD_ACTION = re.compile(r"^actions\[(\d+)\]: send_message to (\S+) held by loop_breaker$")


class RunError(ValueError):
    """A directory that cannot be reported on; `str()` is one line naming it."""


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value)


@dataclass
class RunData:
    """Everything a report reads from one run directory."""

    path: Path
    state: dict[str, Any]
    messages: list[dict[str, Any]]
    thoughts: list[dict[str, Any]]
    summary: dict[str, Any] | None = None

    @property
    def office(self) -> dict[str, Any]:
        return self.state.get("office") or {}

    @property
    def employees(self) -> list[dict[str, Any]]:
        # Format 2 keeps what a thought changes under "mind"; format 1 kept it at the top.
        return [{**e, **(e.get("mind") or {})} for e in self.state.get("employees") or []]

    @property
    def names(self) -> dict[str, str]:
        return {e["id"]: e.get("name") or e["id"] for e in self.employees}

    @property
    def start(self) -> datetime:
        if self.office.get("start"):
            return _dt(self.office["start"])
        ats = [_dt(r["at"]) for r in (*self.thoughts, *self.messages)]
        return min(ats, default=_dt(self.office.get("now") or "2000-01-01T00:00:00"))

    @property
    def end(self) -> datetime:
        """The last simulated moment known: the clock at the last checkpoint, the summary, or a log."""
        ats = [_dt(r["at"]) for r in (*self.thoughts, *self.messages)]
        if self.office.get("now"):
            ats.append(_dt(self.office["now"]))
        if self.summary and self.summary.get("simulated_end"):
            ats.append(_dt(self.summary["simulated_end"]))
        return max(ats, default=self.start)


def load_run(path: str | Path) -> RunData:
    """Read a run directory; RunError (one line) for anything that is not a readable run."""
    try:
        rundir = RunDir.open_existing(path)
        with StateStore(rundir.state_path) as store:
            state = store.load()
        if state is None:
            raise RunError(f"{rundir.path}: state.json holds no saved state yet")
        logs = [jsonl.read(p) if p.exists() else [] for p in (rundir.messages_path, rundir.thoughts_path)]
        summary = rundir.read_summary()
    except RunError:
        raise
    except ValueError as exc:  # RunDirError, StateError, JsonlError, bad JSON: all one line already
        raise RunError(str(exc).splitlines()[0]) from None
    except OSError as exc:
        raise RunError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    return RunData(Path(path), state, logs[0], logs[1], summary)


# --------------------------------------------------------------------------- replay


@dataclass
class StaminaPoint:
    at: datetime
    patience: float
    fatigue: float
    stress: float
    event: str  # start, recover, think, task (a task event outside any thought)

    @property
    def comfort(self) -> float:
        return stamina.comfort(stamina.Stamina(self.patience, self.fatigue, self.stress))

    def to_dict(self, start: datetime) -> dict[str, Any]:
        st = stamina.Stamina(self.patience, self.fatigue, self.stress)
        return {
            "at": self.at.isoformat(),
            "offset_s": round((self.at - start).total_seconds(), 3),
            "patience": round(self.patience, 3),
            "fatigue": round(self.fatigue, 3),
            "stress": round(self.stress, 3),
            "comfort": round(stamina.comfort(st), 3),
            "zone": stamina.zone(st),
            "event": self.event,
        }


@dataclass
class Replay:
    """Stamina over time and relationship changes per employee, rebuilt from thoughts.jsonl."""

    stamina: dict[str, list[StaminaPoint]] = field(default_factory=dict)
    # employee -> colleague -> {"updates", "swings", "net_change"}
    relations: dict[str, dict[str, dict[str, float]]] = field(default_factory=dict)


def think_seconds(run: RunData) -> float:
    """How long a think takes in simulated time: read off spoken thoughts (message at - thought at)."""
    posted = {m["id"]: _dt(m["at"]) for m in run.messages}
    gaps = [
        (posted[mid] - _dt(r["at"])).total_seconds()
        for r in run.thoughts
        for mid in r.get("messages") or []
        if mid in posted
    ]
    return statistics.median(gaps) if gaps else DEFAULT_THINK_SECONDS


def _task_events(employee: dict[str, Any]) -> list[tuple[datetime, str, tasks.Task]]:
    """(time, kind, replay task) for every task the employee created, resolved or failed."""
    events = []
    for raw in employee.get("tasks") or []:
        task = tasks.Task.from_dict(
            {**raw, "status": "pending", "resolved_at": None, "stalled": False, "quiet_thoughts": 0}
        )
        events.append((task.created_at, "create", task))
        if raw.get("status") in ("resolved", "failed") and raw.get("resolved_at"):
            events.append((_dt(raw["resolved_at"]), raw["status"], task))
    order = {"create": 0, "failed": 1, "resolved": 2}  # the engine's order within one thought
    return sorted(events, key=lambda e: (e[0], order[e[1]]))


def _repeated(
    rec: dict[str, Any],
    thought: dict[str, Any],
    kinds: dict[str, str],
    history: dict[str, list[Message]],
    at: datetime,
) -> int:
    """How many of this thought's posts were refused as the employee's own duplicates (a stamina event)."""
    emp, count = rec["employee"], 0
    if rec.get("gate") == "loop_breaker":
        texts = [m.get("content", "") for m in thought.get("messages") or []]
        if kinds.get(rec["conversation"]) in GROUP_KINDS:
            texts = texts[:1]
        own = [
            m for m in rec.get("messages") or [] if not m.rsplit("-", 1)[-1].startswith("a")
        ]  # not actions
        if len(own) < len(texts):
            earlier = [m for m in history.get(rec["conversation"], []) if m.at <= at]
            count += not check_duplicate(earlier, emp, texts[len(own)], at).allowed
    actions = thought.get("actions") or []
    for note in rec.get("corrections") or []:
        held = _HELD_ACTION.match(note)
        if held and int(held.group(1)) < len(actions):
            text = str((actions[int(held.group(1))].get("args") or {}).get("content") or "").strip()
            earlier = [m for m in history.get(held.group(2), []) if m.at <= at]
            count += not check_duplicate(earlier, emp, text, at).allowed
    return count


class _Mind:
    """One employee's replayed stamina, affinity table and live tasks."""

    def __init__(self, emp: dict[str, Any], start: datetime) -> None:
        self.id = emp["id"]
        self.st = stamina.Stamina()
        self.points = [StaminaPoint(start, 100.0, 0.0, 0.0, "start")]
        self.table: dict[str, relationships.Relation] = {}
        self.changes: dict[str, dict[str, float]] = {}
        self.events = _task_events(emp)
        self.live: list[tasks.Task] = []

    def mark(self, at: datetime, event: str) -> None:
        self.points.append(StaminaPoint(at, self.st.patience, self.st.fatigue, self.st.stress, event))

    def apply(self, event: str, times: int = 1) -> None:
        for _ in range(times):
            self.st = stamina.apply(self.st, event)

    def task_event(self, when: datetime, kind: str, task: tasks.Task) -> None:
        if kind == "create":
            self.live.append(task)
            self.apply("task_assigned")
        else:
            for i, live in enumerate(self.live):
                if live.id == task.id:
                    self.live[i] = dataclasses.replace(live, status=kind, resolved_at=when)
            self.apply("task_complete" if kind == "resolved" else "task_fail")

    def relationship_ops(self, ops: list[dict[str, Any]], now: datetime, people: dict[str, str]) -> None:
        before = dict(self.table)
        parsed = [RelationshipOp.model_validate(op) for op in ops]
        _, swings = relationships.apply_ops(self.table, parsed, now, self_id=self.id, people=people)
        for who, rel in self.table.items():
            if before.get(who) is not rel:
                row = self.changes.setdefault(who, {"updates": 0, "swings": 0, "net_change": 0.0})
                row["updates"] += 1
                row["net_change"] += rel.affinity - relationships.affinity_of(before, who, now)
        for who, delta in swings:
            self.changes[who]["swings"] += 1
            event = stamina.affinity_event(round(delta))
            if event:
                self.apply(event)


def replay(run: RunData) -> Replay:
    """Rebuild each employee's stamina and affinity changes, thought by thought, as the engine applied them.

    Per thought (effects.apply_effects): natural recovery at its start; then, if the thought was
    applied (not superseded, not an error), one llm_call per model call, affinity swings, the task
    events state.json dates within it, stalls, activity at its finish, and own duplicates refused.
    """
    out = Replay()
    tick = timedelta(seconds=think_seconds(run))
    posted = {m["id"]: _dt(m["at"]) for m in run.messages}
    kinds = {c["id"]: c.get("kind", "") for c in run.state.get("conversations") or []}
    history: dict[str, list[Message]] = defaultdict(list)
    for m in run.messages:
        history[m["conversation"]].append(Message.from_record(m))
    by_employee: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for rec in run.thoughts:  # file order is the order thoughts were applied
        by_employee[rec["employee"]].append(rec)

    for emp in run.employees:
        mind, recs = _Mind(emp, run.start), by_employee.get(emp["id"], [])
        for i, rec in enumerate(recs):
            at = _dt(rec["at"])
            upto = _dt(recs[i + 1]["at"]) if i + 1 < len(recs) else datetime.max
            while mind.events and mind.events[0][0] < at:  # made outside any thought (e.g. the boss's chat)
                mind.task_event(*mind.events[0])
                mind.mark(mind.events.pop(0)[0], "task")
            mind.st = stamina.recover(mind.st, at)
            mind.mark(at, "recover")
            thought = rec.get("thought")
            if thought is None or rec.get("gate") == "superseded":
                continue
            mine = []
            while mind.events and mind.events[0][0] < upto:
                mine.append(mind.events.pop(0))
            own_posts = [posted[m] for m in rec.get("messages") or [] if m in posted]
            finish = mine[0][0] if mine else own_posts[0] if own_posts else at + tick
            mind.apply("llm_call", (rec.get("llm") or {}).get("calls", 1 if rec.get("llm") else 0))
            mind.relationship_ops(thought.get("relationshipOps") or [], finish, run.names)
            for event in mine:
                mind.task_event(*event)
            mind.apply("repetition", len(tasks.note_thought(mind.live, {task.id for _, _, task in mine})))
            mind.st = stamina.mark_active(mind.st, finish)
            mind.apply("repetition", _repeated(rec, thought, kinds, history, finish))
            mind.mark(finish, "think")
        for event in mind.events:
            mind.task_event(*event)
            mind.mark(event[0], "task")
        out.stamina[mind.id] = mind.points
        out.relations[mind.id] = mind.changes
    return out


# --------------------------------------------------------------------------- metrics


def _outcome(rec: dict[str, Any]) -> str | None:
    """None when the thought spoke, else the gate that kept it silent."""
    if rec.get("spoke"):
        return None
    return rec.get("gate") or NO_TEXT


def _llm(rec: dict[str, Any]) -> dict[str, float]:
    usage = rec.get("llm") or {}
    if not usage:
        return {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0, "latency_ms": 0.0}
    return {
        "calls": usage.get("calls", 1),
        "prompt_tokens": usage.get("prompt_tokens", 0),
        "completion_tokens": usage.get("completion_tokens", 0),
        "cached_tokens": usage.get("cached_tokens", 0),
        "latency_ms": usage.get("latency_ms", 0.0),
    }


def _activity(thoughts: Iterable[dict[str, Any]], messages: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Counts shared by the per-employee, per-hour and total views."""
    thoughts, messages = list(thoughts), list(messages)
    usage: Counter[str] = Counter()
    for rec in thoughts:
        usage.update(_llm(rec))
    silences = Counter(o for o in map(_outcome, thoughts) if o is not None)
    spoke = sum(1 for r in thoughts if r.get("spoke"))
    return {
        "messages": len(messages),
        "thoughts": len(thoughts),
        "spoke": spoke,
        "silent": len(thoughts) - spoke,
        "speak_rate": round(spoke / len(thoughts), 4) if thoughts else 0.0,
        "silences_by_gate": dict(sorted(silences.items())),
        "calls": usage["calls"],
        "prompt_tokens": usage["prompt_tokens"],
        "completion_tokens": usage["completion_tokens"],
        "cached_tokens": usage["cached_tokens"],
        "tokens": usage["prompt_tokens"] + usage["completion_tokens"],
    }


def _durations(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"count": 0, "mean_s": None, "median_s": None}
    return {
        "count": len(values),
        "mean_s": round(statistics.fmean(values), 3),
        "median_s": round(statistics.median(values), 3),
    }


def task_rows(run: RunData) -> list[dict[str, Any]]:
    """Every task of the run, oldest first, with its time to resolve (simulated seconds)."""
    rows = []
    for emp in run.employees:
        for t in emp.get("tasks") or []:
            done = t.get("resolved_at")
            seconds = (_dt(done) - _dt(t["created_at"])).total_seconds() if done else None
            rows.append(
                {
                    "id": t["id"],
                    "owner": emp["id"],
                    "description": t.get("description", ""),
                    "status": t.get("status", "pending"),
                    "origin": t.get("origin"),
                    "created_at": t["created_at"],
                    "resolved_at": done,
                    "seconds_to_close": round(seconds, 3) if seconds is not None else None,
                }
            )
    return sorted(rows, key=lambda r: r["created_at"])


def _tasks(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_status = Counter({s: 0 for s in tasks.STATUSES})
    by_status.update(r["status"] for r in rows)
    resolved = [
        r["seconds_to_close"] for r in rows if r["status"] == "resolved" and r["seconds_to_close"] is not None
    ]
    return {"by_status": dict(by_status), "time_to_resolve": _durations(resolved)}


def _relations(emp: dict[str, Any], changes: dict[str, dict[str, float]], end: datetime) -> dict[str, Any]:
    """Per colleague: replayed updates and swings, net change, and the affinity held at the end."""
    table = relationships.table_from_dict(emp.get("relationships") or {})
    out = {}
    for who in sorted(set(table) | set(changes)):
        row = changes.get(who, {"updates": 0, "swings": 0, "net_change": 0.0})
        now = relationships.affinity_of(table, who, end)
        out[who] = {
            "name": table[who].name if who in table else who,
            "updates": int(row["updates"]),
            "swings": int(row["swings"]),
            "net_change": round(row["net_change"], 2),
            "affinity": round(now, 2),
            "impression": table[who].impression if who in table else "",
        }
    return out


def _stamina_now(emp: dict[str, Any]) -> dict[str, Any]:
    st = stamina.Stamina.from_dict(emp.get("stamina") or {})
    return {
        "patience": round(st.patience, 3),
        "fatigue": round(st.fatigue, 3),
        "stress": round(st.stress, 3),
        "comfort": round(stamina.comfort(st), 3),
        "zone": stamina.zone(st),
    }


def _company(office: dict[str, Any]) -> str | None:
    """The company's name: a string in state.json, or the name of an organization record."""
    for value in (office.get("company"), (office.get("scenario") or {}).get("company")):
        if isinstance(value, dict):
            value = value.get("name")
        if isinstance(value, str) and value:
            return value
    return None


def _run_info(run: RunData, start: datetime, end: datetime) -> dict[str, Any]:
    summary, office = run.summary or {}, run.office
    reason = summary.get("stop_reason") or office.get("stop_reason")
    if reason is None and run.summary is not None:
        reason = "reached the end of the simulated time"
    return {
        "path": str(run.path),
        "company": _company(office),
        "scenario": (office.get("scenario") or {}).get("name"),
        "simulated_start": start.isoformat(),
        "simulated_end": end.isoformat(),
        "simulated_seconds": (end - start).total_seconds(),
        "wall_time_s": summary.get("wall_time_s", office.get("wall_time_s")),
        "stop_reason": reason,
        "complete": run.summary is not None,  # no summary.json: killed, or still running
    }


def report(run: RunData, rebuilt: Replay | None = None) -> dict[str, Any]:
    """The run's metrics: run info, totals, per employee, per simulated hour, tasks, stamina history."""
    rebuilt = rebuilt or replay(run)
    start, end = run.start, run.end
    tasks_all = task_rows(run)
    hours_n = max(1, math.ceil((end - start).total_seconds() / 3600))

    def hour(rec: dict[str, Any]) -> int:
        return max(0, int((_dt(rec["at"]) - start).total_seconds() // 3600))

    hours_n = max([hours_n, *(hour(r) + 1 for r in (*run.thoughts, *run.messages))])
    employees = {}
    for emp in run.employees:
        eid = emp["id"]
        mine = [r for r in run.thoughts if r["employee"] == eid]
        row = _activity(mine, (m for m in run.messages if m["sender"] == eid))
        employees[eid] = {
            "name": emp.get("name") or eid,
            "role": emp.get("role", ""),
            **row,
            "triggers": dict(Counter(r.get("trigger") for r in mine)),
            "tasks": _tasks([t for t in tasks_all if t["owner"] == eid]),
            "stamina": _stamina_now(emp),
            "relationships": _relations(emp, rebuilt.relations.get(eid, {}), end),
        }
    hours = []
    for h in range(hours_n):
        th = [r for r in run.thoughts if hour(r) == h]
        ms = [m for m in run.messages if hour(m) == h]
        hours.append(
            {
                "hour": h,
                "start": (start + timedelta(hours=h)).isoformat(),
                **_activity(th, ms),
                "by_employee": {
                    e: _activity((r for r in th if r["employee"] == e), (m for m in ms if m["sender"] == e))
                    for e in employees
                },
            }
        )
    totals = _activity(run.thoughts, run.messages)
    totals["messages_by_sender"] = dict(Counter(m["sender"] for m in run.messages))
    totals["tasks"] = _tasks(tasks_all)
    return {
        "run": _run_info(run, start, end),
        "totals": totals,
        "employees": employees,
        "hours": hours,
        "tasks": tasks_all,
        "stamina_history": {
            "source": "reconstructed from thoughts.jsonl",
            "by_employee": {e: [p.to_dict(start) for p in pts] for e, pts in rebuilt.stamina.items()},
        },
    }
