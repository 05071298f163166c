"""Holds end to end (issue 13): `/hold` and `/release` in a scripted `ideaco chat`, `@Name stop` in a
boss script line, and both surviving a new chat session and `ideaco run --resume`."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.test_chat import SCENARIO, chat, read_jsonl
from tests.cli.test_run import ideaco
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content


def answer(body: dict) -> dict:
    """Whoever has something new answers it."""
    who = re.search(r"You are (\w+)", body["messages"][0]["content"]).group(1)  # type: ignore[union-attr]
    new = "\n* [" in last_user_content(body) or "[system]" in last_user_content(body)
    return {
        "innerThoughts": f"{who} reads",
        "topicSaturation": 2,
        "interestLevel": 8,
        "shouldSpeak": new,
        "reason": "test",
        "messages": [{"content": f"{who} here"}] if new else [],
    }


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "holds.yaml"
    path.write_text(SCENARIO)
    return path


def thoughts_of(out: Path, employee: str) -> list[dict]:
    return [t for t in read_jsonl(out / "thoughts.jsonl") if t["employee"] == employee]


def desk_of(out: Path, employee: str) -> dict:
    state = json.loads((out / "state.json").read_text())
    docs = state["employees"].values() if isinstance(state["employees"], dict) else state["employees"]
    return next(d for d in docs if d["id"] == employee)["desk"]


def test_hold_and_release_in_chat_survive_a_new_session(fake, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    first = chat(
        scenario,
        fake,
        ["/hold alice too chatty today", "/who", "/room launch", "@Alice what is left?", "/wait 5m", "/quit"],
        "--out",
        str(out),
    )
    assert first.returncode == 0, first.stderr
    assert "Alice is on hold: no thinks until /release alice" in first.stdout
    assert re.search(
        r"^alice +Alice · .* on hold since 09:00:00: too chatty today \(/release alice\)", first.stdout, re.M
    )
    boss = [m for m in read_jsonl(out / "messages.jsonl") if m["sender"] == "boss"]
    assert (boss[0]["conversation"], boss[0]["text"]) == ("boss:alice", "@Alice stop: too chatty today")
    assert thoughts_of(out, "alice") == []  # mentioned, but held
    assert thoughts_of(out, "bob")  # the office goes on
    assert desk_of(out, "alice")["hold"] == {"since": "2026-01-05T09:00:00", "reason": "too chatty today"}
    shown = ideaco("inspect", out)
    assert "on hold: Alice (alice) since 09:00:00: too chatty today" in shown.output
    assert json.loads(ideaco("inspect", out, "--json").output)["holds"] == {
        "alice": {"since": "2026-01-05T09:00:00", "reason": "too chatty today"}
    }

    second = chat(out, fake, ["/who", "/release alice", "/release alice", "/wait 1m", "/quit"])
    assert second.returncode == 0, second.stderr
    assert "on hold since 09:00:00: too chatty today" in second.stdout  # still held after the reopen
    assert "Alice is back: what reached them meanwhile comes as one batch" in second.stdout
    assert "alice is not on hold" in second.stdout  # the second /release
    [back, *_] = thoughts_of(out, "alice")
    assert back["trigger"] == "boss"
    assert back["applied"]["began"]["notes"][0].startswith(
        "You were on hold since 09:00. While you were away: the boss mentioned you in Launch"
    )
    assert desk_of(out, "alice")["hold"] is None


def test_a_scripted_stop_holds_through_run_resume(fake, tmp_path) -> None:
    path = tmp_path / "stop.yaml"
    path.write_text(
        SCENARIO.replace("duration: 30m", "duration: 10m")
        + 'script:\n  - {at: "00:01", to: launch, text: "@Bob stop"}\n'
        + '  - {at: "00:02", to: launch, text: "@Bob @Alice status?"}\n'
        + '  - {at: "00:12", to: launch, text: "@Bob @Alice and now?"}\n'
    )
    out = tmp_path / "run"
    assert ideaco("run", path, "--out", out, "--base-url", fake.base_url).exit_code == 0
    assert desk_of(out, "bob")["hold"] == {"since": "2026-01-05T09:01:00", "reason": ""}
    held_at = "2026-01-05T09:01:00"
    assert all(t["at"] < held_at for t in thoughts_of(out, "bob"))
    result = ideaco("run", "--resume", out, "--duration", "10m", "--base-url", fake.base_url)
    assert result.exit_code == 0, result.output
    assert all(t["at"] < held_at for t in thoughts_of(out, "bob"))  # still held after the resume
    assert [t for t in thoughts_of(out, "alice") if t["at"] > "2026-01-05T09:10"]  # Alice went on
