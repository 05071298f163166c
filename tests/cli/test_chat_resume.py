"""`ideaco chat RUNDIR` again: the last chat's speed and conversation come back, with a recap."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ideaco.cli.display import safe_text
from tests.cli.test_chat import SCENARIO, answer, chat, read_jsonl
from tests.fakes.openai_server import FakeOpenAIServer


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


def _chat(run: Path) -> dict:
    """office.chat from state.json (a TinyDB file: tables of documents)."""
    state = json.loads((run / "state.json").read_text())
    for doc in state["office"].values():
        if isinstance(doc, dict) and "chat" in doc:
            return doc["chat"]
    raise AssertionError("no chat settings saved")


def test_a_continued_chat_has_the_last_speed_conversation_and_a_recap(fake, tmp_path):
    (tmp_path / "small.yaml").write_text(SCENARIO)
    out = tmp_path / "run"
    first = chat(
        tmp_path / "small.yaml", fake, ["/dm alice", "hello", "/wait 2m"], "--out", str(out), "--speed", "4"
    )
    assert first.returncode == 0, first.stderr
    assert _chat(out) == {"speed": 4.0, "conversation": "boss:alice"}
    said = [m for m in read_jsonl(out / "messages.jsonl") if m["conversation"] == "boss:alice"]

    second = chat(out, fake, ["and a plain line goes where we left off"])
    assert second.returncode == 0, second.stderr
    recap = second.stdout.split("continuing Acme Labs", 1)[1]
    assert f"the last {min(5, len(said))} message(s) in boss:alice:" in recap
    assert safe_text(said[-1]["text"]) in recap  # agent text shown literally, escapes made visible
    last = read_jsonl(out / "messages.jsonl")[-len(said) - 5 :]
    line = next(m for m in last if m["text"] == "and a plain line goes where we left off")
    assert line["conversation"] == "boss:alice"
    assert _chat(out)["speed"] == 4.0  # not given again: the last chat's kept
