"""Metrics of a finished (or killed, or still running) run, read from its run directory (spec 1.5).

Everything here is read off the logs, never re-simulated: each thought's record says what it
applied (`applied`: stamina after every change, each affinity before and after, every task as
it was created and changed), so stamina curves, relationship changes and task times are what the
engine did; changes between thoughts (changes.jsonl: the boss's commands, a release, a think
begun when the state was saved) are applied in their place. A run of state format 1 (before `applied`) still reports, with end values only.
`report(run)` returns plain JSON-ready data.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ideaco.kinds import StepKind
from ideaco.mind import relationships, stamina, tasks
from ideaco.reviews import documents, requirements
from ideaco.store.runlog import RunLog, RunLogError
from ideaco.store.usage import usage_totals

NO_TEXT = "no_text"  # shouldSpeak with nothing to post: not spoken, yet no gate held it
RunError = RunLogError  # a directory that cannot be reported on: one line naming it
RunData = RunLog


def load_run(path: Any) -> RunLog:
    """Read a run directory; RunError (one line) for anything that is not a readable run."""
    return RunLog.open(path)


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value)


# --------------------------------------------------------------------------- what the thoughts applied


@dataclass
class StaminaPoint:
    at: datetime
    patience: float
    fatigue: float
    stress: float
    event: str  # start, recover (natural recovery when a think begins), think, task (another's tool), hired

    @property
    def comfort(self) -> float:
        return stamina.comfort(stamina.Stamina(self.patience, self.fatigue, self.stress))

    @classmethod
    def of(cls, at: datetime, st: dict[str, Any], event: str) -> StaminaPoint:
        return cls(at, float(st["patience"]), float(st["fatigue"]), float(st["stress"]), event)

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
class History:
    """Stamina over time, relationship changes and every task, per employee, from `applied`."""

    available: bool = True  # False: a format-1 run, whose thoughts logged no applied changes
    stamina: dict[str, list[StaminaPoint]] = field(default_factory=dict)
    # employee -> colleague -> {"updates", "swings", "net_change", "relation"}
    relations: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    tasks: dict[str, dict[str, Any]] = field(default_factory=dict)  # task id -> its row

    def point(self, employee: str, point: StaminaPoint) -> None:
        self.stamina.setdefault(employee, []).append(point)


def history(run: RunLog) -> History:
    """What every thought applied, in the order it landed."""
    out = History(available=run.has_applied)
    start = run.start
    for emp in run.employees:
        out.point(emp.id, StaminaPoint(start, 100.0, 0.0, 0.0, "start"))
    if not out.available:
        return _from_state(run, out)
    for landed in run.landed():  # the order they were applied: thoughts, and changes between them
        rec, at = landed.record, landed.at
        began = (rec["applied"].get("began") if landed.thought else rec.get("began")) or {}
        if began.get("stamina"):
            out.point(rec["employee"], StaminaPoint.of(_dt(rec["at"]), began["stamina"], "recover"))
        steps = (rec["applied"] if landed.thought else rec).get("steps") or ()
        _steps(out, steps, at, rec.get("employee") if landed.thought else None)
    return out


def _steps(out: History, steps: Iterable[dict[str, Any]], at: datetime, thinker: str | None) -> None:
    """What one thought's steps (or one change between thoughts, `thinker` None) did to the minds."""
    for step in steps:
        if step.get("step") == StepKind.EMPLOYEE and step.get("joined"):
            joined = step["joined"]
            out.point(joined["id"], StaminaPoint.of(at, joined["mind"]["stamina"], "hired"))
        if step.get("step") != StepKind.MIND:
            continue
        who = step["employee"]
        if "stamina" in step:
            event = "think" if who == thinker else "task"
            out.point(who, StaminaPoint.of(at, step["stamina"]["after"], event))
        for change in step.get("relationships") or ():
            _relation(out, who, change)
        _task_changes(out, who, step.get("tasks") or {})


