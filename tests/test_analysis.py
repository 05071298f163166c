"""`ideaco.analysis` on a small hand-made run directory of state format 1 (before `applied`): its metrics,
and end values where a format-2 run would have curves (tests/test_analysis_applied.py has those)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from ideaco.analysis import RunError, history, load_run, report
from ideaco.store.jsonl import JsonlLog
from ideaco.store.state import StateStore

START = datetime(2026, 1, 5, 9, 0, 0)


def at(hms: str) -> str:
    """ISO simulated time of an HH:MM:SS moment on the run's day."""
    h, m, s = (int(x) for x in hms.split(":"))
    return (START + timedelta(hours=h - 9, minutes=m, seconds=s)).isoformat()


def usage(prompt: int, completion: int, cached: int = 0, calls: int = 1) -> dict[str, Any]:
    return {
        "model": "m",
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "cached_tokens": cached,
        "latency_ms": 10.0,
        "calls": calls,
    }


def flow(speak: bool = False, text: str | None = None, rel=(), ops=()) -> dict[str, Any]:
    return {
        "innerThoughts": "hm",
        "topicSaturation": 3,
        "interestLevel": 6,
        "shouldSpeak": speak,
        "reason": "",
        "messages": [{"content": text}] if text else [],
        "actions": [],
        "memorySummary": None,
        "memoryOps": [],
        "relationshipOps": [
            {"employeeId": w, "name": w.title(), "impression": "ok", "affinity": a} for w, a in rel
        ],
        "taskOps": list(ops),
    }


def thought(
    tid, who, when, *, trigger="nudge", conv="api", gate=None, spoke=False, llm=None, body=None, posted=()
):
    return {
        "id": tid,
        "at": at(when),
        "employee": who,
        "conversation": conv,
        "trigger": trigger,
        "thought": body,
        "spoke": spoke,
        "gate": gate,
        "llm": llm,
        "corrections": [],
        "next_look_at": None,
        "messages": list(posted),
        "rethink": False,
    }


def message(mid, who, when, text, conv="api") -> dict[str, Any]:
    return {
        "id": mid,
        "at": at(when),
        "conversation": conv,
        "sender": who,
        "text": text,
        "mentions": [],
        "kind": "chat",
    }


# Think time is 5 s: a thought at T posts and changes tasks at T+5.
THOUGHTS = [
    thought(
        "t1",
        "alice",
        "09:01:00",
        trigger="boss",
        spoke=True,
        llm=usage(100, 20, 10),
        posted=["t1-1"],
        body=flow(
            True,
            "REST, I think",
            rel=[("bob", 55)],
            ops=[{"op": "create", "description": "Compare REST and GraphQL"}],
        ),
    ),
    thought("t2", "bob", "09:02:00", gate="chose_silence", llm=usage(80, 10), body=flow(rel=[("alice", 70)])),
    thought(
        "t3",
        "bob",
        "09:30:00",
        trigger="timer",
        gate="saturation",
        llm=usage(90, 30, calls=2),
        body=flow(True, "again"),
    ),
    thought("t4", "alice", "10:10:00", gate="superseded", llm=usage(50, 5), body=flow(True, "draft")),
    thought(
        "t5",
        "alice",
        "10:10:05",
        spoke=True,
        llm=usage(60, 6),
        posted=["t5-1"],
        body=flow(True, "Done: REST", ops=[{"op": "resolve", "taskId": "task-1", "result": "REST"}]),
    ),
    thought("t6", "bob", "10:20:00", gate="error"),
    thought(
        "t7",
        "bob",
        "10:30:00",
        llm=usage(10, 1),
        body=flow(True, None, rel=[("alice", 40)], ops=[{"op": "create", "description": "Write the doc"}]),
    ),
    thought(
        "t8",
        "bob",
        "10:40:00",
        gate="chose_silence",
        llm=usage(10, 1),
        body=flow(ops=[{"op": "fail", "taskId": "task-2", "reason": "no time"}]),
    ),
]
MESSAGES = [
    message("script-1", "boss", "09:00:30", "Which API style?", conv="boss:alice"),
    message("t1-1", "alice", "09:01:05", "REST, I think"),
    message("script-2", "boss", "10:05:00", "Status?"),
    message("t5-1", "alice", "10:10:10", "Done: REST"),
]
# Bob's stamina worked out by hand from spec 2.6 (see test_stamina_is_replayed_from_the_thoughts).
BOB_FINAL = {"patience": 90.0, "fatigue": 5 - 5 * 595 / 3600 + 2 + 10, "stress": 10 - 5 * 595 / 3600 + 25}


