"""Writes stay inside the run directory (issue 11, item 2).

A run directory someone handed you (or a planted file) can hold a symbolic link, a hard link, a
FIFO or a foreign file where a log, the state, the summary or a plot goes; `--record` can name a
link. Every writer refuses in one line (exit 2) before it writes anything, nothing the link points
to changes, and the torn-line repair cuts only what it can tell is a record it wrote.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ideaco.plots import PLOTS
from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.processes import one_error_line, snapshot

SCENARIO = """\
company: Acme Labs
duration: 10m
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}
rooms:
  - {id: api, name: API design, kind: work, members: [alice, bob]}
script:
  - {at: "00:00", to: api, text: "REST or GraphQL?"}
"""
REPLY = {
    "innerThoughts": "ok",
    "topicSaturation": 3,
    "interestLevel": 5,
    "shouldSpeak": True,
    "messages": [{"content": "fine"}],
}
# What the victim file outside the run directory holds: a torn-looking last line that a repair
# following the link would have cut.
VICTIM = b'my notes\n{"id": "not a log"}\nthe last line, unterminated'


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(default=REPLY) as server:
        yield server


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory, fake) -> Path:
    from typer.testing import CliRunner

    from ideaco.cli.main import app
    from tests.faults.conftest import CLEAN_ENV

    base = tmp_path_factory.mktemp("finished")
    (base / "s.yaml").write_text(SCENARIO)
    result = CliRunner().invoke(
        app,
        ["run", str(base / "s.yaml"), "--base-url", fake.base_url, "--out", str(base / "run")],
        env=CLEAN_ENV,
    )
    assert result.exit_code == 0, result.output
    return base / "run"


@pytest.fixture
def run(tmp_path: Path, finished_run: Path) -> Path:
    copy = tmp_path / "home" / "run"
    shutil.copytree(finished_run, copy)
    return copy


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file of the user's, outside the run directory."""
    path = tmp_path / "home" / "notes.txt"
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(VICTIM)
    return path


def link_in_place(path: Path, target: Path) -> None:
    path.unlink(missing_ok=True)
    path.symlink_to(target)


def hard_link_in_place(path: Path, target: Path) -> None:
    path.unlink(missing_ok=True)
    os.link(target, path)


def fifo_in_place(path: Path, _target: Path) -> None:
    path.unlink(missing_ok=True)
    os.mkfifo(path)


PLANTS = {
    "messages.jsonl is a symlink": ("messages.jsonl", link_in_place, "is a symbolic link"),
    "thoughts.jsonl is a symlink": ("thoughts.jsonl", link_in_place, "is a symbolic link"),
    "state.json is a symlink": ("state.json", link_in_place, "is a symbolic link"),
    "summary.json is a symlink": ("summary.json", link_in_place, "is a symbolic link"),
    "messages.jsonl is a hard link": ("messages.jsonl", hard_link_in_place, "has other hard links"),
    "thoughts.jsonl is a FIFO": ("thoughts.jsonl", fifo_in_place, "is not a regular file"),
}
WRITERS = {
    "run --resume": lambda run, url: ["run", "--resume", run, "--base-url", url],
    "chat": lambda run, url: ["chat", run, "--base-url", url],
    "reset-relationships": lambda run, url: ["reset-relationships", run],
}


@pytest.mark.parametrize("writer", list(WRITERS))
@pytest.mark.parametrize("plant", list(PLANTS))
def test_a_writer_refuses_a_planted_link_and_writes_nothing(ideaco, run, victim, writer, plant) -> None:
    name, put, expected = PLANTS[plant]
    put(run / name, victim)
    home = victim.parent
    before = snapshot(home)
    with FakeOpenAIServer(default=REPLY) as endpoint:
        line = one_error_line(ideaco(*WRITERS[writer](run, endpoint.base_url)))
    assert str(run / name) in line and expected in line, line
    assert not endpoint.requests, "a model was asked before the run directory was checked"
    assert snapshot(home) == before, "a refused writer changed a file, in or outside the run directory"
    assert victim.read_bytes() == VICTIM