def _relation(out: History, who: str, change: dict[str, Any]) -> None:
    row = out.relations.setdefault(who, {}).setdefault(
        change["employee"], {"updates": 0, "swings": 0, "net_change": 0.0, "relation": None}
    )
    if change.get("removed"):
        row["relation"] = None
        return
    delta = change["after"] - change["before"]
    row["updates"] += 1
    row["net_change"] += delta
    row["swings"] += abs(delta) > relationships.SWING_ABOVE
    row["relation"] = {k: change[k] for k in ("name", "impression", "affinity", "updated_at") if k in change}


def _task_changes(out: History, owner: str, changes: dict[str, Any]) -> None:
    for task in changes.get("added") or ():
        out.tasks[task["id"]] = dict(task)
    for patch in changes.get("updated") or ():
        out.tasks.setdefault(patch["id"], {"id": patch["id"], "owner": owner}).update(patch)


def _from_state(run: RunLog, out: History) -> History:
    """A format-1 run: the end values state.json holds (no curve, no changes)."""
    end = run.end
    for emp in run.employees:
        if emp.mind.get("stamina"):
            out.point(emp.id, StaminaPoint.of(end, emp.mind["stamina"], "state"))
        for other, rel in (emp.mind.get("relationships") or {}).items():
            out.relations.setdefault(emp.id, {})[other] = {
                "updates": 0,
                "swings": 0,
                "net_change": 0.0,
                "relation": rel,
            }
        for task in emp.mind.get("tasks") or ():
            out.tasks[task["id"]] = dict(task)
    return out


# --------------------------------------------------------------------------- metrics


def _outcome(rec: dict[str, Any]) -> str | None:
    """None when the thought spoke, else the gate that kept it silent."""
    if rec.get("spoke"):
        return None
    return rec.get("gate") or NO_TEXT