def task(tid, owner, created, description, status="pending", resolved=None) -> dict[str, Any]:
    return {
        "id": tid,
        "owner": owner,
        "description": description,
        "created_at": at(created),
        "origin": "boss",
        "type": "oneshot",
        "condition": None,
        "status": status,
        "result": None,
        "on_resolve_target": None,
        "on_resolve_hint": None,
        "claim_key": None,
        "resolved_at": at(resolved) if resolved else None,
        "stalled": False,
        "quiet_thoughts": 0,
    }


def employee(eid, name, tasks, relations, st) -> dict[str, Any]:
    return {
        "id": eid,
        "name": name,
        "role": "Engineer",
        "tasks": tasks,
        "relationships": {
            who: {"name": n, "impression": "ok", "affinity": a, "updated_at": at(when)}
            for who, (n, a, when) in relations.items()
        },
        "stamina": {**st, "last_active_at": None},
    }


def make_run(path: Path, *, names=("Alice", "Bob"), summary: bool = True, now: str = at("11:00:00")) -> Path:
    """The hand-made run: two employees, eight thoughts over two simulated hours."""
    path.mkdir(parents=True, exist_ok=True)
    employees = [
        employee(
            "alice",
            names[0],
            [task("task-1", "alice", "09:01:05", "Compare REST and GraphQL", "resolved", "10:10:10")],
            {"bob": (names[1], 55.0, "09:01:05")},
            {"patience": 100.0, "fatigue": 0.0, "stress": 0.0},
        ),
        employee(
            "bob",
            names[1],
            [task("task-2", "bob", "10:30:05", "Write the doc", "failed", "10:40:05")],
            {"alice": (names[0], 50.0, "10:30:05")},
            BOB_FINAL,
        ),
    ]
    office = {"company": "Acme Labs", "start": START.isoformat(), "now": now, "stop_reason": None}
    conversations = [
        {"id": "api", "kind": "work", "name": "API", "members": ["alice", "bob"]},
        {"id": "boss:alice", "kind": "boss", "name": "Boss & Alice", "members": ["alice"]},
    ]
    with StateStore(path / "state.json") as store:
        store.save({"office": office, "employees": employees, "conversations": conversations})
    with JsonlLog(path / "thoughts.jsonl") as log:
        for rec in THOUGHTS:
            log.append(rec)
    with JsonlLog(path / "messages.jsonl") as log:
        for rec in MESSAGES:
            log.append(rec)
    if summary:
        doc = {"stop_reason": "budget spent: 8 calls", "wall_time_s": 3.5, "simulated_end": at("11:00:00")}
        (path / "summary.json").write_text(json.dumps(doc))
    return path


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return make_run(tmp_path / "run")


@pytest.fixture
def data(run_dir: Path) -> dict[str, Any]:
    return report(load_run(run_dir))


def test_report_is_json_serializable(data):
    assert json.loads(json.dumps(data)) == data
    assert set(data) >= {"run", "totals", "employees", "hours", "tasks", "stamina_history"}


def test_run_info(data):
    info = data["run"]
    assert info["company"] == "Acme Labs"
    assert info["simulated_start"] == "2026-01-05T09:00:00"
    assert info["simulated_end"] == "2026-01-05T11:00:00"
    assert info["simulated_seconds"] == 7200
    assert info["wall_time_s"] == 3.5
    assert info["stop_reason"] == "budget spent: 8 calls"
    assert info["complete"] is True


