"""`evaluate(run)` and `ideaco report`'s collaboration section on a real run (the guard's scripted office).

The run is replayed from the guard's recording: tasks with claim keys, a refused claim, the
secretary, hires and dismissals, boss lines in rooms and 1-on-1s. The replay is deterministic, so
the numbers a sweep compares are asserted exactly (`EXPECTED`, and `data/office-s1.json` for the
whole section): a range survived `speak_rate` divided by 3. A meant change of the office's
behaviour (a re-recorded guard) or of a metric's definition moves them: rewrite both with
`python -m tests.metrics.test_evaluate` and say why in the commit.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.metrics import SUMMARY, evaluate
from ideaco.store.runlog import RunLog
from tests.guard.runs import RUNS

GOLDEN = Path(__file__).parent / "data" / "office-s1.json"
EXPECTED = {
    "calls": 131,
    "tokens": 134986,
    "calls_per_employee_hour": 10.917,
    "calls_per_agent_message": 1.747,
    "agent_messages": 75,
    "speak_rate": 0.5827,
    "silence_saturation": 0.0236,
    "silence_anti_spam": 0.0157,
    "silence_cooldown": 0.0,
    "silence_loop_breaker": 0.0551,
    "silence_filtered": 0.0,
    "silence_chose_silence": 0.2835,
    "boss_replied_rate": 1.0,  # every line replied to: Ben's line too, after the boss's next one
    "boss_answered_rate": 0.9,  # Ben, told "@Ben stop" at 09:40, says nothing until "@Ben continue"
    "boss_reply_latency_s": 37.755,
    "mention_replied_rate": 0.9677,
    "mention_latency_s": 26.697,
    "tasks_created": 10,
    "tasks_resolved": 4,
    "task_resolve_s": 915.446,
    "calls_per_resolved_task": 32.75,
    "documents_approved": 0,
    "review_rejection_rate": None,
    "calls_per_approved_document": None,
    "requirement_approval_s": None,
    "duplicate_rate": 0.4,
    "near_duplicate_rate": 0.08,
    "echo": 0.2763,
    "words_per_message": 5.96,
    "talk_pairs": 23,
    "talk_reciprocity": 0.8696,
    "persona_spread": 0.3886,
    "interest_mean": 5.724,
    "saturation_mean": 4.803,
    "comfort_end_mean": 67.518,
    "affinity_end_mean": 44.369,
}
CLEAN_ENV = {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "IDEACO_MODEL": None}


@pytest.fixture(scope="module")
def office_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    guarded = next(r for r in RUNS if r.name == "office-s1")
    out = tmp_path_factory.mktemp("metrics") / "run"
    result = CliRunner().invoke(app, guarded.args(out), env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    return out


def test_every_summary_metric_is_computed(office_run: Path) -> None:
    section = evaluate(RunLog.open(office_run))
    assert list(section["summary"]) == [m.key for m in SUMMARY]
    assert section["summary"] == EXPECTED  # speak_rate / 3 says 0.1969 here


def test_the_whole_section_is_the_recorded_one(office_run: Path) -> None:
    """Every table of the section (boss lines, mentions, tasks, silences, talk, personas, mood,
    affinity), as JSON, equals the one written when the guard was recorded."""
    section = json.loads(json.dumps(evaluate(RunLog.open(office_run))))
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    for key in expected:
        assert section[key] == expected[key], key
    assert list(section) == list(expected)


def test_tasks_claims_and_cost_per_resolved_task(office_run: Path) -> None:
    run = RunLog.open(office_run)
    section = evaluate(run)
    tasks = section["tasks"]
    # Every task the thoughts created ends in one status; the scripted office claims, refuses a
    # claim, resolves and fails tasks (tests/guard/scripted.py).
    assert tasks["created"] == tasks["resolved"] + tasks["failed"] + tasks["pending"]
    assert tasks["claimed"] >= 1 and tasks["claims_refused"] >= 1
    assert tasks["resolved"] >= 1 and tasks["failed"] >= 1
    assert tasks["per_resolved"]["calls"] == round(section["summary"]["calls"] / tasks["resolved"], 2)
    assert tasks["time_to_resolve"]["count"] == tasks["resolved"]
    created = [
        t
        for rec in run.thoughts
        for step in rec["applied"]["steps"]
        if step["step"] == "mind"
        for t in (step.get("tasks") or {}).get("added", ())
    ]
    assert len(created) == tasks["created"]


def test_affinity_and_mood_trajectories_come_from_applied(office_run: Path) -> None:
    run = RunLog.open(office_run)
    section = evaluate(run)
    cyd = section["affinity"]["cyd"]["ana"]
    assert len(cyd) >= 2 and all(1 <= p["after"] <= 100 for p in cyd)
    assert any(p["before"] != p["after"] for p in cyd)
    assert [p["at"] for p in cyd] == sorted(p["at"] for p in cyd)
    spoken = [t for t in run.thoughts if t.get("thought")]
    assert sum(len(v) for v in section["mood"]["by_employee"].values()) == len(spoken)


def test_report_json_has_the_section_and_writes_the_talk_graph(office_run: Path) -> None:
    before = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in office_run.iterdir()}
    result = CliRunner().invoke(app, ["report", str(office_run), "--json"], env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)
    assert set(doc["collaboration"]) >= {
        "summary",
        "boss",
        "mentions",
        "tasks",
        "silences",
        "messages",
        "talk",
        "personas",
        "mood",
        "affinity",
    }
    assert (office_run / "talk.png").read_bytes()[:4] == b"\x89PNG"
    # Reading a run never changes it: the logs and the state are as they were.
    after = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in office_run.iterdir()}
    assert {k: v for k, v in after.items() if k in before} == before


def test_the_human_report_shows_the_collaboration_tables(office_run: Path) -> None:
    result = CliRunner().invoke(
        app, ["report", str(office_run), "--no-plots"], env={**CLEAN_ENV, "COLUMNS": "120"}
    )
    assert result.exit_code == 0, result.output
    assert "Collaboration (docs/evaluation.md)" in result.stdout
    assert "boss lines replied to" in result.stdout and "100.0%" in result.stdout
    assert "boss lines answered by the addressee" in result.stdout and "90.0%" in result.stdout
    assert "Ben no" in result.stdout  # the line Ben was held by: replied to later, not answered
    assert "The boss's lines: who replied first and how soon; did the addressee answer" in result.stdout
    table = result.stdout[result.stdout.index("The boss's lines") :]
    assert "replied first" in table and "reply after" in table and "answered by the addressee" in table


def _write_golden() -> None:
    """Rewrite data/office-s1.json and print `EXPECTED` from a fresh replay (after a meant change)."""
    import tempfile
    from pprint import pprint

    out = Path(tempfile.mkdtemp()) / "run"
    guarded = next(r for r in RUNS if r.name == "office-s1")
    result = CliRunner().invoke(app, guarded.args(out), env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    section = evaluate(RunLog.open(out))
    GOLDEN.parent.mkdir(exist_ok=True)
    GOLDEN.write_text(json.dumps(section, indent=1) + "\n", encoding="utf-8")
    pprint(section["summary"], sort_dicts=False)


if __name__ == "__main__":
    _write_golden()
