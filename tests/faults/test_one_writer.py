"""One writer per run directory (issue 11, item 1).

A real `ideaco run` (or `chat`) process holds a run directory; it is paused (SIGSTOP at a chosen
point) so the directory stands still while a second writer tries: `run --out` into it, `run
--resume`, `chat`, `reset-relationships`, the Python API. Each is refused in one line naming the
holder (pid, command, since when), exit 2, and touches nothing; readers (`inspect`, `report`) go
on working. Then the holder continues and finishes with nothing lost or duplicated. A holder that
was killed leaves a stale lock that the next writer takes over.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path

import pytest

import ideaco as ideaco_api
from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.processes import (
    finish,
    is_stopped,
    one_error_line,
    snapshot,
    start_ideaco,
    wait_until,
)
from tests.faults.test_kills import SCENARIO, answer, check_finished, check_run_dir

WRITER = ".ideaco-writer.json"


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "office.yaml"
    path.write_text(SCENARIO)
    return path


@pytest.fixture
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


@pytest.fixture
def second_fake():
    """The endpoint a refused writer is pointed at: it must never be asked anything."""
    with FakeOpenAIServer(handler=answer) as server:
        yield server


def new_run(scenario: Path, out: Path, url: str, duration: str = "30m") -> list[str | Path]:
    return ["run", scenario, "--duration", duration, "--base-url", url, "--out", out, "--seed", "1"]


def assert_names_holder(line: str, out: Path, pid: int, command: str) -> None:
    assert f"{out} is in use" in line, line
    assert f"pid {pid}" in line and command in line and "since " in line, line


def refused_writers(scenario: Path, out: Path, url: str) -> dict[str, list]:
    """Every kind of second writer, as a user would start it."""
    return {
        "run --out": ["run", scenario, "--base-url", url, "--out", out],
        "run --resume": ["run", "--resume", out, "--base-url", url],
        "chat": ["chat", out, "--base-url", url],
        "reset-relationships": ["reset-relationships", out],
    }


def test_a_second_run_into_an_empty_held_directory_is_refused(ideaco, tmp_path, scenario, fake, second_fake):
    """Two `ideaco run --out D` at once: the second finds D still empty, but held."""
    out = tmp_path / "run"
    log = tmp_path / "first.txt"
    first = start_ideaco(new_run(scenario, out, fake.base_url), log=log, pause_at=("checkpoint", 1))
    wait_until(lambda: is_stopped(first), what="the first run to pause before its first save")
    assert not (out / "state.json").exists()  # held, and still empty: the race the lock closes
    before = snapshot(out)

    line = one_error_line(ideaco(*new_run(scenario, out, second_fake.base_url)))
    assert_names_holder(line, out, first.pid, "ideaco run ")
    assert snapshot(out) == before and not second_fake.requests

    first.send_signal(signal.SIGCONT)
    assert finish(first, log) == 0, log.read_text()
    check_finished(out, {}, "2026-01-05T09:30:00")
    assert not (out / WRITER).exists(), "the holder's details outlived its lock"


def test_every_second_writer_is_refused_while_a_run_holds_it_and_readers_still_read(
    ideaco, tmp_path, scenario, fake, second_fake
):
    out = tmp_path / "run"
    log = tmp_path / "first.txt"
    first = start_ideaco(
        new_run(scenario, out, fake.base_url), log=log, pause_at=("checkpoint", 6), save_each_thought=True
    )
    wait_until(lambda: is_stopped(first), what="the first run to pause mid-run")
    seen: dict[str, list[bytes]] = {}
    logs = check_run_dir(out, seen, final=False)
    assert logs["thoughts.jsonl"], "paused before any thought: nothing to protect"
    before = snapshot(out)

    for kind, args in refused_writers(scenario, out, second_fake.base_url).items():
        line = one_error_line(ideaco(*args))
        if kind == "run --out":  # refused before the lock is even tried: the directory holds a run
            assert "already holds a run" in line, line
        else:
            assert_names_holder(line, out, first.pid, "ideaco run ")
        assert snapshot(out) == before, f"a refused {kind} changed the run directory"
    assert not second_fake.requests

    # Readers never take the lock and never wait for it.
    inspected = ideaco("inspect", out, "--json")
    assert inspected.exit_code == 0, inspected.output
    assert len(json.loads(inspected.stdout)["thoughts"]) == len(logs["thoughts.jsonl"])
    reported = ideaco("report", out, "--json", "--no-plots")
    assert reported.exit_code == 0, reported.output
    assert snapshot(out) == before

    first.send_signal(signal.SIGCONT)
    assert finish(first, log) == 0, log.read_text()
    check_finished(out, seen, "2026-01-05T09:30:00")


def test_a_refused_resume_leaves_the_holders_checkpoint_temp_file_alone(
    ideaco, tmp_path, scenario, fake, second_fake
):
    """The holder is inside an atomic write (temp file written, not renamed) when the resume comes."""
    out = tmp_path / "run"
    log = tmp_path / "first.txt"
    first = start_ideaco(new_run(scenario, out, fake.base_url), log=log, pause_at=("rename", 4))
    wait_until(lambda: is_stopped(first), what="the first run to pause inside a checkpoint")
    temp = list(out.glob(".state.json.*.tmp"))
    assert len(temp) == 1
    before = snapshot(out)

    line = one_error_line(ideaco("run", "--resume", out, "--base-url", second_fake.base_url))
    assert_names_holder(line, out, first.pid, "ideaco run ")
    assert temp[0].exists() and snapshot(out) == before

    first.send_signal(signal.SIGCONT)
    assert finish(first, log) == 0, log.read_text()
    check_finished(out, {}, "2026-01-05T09:30:00")


def test_a_killed_holders_stale_lock_is_taken_over(ideaco, tmp_path, scenario, fake):
    out = tmp_path / "run"
    log = tmp_path / "first.txt"
    first = start_ideaco(
        new_run(scenario, out, fake.base_url), log=log, pause_at=("checkpoint", 5), save_each_thought=True
    )
    wait_until(lambda: is_stopped(first), what="the first run to pause mid-run")
    assert json.loads((out / WRITER).read_text())["pid"] == first.pid
    seen: dict[str, list[bytes]] = {}
    check_run_dir(out, seen, final=False)
    first.kill()
    first.wait()

    result = ideaco("run", "--resume", out, "--base-url", fake.base_url)
    assert result.exit_code == 0, result.output
    check_finished(out, seen, "2026-01-05T09:30:00")
    assert not (out / WRITER).exists()


def test_a_chat_holds_the_directory_until_it_quits(ideaco, tmp_path, scenario, fake, second_fake):
    out = tmp_path / "run"
    assert ideaco(*new_run(scenario, out, fake.base_url, duration="10m")).exit_code == 0
    seen: dict[str, list[bytes]] = {}
    check_run_dir(out, seen, final=True)
    log = tmp_path / "chat.txt"
    chat = start_ideaco(["chat", out, "--base-url", fake.base_url], log=log, stdin=subprocess.PIPE)
    try:

        def announced() -> bool:
            assert chat.poll() is None, log.read_text()
            return (out / WRITER).exists() and json.loads((out / WRITER).read_text())["pid"] == chat.pid

        wait_until(announced, what="the chat to hold the run directory")
        line = one_error_line(ideaco("run", "--resume", out, "--base-url", second_fake.base_url))
        assert_names_holder(line, out, chat.pid, "ideaco chat ")
        assert not second_fake.requests
    finally:
        assert chat.stdin is not None
        chat.stdin.write(b"/quit\n")
        chat.stdin.close()
    assert finish(chat, log) == 0, log.read_text()
    result = ideaco("run", "--resume", out, "--base-url", fake.base_url, "--duration", "10m")
    assert result.exit_code == 0, result.output
    check_finished(out, seen, "2026-01-05T09:20:00")


def test_a_python_api_session_holds_the_directory_until_closed(ideaco, tmp_path, scenario, fake, second_fake):
    out = tmp_path / "run"
    sim = ideaco_api.load(scenario, out=out, base_url=fake.base_url, seed=1, duration="10m")
    try:
        sim.run("5m")
        line = one_error_line(ideaco("run", "--resume", out, "--base-url", second_fake.base_url))
        assert f"{out} is in use" in line and "since " in line, line
        assert not second_fake.requests
    finally:
        sim.close()
    result = ideaco("run", "--resume", out, "--base-url", fake.base_url, "--duration", "5m")
    assert result.exit_code == 0, result.output
    check_finished(out, {}, "2026-01-05T09:10:00")