def _activity(thoughts: Iterable[dict[str, Any]], messages: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Counts shared by the per-employee, per-hour and total views."""
    thoughts, messages = list(thoughts), list(messages)
    usage = usage_totals(thoughts)
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
        "tokens": usage["tokens"],
    }


def _group(records: Iterable[dict[str, Any]], key: str) -> dict[Any, list[dict[str, Any]]]:
    out: dict[Any, list[dict[str, Any]]] = {}
    for r in records:
        out.setdefault(r.get(key), []).append(r)
    return out


def _durations(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"count": 0, "mean_s": None, "median_s": None}
    return {
        "count": len(values),
        "mean_s": round(statistics.fmean(values), 3),
        "median_s": round(statistics.median(values), 3),
    }


def task_rows(hist: History) -> list[dict[str, Any]]:
    """Every task of the run, oldest first, with its time to resolve (simulated seconds)."""
    rows = []
    for t in hist.tasks.values():
        done, created = t.get("resolved_at"), t.get("created_at")
        seconds = (_dt(done) - _dt(created)).total_seconds() if done and created else None
        rows.append(
            {
                "id": t["id"],
                "owner": t.get("owner"),
                "description": t.get("description", ""),
                "status": t.get("status", tasks.PENDING),
                "origin": t.get("origin"),
                "created_at": created,
                "resolved_at": done,
                "seconds_to_close": round(seconds, 3) if seconds is not None else None,
            }
        )
    return sorted(rows, key=lambda r: (r["created_at"] or "", r["id"]))


def _tasks(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_status = Counter({s: 0 for s in tasks.STATUSES})
    by_status.update(r["status"] for r in rows)
    resolved = [
        r["seconds_to_close"]
        for r in rows
        if r["status"] == tasks.RESOLVED and r["seconds_to_close"] is not None
    ]
    return {"by_status": dict(by_status), "time_to_resolve": _durations(resolved)}


def relationship_table(hist: History, employee: str, end: datetime) -> dict[str, Any]:
    """Per colleague: updates, swings, net change, and the affinity at the end (drifted), from `applied`."""
    out = {}
    for who, row in sorted(hist.relations.get(employee, {}).items()):
        rel = row["relation"]
        if rel is None:
            continue
        relation = relationships.Relation.from_dict(rel)
        out[who] = {
            "name": relation.name,
            "updates": int(row["updates"]),
            "swings": int(row["swings"]),
            "net_change": round(row["net_change"], 2),
            "affinity": round(relationships.current_affinity(relation, end), 2),
            "impression": relation.impression,
        }
    return out


def _stamina_now(points: list[StaminaPoint]) -> dict[str, Any]:
    last = points[-1]
    st = stamina.Stamina(last.patience, last.fatigue, last.stress)
    return {
        "patience": round(st.patience, 3),
        "fatigue": round(st.fatigue, 3),
        "stress": round(st.stress, 3),
        "comfort": round(stamina.comfort(st), 3),
        "zone": stamina.zone(st),
    }


def _run_info(run: RunLog, start: datetime, end: datetime) -> dict[str, Any]:
    summary, office = run.summary or {}, run.office
    reason = summary.get("stop_reason") or office.get("stop_reason")
    if reason is None and run.summary is not None:
        reason = "reached the end of the simulated time"
    return {
        "path": str(run.path),
        "company": run.company or None,
        "scenario": (office.get("scenario") or {}).get("name"),
        "format": run.format,
        "simulated_start": start.isoformat(),
        "simulated_end": end.isoformat(),
        "simulated_seconds": (end - start).total_seconds(),
        "wall_time_s": summary.get("wall_time_s", office.get("wall_time_s")),
        "stop_reason": reason,
        "complete": run.complete,  # no summary.json: killed, or still running
    }


def report(run: RunLog, hist: History | None = None) -> dict[str, Any]:
    """The run's metrics: run info, totals, per employee, per simulated hour, tasks, stamina history."""
    hist = hist or history(run)
    start, end = run.start, run.end
    tasks_all = task_rows(hist)

    def hour(rec: dict[str, Any]) -> int:
        return max(0, int((_dt(rec["at"]) - start).total_seconds() // 3600))

    # One pass over the records (linear in them, not in the run's length): each employee's, and
    # each hour's that holds any (an hour nothing happened in is left out).
    thoughts_of, messages_of = _group(run.thoughts, "employee"), _group(run.messages, "sender")
    tasks_of = _group(tasks_all, "owner")
    employees = {}
    for emp in run.employees:
        mine = thoughts_of.get(emp.id, [])
        employees[emp.id] = {
            "name": emp.name,
            "role": emp.role,
            **_activity(mine, messages_of.get(emp.id, [])),
            "triggers": dict(Counter(r.get("trigger") for r in mine)),
            "tasks": _tasks(tasks_of.get(emp.id, [])),
            "stamina": _stamina_now(
                hist.stamina.get(emp.id) or [StaminaPoint(start, 100.0, 0.0, 0.0, "start")]
            ),
            "relationships": relationship_table(hist, emp.id, end),
        }
    by_hour: dict[int, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {}
    for r in run.thoughts:
        by_hour.setdefault(hour(r), ([], []))[0].append(r)
    for m in run.messages:
        by_hour.setdefault(hour(m), ([], []))[1].append(m)
    hours = []
    for h, (th, ms) in sorted(by_hour.items()):
        th_of, ms_of = _group(th, "employee"), _group(ms, "sender")
        by_employee = {
            e: _activity(th_of.get(e, []), ms_of.get(e, [])) for e in employees if e in th_of or e in ms_of
        }
        hours.append(
            {
                "hour": h,
                "start": (start + timedelta(hours=h)).isoformat(),
                **_activity(th, ms),
                "by_employee": by_employee,
            }
        )
    totals = _activity(run.thoughts, run.messages)
    totals["messages_by_sender"] = dict(Counter(m["sender"] for m in run.messages))
    totals["tasks"] = _tasks(tasks_all)
    source = (
        "what each thought applied (thoughts.jsonl)"
        if hist.available
        else "state.json (a format-1 run logs no applied changes)"
    )
    out = {
        "run": _run_info(run, start, end),
        "totals": totals,
        "employees": employees,
        "hours": hours,
        "tasks": tasks_all,
        "stamina_history": {
            "source": source,
            "by_employee": {e: [p.to_dict(start) for p in pts] for e, pts in hist.stamina.items()},
        },
    }
    work = documents(run.thoughts) | {"requirements": requirements(run.thoughts, run.changes)}
    return out | ({"documents": work} if work["documents"] else {})  # a run that wrote none: as before
