"""Early calls through the CLI (issue 19): a recording keeps only the answers the run used, so its
replay needs no model and, one call at a time, gives the very same run; summary.json and the
closing line say what was made, used and dropped."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fakes.openai_server import FakeOpenAIServer, Reply
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
    assert calls["made"] == served > calls["used"]  # what was dropped was paid for, and counted
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