def test_a_run_without_summary_is_reported_as_incomplete(tmp_path):
    info = report(load_run(make_run(tmp_path / "killed", summary=False)))["run"]
    assert info["complete"] is False
    assert info["stop_reason"] is None
    assert info["simulated_end"] == "2026-01-05T11:00:00"  # the last checkpoint's clock


def test_per_employee_counts(data):
    alice, bob = data["employees"]["alice"], data["employees"]["bob"]
    assert (alice["thoughts"], alice["spoke"], alice["silent"], alice["messages"]) == (3, 2, 1, 2)
    assert alice["speak_rate"] == pytest.approx(2 / 3, abs=1e-4)
    assert alice["silences_by_gate"] == {"superseded": 1}
    # t7 wanted to speak but had nothing to post: silent, with no gate.
    assert bob["silences_by_gate"] == {"chose_silence": 2, "saturation": 1, "error": 1, "no_text": 1}
    assert (bob["thoughts"], bob["spoke"], bob["messages"], bob["speak_rate"]) == (5, 0, 0, 0.0)
    assert (alice["calls"], alice["prompt_tokens"], alice["completion_tokens"], alice["cached_tokens"]) == (
        3,
        210,
        31,
        10,
    )
    assert bob["calls"] == 5  # t3 made a repair call: two calls in one thought
    assert bob["tokens"] == 80 + 10 + 90 + 30 + 10 + 1 + 10 + 1
    assert alice["triggers"] == {"boss": 1, "nudge": 2}


def test_totals(data):
    t = data["totals"]
    assert (t["thoughts"], t["spoke"], t["messages"], t["calls"]) == (8, 2, 4, 8)
    assert t["messages_by_sender"] == {"boss": 2, "alice": 2}
    assert sum(t["silences_by_gate"].values()) == 6
    assert t["tasks"]["by_status"] == {"pending": 0, "resolved": 1, "failed": 1}


def test_per_hour_buckets(data):
    hours = data["hours"]
    assert [h["hour"] for h in hours] == [0, 1]
    assert hours[1]["start"] == "2026-01-05T10:00:00"
    first, second = hours
    assert (first["thoughts"], first["messages"], first["calls"]) == (3, 2, 4)
    assert first["silences_by_gate"] == {"chose_silence": 1, "saturation": 1}
    assert (second["thoughts"], second["messages"], second["calls"]) == (5, 2, 4)
    assert second["silences_by_gate"] == {"chose_silence": 1, "error": 1, "no_text": 1, "superseded": 1}
    assert first["by_employee"]["alice"]["messages"] == 1
    assert first["by_employee"]["bob"]["thoughts"] == 2
    assert second["by_employee"]["bob"]["silences_by_gate"] == {"chose_silence": 1, "error": 1, "no_text": 1}
    assert first["tokens"] == 100 + 20 + 80 + 10 + 90 + 30


def test_hours_with_nothing_in_them_are_left_out_and_cost_nothing(tmp_path):
    """A quiet stretch (here 40 hours of it) adds no rows: the report is linear in the records."""
    run = make_run(tmp_path / "quiet", summary=False, now=(START + timedelta(hours=42)).isoformat())
    late = {**MESSAGES[2], "id": "script-9", "at": (START + timedelta(hours=41, minutes=5)).isoformat()}
    with JsonlLog(run / "thoughts.jsonl") as log:
        log.append({**THOUGHTS[1], "id": "t9", "at": (START + timedelta(hours=41)).isoformat()})
    with JsonlLog(run / "messages.jsonl") as log:
        log.append(late)
    hours = report(load_run(run))["hours"]
    assert [h["hour"] for h in hours] == [0, 1, 41]
    assert hours[2]["start"] == "2026-01-07T02:00:00" and hours[2]["messages"] == 1
    assert set(hours[2]["by_employee"]) == {"bob"}  # only who did something that hour


