"""Deadlines that hold (issue 11, item 6).

`IDEACO_TIMEOUT` is a total deadline per model call: an endpoint that dribbles its answer a byte
at a time (so that no single read ever times out) is cut at the deadline, logged as a timeout,
and the run goes on. Ctrl-C and SIGTERM stop a run or a chat after saving, with exit codes 130
and 143 (a finished run exits 0, a budget stop 0 with its line), and `--resume` continues with
nothing lost or duplicated. A signal while the office is still starting ends it in one line.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, RawReply, completion_body
from tests.faults.processes import finish, is_stopped, start_ideaco, wait_until
from tests.faults.test_kills import SCENARIO as OFFICE
from tests.faults.test_kills import answer, check_finished, check_run_dir, saved_counts

SCENARIO = """\
company: Acme Labs
duration: 15m
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
script:
  - {at: "00:00", to: "boss:alice", text: "Alice, REST or GraphQL?"}
"""
THOUGHT = {
    "innerThoughts": "fine",
    "topicSaturation": 3,
    "interestLevel": 7,
    "shouldSpeak": True,
    "reason": "asked",
    "messages": [{"content": "REST."}],
}
DRIBBLE_S = 0.05  # between two bytes: far below any per-read timeout


class FirstDribbles:
    """The first answer arrives a byte at a time (about 20 s in all); every later one at once."""

    def __init__(self) -> None:
        self.first = True

    def __call__(self, body: dict):
        if self.first:
            self.first = False
            return RawReply(completion_body(json.dumps(THOUGHT)), chunk=1, interval=DRIBBLE_S)
        return THOUGHT


def test_a_dribbling_endpoint_is_cut_at_the_total_deadline(ideaco, tmp_path) -> None:
    scenario = tmp_path / "office.yaml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    body_s = len(completion_body(json.dumps(THOUGHT))) * DRIBBLE_S
    assert body_s > 15, "the dribble must outlast the deadline by far for this test to mean anything"
    started = time.monotonic()
    with FakeOpenAIServer(handler=FirstDribbles()) as fake:
        result = ideaco(
            "run",
            scenario,
            "--base-url",
            fake.base_url,
            "--out",
            out,
            env={"IDEACO_TIMEOUT": "1", "IDEACO_RETRIES": "1"},
        )
    took = time.monotonic() - started
    assert result.exit_code == 0, result.output
    assert took < body_s / 2, f"the call was held {took:.1f} s: the deadline restarted with every byte"
    thoughts = [json.loads(line) for line in (out / "thoughts.jsonl").read_text().splitlines()]
    assert thoughts[0]["gate"] == "error" and "timed out after 1 s" in thoughts[0]["error"], thoughts[0]
    assert any(t["spoke"] for t in thoughts[1:]), "the run did not go on after the timeout"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["errors_by_kind"] == {"timeout": 1}


# --- signals -----------------------------------------------------------------------------------------


@pytest.fixture
def office(tmp_path: Path) -> Path:
    path = tmp_path / "kill.yaml"
    path.write_text(OFFICE)
    return path


@pytest.mark.parametrize(
    ("signum", "code", "said"),
    [
        (signal.SIGINT, 130, "stopped: interrupted (Ctrl-C); continue with --resume"),
        (signal.SIGTERM, 143, "stopped: terminated (SIGTERM); continue with --resume"),
    ],
    ids=["Ctrl-C", "SIGTERM"],
)
def test_a_signal_mid_run_saves_then_exits_130_or_143(ideaco, tmp_path, office, signum, code, said) -> None:
    out, log = tmp_path / "run", tmp_path / "first.txt"
    with FakeOpenAIServer(handler=answer) as fake:
        args = ["run", office, "--duration", "30m", "--base-url", fake.base_url, "--out", out, "--seed", "1"]
        proc = start_ideaco(args, log=log, pause_at=("checkpoint", 4), save_each_thought=True)
        wait_until(lambda: is_stopped(proc), what="the run to pause mid-run")
        proc.send_signal(signum)  # pending while stopped: delivered mid-save when it continues
        proc.send_signal(signal.SIGCONT)
        assert finish(proc, log) == code, log.read_text()
        output = log.read_text()
        assert said in output and "Traceback" not in output, output
        seen: dict[str, list[bytes]] = {}
        logs = check_run_dir(out, seen, final=False)
        assert saved_counts(out) == (len(logs["thoughts.jsonl"]), len(logs["messages.jsonl"])), (
            "the stop did not save the state"
        )
        summary = json.loads((out / "summary.json").read_text())
        assert summary["stop_reason"] == said.removeprefix("stopped: ")
        assert summary["simulated_end"] < "2026-01-05T09:30:00"

        result = ideaco("run", "--resume", out, "--base-url", fake.base_url, "--duration", "10m")
        assert result.exit_code == 0, result.output
    check_run_dir(out, seen, final=True)


def test_a_signal_while_starting_is_one_line_and_leaves_no_run(ideaco, tmp_path, office) -> None:
    out, log = tmp_path / "run", tmp_path / "first.txt"
    with FakeOpenAIServer(handler=answer) as fake:
        args = ["run", office, "--duration", "30m", "--base-url", fake.base_url, "--out", out]
        proc = start_ideaco(args, log=log, pause_at=("checkpoint", 1))  # the first save, at start-up
        wait_until(lambda: is_stopped(proc), what="the run to pause while starting")
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGCONT)
        assert finish(proc, log) == 130, log.read_text()
        assert log.read_text().strip().splitlines()[-1] == (
            "ideaco: interrupted (Ctrl-C) while starting; the office had not run yet"
        )
        assert not fake.requests and not (out / "state.json").exists()
        result = ideaco(*args)  # the same command starts the run afresh
        assert result.exit_code == 0, result.output
    check_finished(out, {}, "2026-01-05T09:30:00")


def test_sigterm_to_a_chat_saves_and_exits_143(ideaco, tmp_path, office) -> None:
    out, log = tmp_path / "run", tmp_path / "chat.txt"
    with FakeOpenAIServer(handler=answer) as fake:
        chat = start_ideaco(
            ["chat", office, "--base-url", fake.base_url, "--out", out], log=log, stdin=subprocess.PIPE
        )
        assert chat.stdin is not None
        chat.stdin.write(b"/room api\n@Alice REST or GraphQL?\n/wait 5m\n")
        chat.stdin.flush()
        wait_until(lambda: "Alice" in log.read_text().split("@Alice", 1)[-1], what="Alice's answer")
        chat.send_signal(signal.SIGTERM)
        try:
            assert finish(chat, log) == 143, log.read_text()
        finally:
            chat.stdin.close()
    output = log.read_text()
    assert "saved: " in output and f"Continue with: ideaco chat {out}" in output, output
    logs = check_run_dir(out, {}, final=True)
    assert saved_counts(out) == (len(logs["thoughts.jsonl"]), len(logs["messages.jsonl"]))
    assert any(m["sender"] == "boss" and "REST or GraphQL" in m["text"] for m in logs["messages.jsonl"])


def test_a_finished_run_and_a_budget_stop_exit_0(ideaco, tmp_path, office) -> None:
    with FakeOpenAIServer(handler=answer) as fake:
        done = ideaco("run", office, "--duration", "5m", "--base-url", fake.base_url, "--out", tmp_path / "a")
        spent = ideaco(
            "run", office, "--base-url", fake.base_url, "--out", tmp_path / "b", "--max-calls", "3"
        )
    assert done.exit_code == 0 and "stopped: reached the end of the simulated time" in done.output
    assert spent.exit_code == 0 and "stopped: --max-calls 3 reached" in spent.output, spent.output
