"""`ideaco.analysis` on a real run (state format 2): curves and tables read from `applied` alone end on
exactly what state.json holds, and tasks the state pruned are still in the report."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.analysis import history, load_run, report
from ideaco.cli.main import app
from ideaco.mind import relationships, stamina
from ideaco.store.runlog import RunLog
from tests.guard.runs import RUNS


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The guard's scripted office, replayed for two simulated hours into a real run directory (seed 2:
    the seed whose stamina curves cross every zone; seed 1's lowest comfort is 41.9 since issue 13's
    board changes)."""
    guarded = next(r for r in RUNS if r.name == "office-s2")
    out = tmp_path_factory.mktemp("applied") / "run"
    result = CliRunner().invoke(app, guarded.args(out), env={"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None})
    assert result.exit_code == 0, result.output
    return out


def test_the_stamina_curve_ends_on_the_state(run_dir: Path) -> None:
    run = load_run(run_dir)
    hist = history(run)
    assert hist.available
    zones = set()
    for emp in run.employees:
        last = hist.stamina[emp.id][-1]
        st = emp.mind["stamina"]
        if emp.desk.get("phase") == "thinking":  # a think cut by the end: it began with its rest
            began = datetime.fromisoformat(st["last_active_at"])
            rested = stamina.recover(
                stamina.Stamina(last.patience, last.fatigue, last.stress, last.at), began
            )
            last = replace(last, patience=rested.patience, fatigue=rested.fatigue, stress=rested.stress)
        assert (last.patience, last.fatigue, last.stress) == pytest.approx(
            (st["patience"], st["fatigue"], st["stress"])
        ), emp.id
        zones |= {
            stamina.zone(stamina.Stamina(p.patience, p.fatigue, p.stress)) for p in hist.stamina[emp.id]
        }
    assert zones == {"green", "yellow", "red"}  # the curves cross every zone


def test_the_relationship_table_ends_on_the_state(run_dir: Path) -> None:
    run = load_run(run_dir)
    data = report(run)
    compared = 0
    for emp in run.employees:
        table = relationships.table_from_dict(emp.mind.get("relationships") or {})
        rows = data["employees"][emp.id]["relationships"]
        assert set(rows) == set(table), emp.id
        for other, rel in table.items():
            assert rows[other]["affinity"] == round(relationships.current_affinity(rel, run.end), 2)
            assert rows[other]["impression"] == rel.impression
            assert rows[other]["updates"] >= 1
            compared += 1
    assert compared >= 8
    swings = sum(r["swings"] for e in data["employees"].values() for r in e["relationships"].values())
    assert swings >= 3  # clamped +-15 changes count as swings


def test_tasks_come_from_what_was_applied_including_closed_ones(run_dir: Path) -> None:
    run = load_run(run_dir)
    rows = {r["id"]: r for r in report(run)["tasks"]}
    kept = {t["id"]: t for e in run.employees for t in e.mind.get("tasks") or ()}
    assert set(kept) <= set(rows)
    for task_id, task in kept.items():
        assert (rows[task_id]["status"], rows[task_id]["resolved_at"]) == (
            task["status"],
            task["resolved_at"],
        )
    assert {"resolved", "failed"} <= {r["status"] for r in rows.values()}
    resolved = [r for r in rows.values() if r["status"] == "resolved"]
    assert all(r["seconds_to_close"] is not None and r["seconds_to_close"] >= 0 for r in resolved)


def test_report_and_inspect_read_it_from_the_cli(run_dir: Path) -> None:
    out = CliRunner().invoke(app, ["report", str(run_dir), "--no-plots"])
    assert out.exit_code == 0, out.output
    assert "Employees" in out.output
    shown = CliRunner().invoke(app, ["inspect", str(run_dir)], env={"COLUMNS": "200"})
    assert shown.exit_code == 0, shown.output
    # inspect shows every thought's inner monologue (an empty or wrong reader would not)
    inner = [t["thought"]["innerThoughts"] for t in RunLog.open(run_dir).thoughts if t.get("thought")]
    assert inner and all(text[:40] in shown.output for text in inner[:5]), shown.output[:2000]
