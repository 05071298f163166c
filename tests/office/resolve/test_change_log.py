"""The record holds every change (issue 21): what changes between thoughts is in changes.jsonl, so
the minds rebuilt from the logs (interview, report) equal state.json, and a resume applies the
boss's commands logged after the last save.
"""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from ideaco.analysis import history, task_rows
from ideaco.interview import minds_at
from ideaco.office.engine.build import office_from_state
from ideaco.office.engine.clock import SimClock
from ideaco.office.engine.office import Office
from ideaco.office.engine.persistence import snapshot
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.store.runlog import RunLog
from tests.fakes.llm import ScriptedLLM
from tests.office.resolve.test_applied import guard_office


def as_run(office: Office) -> RunLog:
    """What a reader of the run directory sees: state.json as last saved, and the three logs."""
    journal = office.journal
    assert isinstance(journal, MemoryJournal)
    state = json.loads(json.dumps(journal.state, default=str))
    return RunLog(
        Path("run"), state, list(journal.messages), list(journal.thoughts), changes=list(journal.changes)
    )


def plain(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=str))


def saved_minds(run: RunLog) -> dict[str, Any]:
    return {e.id: plain(e.mind) for e in run.employees}


def rebuilt_minds(run: RunLog) -> dict[str, Any]:
    """Every mind rebuilt from the logs alone (a moment asked for: state.json is not read)."""
    return {eid: plain(mind.to_dict()) for eid, mind in minds_at(run, run.end).items()}


def assert_report_ends_at_the_state(run: RunLog) -> None:
    """The report's stamina curve of every employee ends where state.json's stamina is, and its
    tasks are state.json's, as they stand."""
    hist = history(run)
    saved_tasks = {t["id"]: t["status"] for e in run.employees for t in e.mind.get("tasks") or ()}
    assert {r["id"]: r["status"] for r in task_rows(hist)} == saved_tasks
    for emp in run.employees:
        last, saved = hist.stamina[emp.id][-1], emp.mind["stamina"]
        assert [last.patience, last.fatigue, last.stress] == [
            saved["patience"],
            saved["fatigue"],
            saved["stress"],
        ], emp.id


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_the_minds_rebuilt_from_the_logs_equal_state_json(seed: int) -> None:
    office = guard_office(seed)
    office.start()
    await office.run(timedelta(hours=2))  # ends with thinks begun and waiting: their start is saved
    run = as_run(office)
    causes = {c["cause"] for c in run.changes}
    assert {"begun", "release"} <= causes  # Ben is held and released; the run ends mid-think
    assert saved_minds(run) == rebuilt_minds(run)
    assert_report_ends_at_the_state(run)


async def test_a_think_cut_by_a_stop_logs_what_beginning_it_took() -> None:
    office = guard_office(2)
    office.start()
    while not office.thinking:
        await office.clock.step()
    cut = next(iter(office.thinking.values()))
    office.stop("test")
    await office.run(timedelta(seconds=30))
    run = as_run(office)
    assert [c["thought"] for c in run.changes if c["cause"] == "begun"] == [cut.thought_id]
    assert cut.thought_id not in {t["id"] for t in run.thoughts}
    assert saved_minds(run) == rebuilt_minds(run)


async def test_the_boss_commands_are_logged_read_and_applied_again_on_resume() -> None:
    office = guard_office(2)
    office.start()
    await office.run(timedelta(minutes=30))
    saved = copy.deepcopy(snapshot(office))  # the last save before the command
    result = office.apply_tool(
        "hire_employee", {"name": "Uma", "role": "Analyst", "archetype": "idealist", "department": "eng"}
    )
    assert result.ok, result.message
    office.apply_tool("assign_requirement", {"to": "ops", "description": "a status page"})
    office.checkpoint()
    assert saved_minds(as_run(office)) == rebuilt_minds(as_run(office))
    assert_report_ends_at_the_state(as_run(office))
    await office.run(timedelta(minutes=10))
    run = as_run(office)
    commands = [c for c in run.changes if c["cause"] == "command"]
    assert [c["tool"] for c in commands] == ["hire_employee", "assign_requirement"]
    assert saved_minds(run) == rebuilt_minds(run)
    assert_report_ends_at_the_state(run)
    hired = next(e.id for e in office.employees.values() if e.name == "Uma")

    journal = office.journal
    assert isinstance(journal, MemoryJournal)
    resumed = office_from_state(
        json.loads(json.dumps(saved, default=str)),
        list(journal.messages),
        thoughts=list(journal.thoughts),
        changes=list(journal.changes),
        llm=ScriptedLLM(),
        clock=SimClock(office.now()),
        journal=MemoryJournal(),
    )
    assert hired in resumed.employees
    assert resumed.company_model.to_dict() == office.company_model.to_dict()
    assert plain(resumed.employees[hired].mind.to_dict()) == plain(office.employees[hired].mind.to_dict())
    assert resumed.meta["changes"] == len(journal.changes)
