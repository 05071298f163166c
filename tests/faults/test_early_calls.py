"""Early calls through the CLI (issue 19): a recording keeps only the answers the run used, so its
replay needs no model and, one call at a time, gives the very same run; summary.json and the
closing line say what was made, used and dropped."""

from __future__ import annotations

import json
import signal
import time
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.faults.test_kills import DEADLINE_S, answer, check_finished, check_run_dir, start
from tests.faults.test_kills import SCENARIO as KILL_SCENARIO
from tests.guard.runs import HERE as GUARD_DIR
from tests.guard.scripted import as_content, respond

OFFICE = GUARD_DIR / "office.yaml"


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def without_latency(thoughts: list[dict]) -> list[dict]:
    for record in thoughts:
        if record.get("llm"):
            record["llm"].pop("latency_ms", None)
    return thoughts


def test_a_recording_holds_only_used_answers_and_replays_the_same_run(ideaco, tmp_path) -> None:
    first, again, recording = tmp_path / "first", tmp_path / "again", tmp_path / "calls.jsonl"
    # Each answer takes a little real time, so that calls made early are still out when others land.
    with FakeOpenAIServer(handler=lambda body: Reply(as_content(respond(body)), delay=0.01)) as fake:
        flags = ["--base-url", fake.base_url, "--concurrency", "8", "--record", recording]
        result = ideaco("run", OFFICE, "--duration", "1h", "--out", first, "--model", "scripted", *flags)
        served = len(fake.requests)
    assert result.exit_code == 0, result.output
    summary = json.loads((first / "summary.json").read_text())
    calls = summary["calls"]
    assert calls["speculate"] == 8 and calls["early"]["used"] > 0 and calls["early"]["dropped"] > 0
    # What was dropped was paid for, and counted: every request the endpoint served is made; a call
    # dropped while its request was on the way may be counted without reaching it (the budget
    # counts a request as it is sent), never more than those dropped.
    assert served > calls["used"]
    assert served <= calls["made"] <= served + calls["early"]["dropped"]
    thoughts = records(first / "thoughts.jsonl")
    assert calls["used"] == sum(t["llm"]["calls"] for t in thoughts if t.get("llm"))
    assert len(records(recording)) == calls["used"]  # the dropped calls' answers were never written
    assert "started early and dropped" in result.output and "in flight on average" in result.output

    one_at_a_time = ["--speculate", "0", "--concurrency", "1", "--base-url", "http://127.0.0.1:9/v1"]
    replayed = ideaco(
        "run",
        OFFICE,
        "--duration",
        "1h",
        "--out",
        again,
        "--model",
        "scripted",
        "--replay",
        recording,
        *one_at_a_time,
    )
    assert replayed.exit_code == 0, replayed.output
    assert (again / "messages.jsonl").read_bytes() == (first / "messages.jsonl").read_bytes()
    assert without_latency(records(again / "thoughts.jsonl")) == without_latency(thoughts)
    assert json.loads((again / "summary.json").read_text())["calls"]["early"]["started"] == 0


def test_a_kill_while_calls_run_ahead_loses_and_duplicates_nothing(ideaco, tmp_path) -> None:
    """SIGKILL with calls running ahead, then --resume: what was logged stays, nothing is logged twice,
    the run ends where it should, and no early answer of the killed process is ever used."""
    out, scenario = tmp_path / "run", tmp_path / "kill.yaml"
    scenario.write_text(KILL_SCENARIO)
    # The answer names what its think read (a think redone after the resume would say it again).
    with FakeOpenAIServer(handler=lambda body: Reply(answer(body).content, delay=0.05)) as fake:
        flags = ["--base-url", fake.base_url, "--concurrency", "8"]
        proc = start([str(scenario), "--duration", "1h", "--out", str(out), *flags], tmp_path, 0)
        deadline = time.monotonic() + DEADLINE_S
        thoughts = out / "thoughts.jsonl"
        # Kill once a few thoughts are logged and more calls are out than one think waits for.
        while not (
            thoughts.exists() and len(thoughts.read_bytes().splitlines()) >= 8 and fake.in_flight >= 2
        ):
            assert proc.poll() is None, "the run ended before calls ran ahead"
            assert time.monotonic() < deadline, "no moment with calls running ahead"
            time.sleep(0.001)  # polling for the condition, not waiting a fixed time
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        seen: dict[str, list[bytes]] = {}
        check_run_dir(out, seen, final=False)
        asked_before = len(fake.requests)
        resumed = ideaco("run", "--resume", out, *flags)
        asked_after = len(fake.requests) - asked_before
    assert resumed.exit_code == 0, resumed.output
    logs = check_finished(out, seen, "2026-01-05T10:00:00")
    summary = json.loads((out / "summary.json").read_text())
    # The killed session's calls are not counted (it never finished): what its thoughts used is the
    # least it made; the resumed session's own are all counted.
    used = sum(t["llm"]["calls"] for t in logs["thoughts.jsonl"] if t.get("llm"))
    assert summary["calls"]["used"] == used <= summary["calls"]["made"]
    assert summary["calls"]["made"] >= asked_after > 0
    boss = [m["id"] for m in logs["messages.jsonl"] if m["sender"] == "boss"]
    assert len(boss) == len(set(boss)) > 0