def test_a_new_run_refuses_an_out_directory_with_a_planted_link(ideaco, tmp_path, victim) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    out = tmp_path / "home" / "new"
    out.mkdir()
    (out / "messages.jsonl").symlink_to(victim)  # dangling or not, it is refused
    before = snapshot(victim.parent)
    with FakeOpenAIServer(default=REPLY) as endpoint:
        line = one_error_line(
            ideaco("run", tmp_path / "s.yaml", "--base-url", endpoint.base_url, "--out", out)
        )
    assert "messages.jsonl" in line and "choose another --out" in line, line
    assert snapshot(victim.parent) == before and not endpoint.requests


def test_repair_never_cuts_a_tail_that_is_not_a_torn_record(ideaco, run) -> None:
    """A log whose last line ideaco could not have written is refused, not truncated."""
    with open(run / "messages.jsonl", "ab") as f:
        f.write(b"somebody else's text, not a record")
    before = snapshot(run)
    with FakeOpenAIServer(default=REPLY) as endpoint:
        line = one_error_line(ideaco("run", "--resume", run, "--base-url", endpoint.base_url))
    assert "messages.jsonl" in line and "not a record ideaco wrote" in line, line
    assert not endpoint.requests
    assert snapshot(run) == before


def test_repair_still_cuts_a_torn_record(ideaco, run) -> None:
    """The control case: what a kill leaves (the start of a record) is cut, and the run continues."""
    lines = (run / "messages.jsonl").read_bytes().splitlines(keepends=True)
    with open(run / "messages.jsonl", "ab") as f:
        f.write(lines[-1][:17])
    with FakeOpenAIServer(default=REPLY) as endpoint:
        result = ideaco("run", "--resume", run, "--base-url", endpoint.base_url, "--duration", "5m")
    assert result.exit_code == 0, result.output
    assert (run / "messages.jsonl").read_bytes().startswith(b"".join(lines))
    assert (run / "messages.jsonl").read_bytes().endswith(b"\n")


@pytest.mark.parametrize("plot", ["relationships.png", "stamina.png", "activity.png", "talk.png"])
def test_report_refuses_a_plot_path_that_is_a_link(ideaco, run, victim, plot) -> None:
    (run / plot).symlink_to(victim)
    before = snapshot(victim.parent)
    line = one_error_line(ideaco("report", run))
    assert str(run / plot) in line and "symbolic link" in line and "--no-plots" in line, line
    assert snapshot(victim.parent) == before, "a plot was written, or written through the link"
    assert [p.name for p in run.glob("*.png")] == [plot], "the other plots were written before the refusal"
    result = ideaco("report", run, "--no-plots")
    assert result.exit_code == 0, result.output


def test_report_replaces_its_own_plots_in_place(ideaco, run) -> None:
    assert ideaco("report", run).exit_code == 0
    first = {name: (run / name).read_bytes() for name in PLOTS}
    assert ideaco("report", run).exit_code == 0
    assert all((run / name).read_bytes() == data for name, data in first.items())


def record_link(home: Path, victim: Path) -> Path:
    (home / "calls.jsonl").symlink_to(victim)
    return home / "calls.jsonl"


def record_dir(home: Path, victim: Path) -> Path:
    (home / "calls.jsonl").mkdir()
    return home / "calls.jsonl"


def record_fifo(home: Path, victim: Path) -> Path:
    os.mkfifo(home / "calls.jsonl")
    return home / "calls.jsonl"


def record_under_a_file(home: Path, victim: Path) -> Path:
    return victim / "calls.jsonl"  # its folder is a file: an OS error (ENOTDIR)


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        (record_link, "is a symbolic link"),
        (record_dir, "is not a regular file"),
        (record_fifo, "is not a regular file"),
        (record_under_a_file, "cannot be written (its folder is not a directory)"),
    ],
    ids=["a symlink", "a directory", "a FIFO", "under a file"],
)
def test_record_refuses_a_path_it_must_not_write_before_any_call(
    ideaco, tmp_path, victim, make, expected
) -> None:
    (tmp_path / "s.yaml").write_text(SCENARIO)
    record = make(victim.parent, victim)
    before = snapshot(victim.parent)
    out = tmp_path / "out"
    with FakeOpenAIServer(default=REPLY) as endpoint:
        line = one_error_line(
            ideaco(
                "run", tmp_path / "s.yaml", "--base-url", endpoint.base_url, "--out", out, "--record", record
            )
        )
    assert f"--record {record}" in line and expected in line, line
    assert not endpoint.requests, "a model call was paid before the record file was found unwritable"
    assert snapshot(victim.parent) == before and not out.exists()
