"""The run directory: naming, --out semantics, refusing to clobber a run (spec 1.1, 1.5)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from ideaco.store.rundir import RunDir, RunDirError

NOW = datetime(2026, 1, 5, 9, 3, 7)


def test_default_name_is_scenario_and_timestamp(tmp_path: Path):
    rd = RunDir.for_new_run("startup", None, NOW, root=tmp_path / "runs")
    assert rd.path == tmp_path / "runs" / "startup-20260105-090307"
    assert not rd.path.exists()  # nothing written before create()
    rd.create()
    assert rd.path.is_dir()


def test_default_root_is_runs_in_the_working_directory():
    assert RunDir.for_new_run("x", None, NOW).path == Path("runs") / "x-20260105-090307"


def test_two_runs_in_the_same_second_get_distinct_directories(tmp_path: Path):
    first = RunDir.for_new_run("startup", None, NOW, root=tmp_path).create()
    second = RunDir.for_new_run("startup", None, NOW, root=tmp_path)
    assert second.path != first.path and second.path.name == "startup-20260105-090307-2"


def test_file_paths(tmp_path: Path):
    rd = RunDir(tmp_path)
    assert (rd.state_path, rd.messages_path, rd.thoughts_path, rd.summary_path) == (
        tmp_path / "state.json",
        tmp_path / "messages.jsonl",
        tmp_path / "thoughts.jsonl",
        tmp_path / "summary.json",
    )


def test_out_is_the_run_directory_itself(tmp_path: Path):
    out = tmp_path / "my-run"
    rd = RunDir.for_new_run("startup", out, NOW).create()
    assert rd.path == out and out.is_dir()


def test_out_holding_a_run_is_refused(tmp_path: Path):
    (tmp_path / "state.json").write_text("{}")
    with pytest.raises(RunDirError) as err:
        RunDir.for_new_run("startup", tmp_path, NOW)
    assert (
        str(err.value) == f"{tmp_path} already holds a run (state.json); continue it with --resume {tmp_path}"
    )


def test_out_holding_logs_of_a_run_is_refused(tmp_path: Path):
    (tmp_path / "messages.jsonl").write_text("")
    with pytest.raises(RunDirError, match="already holds run files"):
        RunDir.for_new_run("startup", tmp_path, NOW)


def test_out_holding_a_users_own_files_is_refused_and_an_empty_folder_is_used(tmp_path: Path):
    """Issue 37, item 6: the run's files never land among a user's own."""
    (tmp_path / "notes.txt").write_text("mine")
    (tmp_path / ".hidden").mkdir()
    with pytest.raises(RunDirError) as err:
        RunDir.for_new_run("startup", tmp_path, NOW)
    assert str(err.value) == (
        f"{tmp_path} is not empty and not a run directory (.hidden, notes.txt); give --out a new or empty folder"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == [".hidden", "notes.txt"]  # nothing written
    empty = tmp_path / "empty"
    empty.mkdir()
    assert RunDir.for_new_run("startup", empty, NOW).path == empty
    (empty / ".ideaco-writer.json").write_text("{}")  # a run killed before it logged anything
    (empty / "workspace").mkdir()
    (empty / ".state.json.wuo54sdr.tmp").write_text("{")  # killed in its first checkpoint
    assert RunDir.for_new_run("startup", empty, NOW).path == empty


def test_out_that_is_a_file_is_refused(tmp_path: Path):
    (tmp_path / "f").write_text("")
    with pytest.raises(RunDirError, match="exists and is not a directory"):
        RunDir.for_new_run("startup", tmp_path / "f", NOW)


def test_open_existing_needs_a_state_file(tmp_path: Path):
    with pytest.raises(RunDirError) as err:
        RunDir.open_existing(tmp_path)
    assert str(err.value) == f"{tmp_path} is not an ideaco run directory (no state.json)"
    with pytest.raises(RunDirError, match="does not exist"):
        RunDir.open_existing(tmp_path / "nope")
    (tmp_path / "state.json").write_text("{}")
    assert RunDir.open_existing(tmp_path).path == tmp_path


def test_write_summary_is_pretty_json_and_replaces_atomically(tmp_path: Path):
    rd = RunDir(tmp_path).create()
    rd.write_summary({"messages": 3, "silences": {"cooldown": 1}, "name": "Zoë"})
    text = rd.summary_path.read_text(encoding="utf-8")
    assert text.startswith("{\n  ") and "Zoë" in text
    rd.write_summary({"messages": 4})
    assert json.loads(rd.summary_path.read_text()) == {"messages": 4} == rd.read_summary()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["summary.json"]


def test_logs_and_state_open_inside_the_run(tmp_path: Path):
    rd = RunDir(tmp_path).create()
    with rd.open_messages() as log:
        log.append({"id": "m1"})
        assert not log.append({"id": "m1"})
    with rd.open_thoughts() as log:
        log.append({"id": "t1"})
    with rd.state_store() as store:
        store.save({"clock": {"now": "x"}})
    assert RunDir.open_existing(tmp_path).messages_path.read_text() == '{"id":"m1"}\n'
