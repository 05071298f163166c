"""The notebooks run end to end on the recorded replay: no key, no model, a few seconds each.

A failure that names a replay miss means the prompts, the scenario or the notebooks' session changed
since `notebooks/data/startup.jsonl` was recorded: re-run `python notebooks/make_recording.py`.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
RECORDING = NOTEBOOKS / "data" / "startup.jsonl"
NAMES = ("01-run-and-step.ipynb", "02-analyse-a-run.ipynb", "03-ablations.ipynb", "04-fork-and-compare.ipynb")
SWEEP_RECORDINGS = NOTEBOOKS / "data" / "sweep"


def execute(name: str, tmp: Path) -> nbformat.NotebookNode:
    """Run a notebook in a fresh kernel from the notebooks/ directory, as Jupyter would.

    The kernel's temporary directory is `tmp`, so the run directory the notebook makes lands there.
    """
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    # Raises CellExecutionError, naming the cell and its traceback, if any cell fails.
    NotebookClient(
        nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}}
    ).execute(env={**os.environ, "TMPDIR": str(tmp)})
    return nb


def run_summary(tmp: Path) -> dict:
    """The summary.json of the one run directory the notebook made."""
    (path,) = tmp.glob("ideaco-notebook-*/run/summary.json")
    return json.loads(path.read_text(encoding="utf-8"))


def assert_replayed(summary: dict, nb: nbformat.NotebookNode) -> None:
    """The run was answered from the recording: calls made, none failed, nothing stopped it."""
    assert summary["llm"]["calls"] == replayed_calls(nb) > 0
    assert "error" not in summary["silences_by_gate"] and not summary["errors_by_kind"]
    assert summary["stop_reason"] == "reached the end of the simulated time"


def printed(nb: nbformat.NotebookNode) -> str:
    """Everything the notebook's cells printed or displayed as text."""
    parts = []
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                parts.append(output["text"])
            data = output.get("data", {})
            parts.append(data.get("text/markdown") or data.get("text/plain") or "")
    return "\n".join(parts)


def replayed_calls(nb: nbformat.NotebookNode) -> int:
    found = re.search(r"(\d+) model calls replayed", printed(nb))
    assert found, "the notebook's last cell should say how many model calls it replayed"
    return int(found.group(1))


@pytest.fixture(scope="module")
def recorded_calls() -> int:
    lines = RECORDING.read_text(encoding="utf-8").splitlines()
    assert all(json.loads(line)["model"] == "scripted" for line in lines)
    return len(lines)


def test_the_recording_is_small() -> None:
    assert 0 < RECORDING.stat().st_size < 1_000_000


@pytest.mark.parametrize("name", NAMES)
def test_committed_notebooks_have_no_outputs(name: str) -> None:
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code and all(not cell.outputs and cell.execution_count is None for cell in code)


def test_notebook_1_runs_steps_and_talks_on_the_replay(recorded_calls: int, tmp_path: Path) -> None:
    nb = execute(NAMES[0], tmp_path)
    summary = run_summary(tmp_path)
    assert_replayed(summary, nb)
    # 10 minutes, a few steps (each to the next event), 5 minutes more.
    assert "2026-01-05T09:15" <= summary["simulated_end"] < "2026-01-05T09:20"
    text = printed(nb)
    # The boss's own line shows in the transcript, and the employee view found Sam's new task.
    assert "@Sam, can you pair with Zoe" in text
    assert "Pair with Zoe on the onboarding screens" in text
    assert 0 < replayed_calls(nb) < recorded_calls


def test_notebook_2_analyses_the_replayed_run(recorded_calls: int, tmp_path: Path) -> None:
    nb = execute(NAMES[1], tmp_path)
    assert_replayed(run_summary(tmp_path), nb)
    images = [
        output
        for cell in nb.cells
        for output in cell.get("outputs", [])
        if "image/png" in output.get("data", {})
    ]
    assert len(images) == 3  # affinity, comfort over time, cost
    # Notebook 2 replays the whole recorded session (notebook 1's, carried on).
    assert recorded_calls * 0.9 <= replayed_calls(nb) <= recorded_calls
    assert "Per simulated hour" in printed(nb)


def test_the_sweep_recordings_are_small() -> None:
    sizes = [p.stat().st_size for p in SWEEP_RECORDINGS.glob("*.jsonl.gz")]
    assert len(sizes) == 8 and sum(sizes) < 500_000


def test_notebook_3_sweeps_the_recordings_and_shows_the_table_and_plot(tmp_path: Path) -> None:
    nb = execute(NAMES[2], tmp_path)
    text = printed(nb)
    assert "8 runs done, 0 failed" in text
    (out,) = tmp_path.glob("ideaco-notebook-*/ablation")
    data = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
    assert [v["label"] for v in data["variants"]] == [
        "gates=on wake=adaptive",
        "gates=on wake=broadcast",
        "gates=off wake=adaptive",
        "gates=off wake=broadcast",
    ]
    assert all(stats["n"] == 2 for stats in data["metrics"]["calls"]["by_variant"].values())
    assert "| metric | gates=on wake=adaptive (n=2)" in text  # the table was displayed
    assert "## What went well today, and what did not?" in text  # and the interviews
    images = [o for c in nb.cells for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(images) == 2  # the comparison plot and one run's talk graph
    assert (
        replayed_calls(nb)
        == sum(
            (t["llm"] or {}).get("calls", 0)
            for run in (out / "runs").iterdir()
            for t in map(json.loads, (run / "thoughts.jsonl").read_text(encoding="utf-8").splitlines())
        )
        > 0
    )


def test_notebook_4_forks_the_run_and_compares_the_two_offices(tmp_path: Path) -> None:
    nb = execute(NAMES[3], tmp_path)
    text = printed(nb)
    assert "8 messages in the shared past" in text  # the fork's own assertion held: the same past
    assert "B is a fork of A at 09:05:59 with changes: the scenario's later boss lines dropped" in text
    assert "| 09:05:59 | launch | boss | Change of plan: we launch in one week" in text
    (control,) = tmp_path.glob("ideaco-notebook-*/run/summary.json")
    (fork,) = tmp_path.glob("ideaco-notebook-*/fork/summary.json")
    for path in (control, fork):
        summary = json.loads(path.read_text(encoding="utf-8"))
        assert summary["stop_reason"] == "reached the end of the simulated time"
        assert "error" not in summary["silences_by_gate"] and not summary["errors_by_kind"]
    assert json.loads((fork.parent / "fork.json").read_text())["at"] == "2026-01-05T09:05:59"