def test_a_record_dated_outside_the_run_is_skipped_with_a_warning(tmp_path):
    run = make_run(tmp_path / "far")
    with JsonlLog(run / "messages.jsonl") as log:
        log.append({**MESSAGES[2], "id": "far", "at": "2400-01-01T00:00:00"})
    loaded = load_run(run)
    assert [m["id"] for m in loaded.messages] == [m["id"] for m in MESSAGES]
    assert loaded.warnings == [
        f"{run / 'messages.jsonl'}: line 5 is dated 2400-01-01T00:00:00, outside the run "
        "(2026-01-05 09:00 to 2026-01-05 11:00), skipped"
    ]
    assert report(loaded)["run"]["simulated_end"] == "2026-01-05T11:00:00"


def test_time_to_resolve(data):
    alice = data["employees"]["alice"]["tasks"]
    assert alice["by_status"] == {"pending": 0, "resolved": 1, "failed": 0}
    assert alice["time_to_resolve"] == {
        "count": 1,
        "mean_s": 4145.0,
        "median_s": 4145.0,
    }  # 09:01:05 -> 10:10:10
    # A failed task is closed, not resolved: it has no time to resolve.
    assert data["employees"]["bob"]["tasks"]["time_to_resolve"]["count"] == 0
    rows = {r["id"]: r for r in data["tasks"]}
    assert rows["task-2"]["seconds_to_close"] == 600.0
    assert rows["task-1"]["owner"] == "alice"


def test_a_format_1_run_reports_the_relationships_state_json_holds(data):
    alice = data["employees"]["alice"]["relationships"]["bob"]
    assert (alice["updates"], alice["swings"], alice["net_change"]) == (0, 0, 0.0)  # no changes logged
    assert 54.9 < alice["affinity"] < 55.0  # drifting back toward 50 since 09:01
    assert data["employees"]["bob"]["relationships"]["alice"]["affinity"] == 50.0


def test_stamina_now_comes_from_state(data):
    st = data["employees"]["bob"]["stamina"]
    assert st["patience"] == 90.0
    assert st["zone"] == "yellow"
    assert st["comfort"] == pytest.approx(
        90 - 0.4 * BOB_FINAL["fatigue"] - 0.6 * BOB_FINAL["stress"], abs=1e-3
    )


def test_a_format_1_run_has_no_stamina_curve_and_says_so(run_dir, data):
    hist = data["stamina_history"]
    assert hist["source"].startswith("state.json")
    assert [p["event"] for p in hist["by_employee"]["bob"]] == ["start", "state"]
    assert data["run"]["format"] == 1 and not history(load_run(run_dir)).available


@pytest.mark.parametrize(
    ("setup", "needle"),
    [
        (lambda p: None, "does not exist"),
        (lambda p: p.mkdir(), "not an ideaco run directory"),
        (lambda p: (p.mkdir(), (p / "state.json").write_text("{not json")), "not a valid state file"),
    ],
)
def test_load_run_refuses_what_is_not_a_run(tmp_path, setup, needle):
    target = tmp_path / "x"
    setup(target)
    with pytest.raises(RunError) as err:
        load_run(target)
    assert needle in str(err.value)
    assert "\n" not in str(err.value)


def test_a_corrupt_log_line_is_one_error_naming_the_line(run_dir):
    lines = (run_dir / "thoughts.jsonl").read_text().splitlines()
    lines[2] = "{oops"
    (run_dir / "thoughts.jsonl").write_text("\n".join(lines) + "\n")
    with pytest.raises(RunError, match="line 3"):
        load_run(run_dir)


def test_a_torn_last_line_is_skipped(run_dir):
    with open(run_dir / "thoughts.jsonl", "a") as f:
        f.write('{"id": "t9", "at": "2026')
    assert report(load_run(run_dir))["totals"]["thoughts"] == 8
