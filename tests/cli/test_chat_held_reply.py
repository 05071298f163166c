"""A held reply goes out when its gate reopens (issue 37, item 5), in the chat: the boss @-mentions
Alice twice within her cooldown; her second draft is held, `inspect` says when the gate reopens,
and her reply comes at that moment plus the typing pause (5-20 s), not at her next look."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.cli.test_chat import CLEAN_ENV, ROOT, SCENARIO, chat
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content
from tests.office.conftest import thought


def answer(body: dict) -> dict:
    """Alice answers each line that names her, keen (her own next look is minutes away)."""
    who = re.search(r"You are (\w+)", body["messages"][0]["content"]).group(1)  # type: ignore[union-attr]
    if who == "Alice" and "@Alice" in last_user_content(body):
        return thought(True, "Sure, I will take it.", interest=2, saturation=9)
    return thought()


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


def test_a_reply_held_by_the_cooldown_comes_when_it_reopens(fake, tmp_path: Path) -> None:
    scenario = tmp_path / "small.yaml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    lines = [
        "/room launch",
        "@Alice can you own the QA plan?",
        "/wait 30s",
        "@Alice and the notes?",
        "/wait 5m",
    ]
    result = chat(scenario, fake, [*lines, "/quit"], "--out", str(out))
    assert result.returncode == 0, result.stderr
    alice = [json.loads(t) for t in (out / "thoughts.jsonl").read_text().splitlines()]
    alice = [t for t in alice if t["employee"] == "alice"]
    held = next(i for i, t in enumerate(alice) if t["gate"] == "cooldown")
    [step] = [s for s in alice[held]["applied"]["steps"] if s["step"] == "draft" and s.get("reopens_at")]
    opens = datetime.fromisoformat(step["reopens_at"])
    reply = alice[held + 1]
    assert reply["spoke"] and reply["trigger"] == "boss"
    at = datetime.fromisoformat(reply["at"])
    assert opens + timedelta(seconds=5) <= at <= opens + timedelta(seconds=20)
    assert datetime.fromisoformat(alice[held]["next_look_at"]) > at + timedelta(minutes=1)  # not her look

    env = {k: v for k, v in __import__("os").environ.items() if k not in CLEAN_ENV} | {
        "PYTHONPATH": str(ROOT)
    }
    shown = subprocess.run(
        [sys.executable, "-m", "ideaco", "inspect", str(out), "--employee", "alice"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert f"reopens {opens:%H:%M:%S}" in shown.stdout, shown.stdout
