"""Escalation end to end (issue 13): a room talks past its unanswered ceiling, its lead escalates, and
the boss sees a one-line notice in `ideaco chat`; a mention of an outsider is a hint; the stretch's
escalation is not owed again after the chat is reopened."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.test_chat import chat, read_jsonl
from tests.cli.test_run import ideaco
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content

SCENARIO = """\
company: Acme Labs
duration: 1h
start: "2026-01-05T09:00:00"
departments:
  - {id: eng, name: Engineering, mission: Ship it, members: [alice, bob, carol], lead: alice}
employees:
  - {id: alice, name: Alice, role: Lead engineer, archetype: old-hand}
  - {id: bob, name: Bob, role: Engineer, archetype: old-hand}
  - {id: carol, name: Carol, role: Engineer, archetype: old-hand}
  - {id: erin, name: Erin, role: Designer, archetype: warm-hearted}
"""


def answer(body: dict) -> dict:
    """Bob and Carol riff on anything new in the casual room (past their pair streak, on their own
    looks, up to the unanswered ceiling); Alice escalates when asked."""
    who = re.search(r"You are (\w+)", body["messages"][0]["content"]).group(1)  # type: ignore[union-attr]
    prompt = last_user_content(body)
    text = ""
    if "escalate here" in prompt:
        text = "Lunch has been debated for ages with no decision: can you pick?"
    elif who in ("Bob", "Carol") and "\n* [" in prompt and "Engineering casual" in prompt:
        text = f"{who}: pizza again? ({len(prompt)})"
    return {
        "innerThoughts": f"{who} reads",
        "topicSaturation": 2,
        "interestLevel": 8,
        "shouldSpeak": bool(text),
        "reason": "test",
        "messages": [{"content": text}] if text else [],
    }


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


def test_the_boss_sees_the_escalation_as_a_notice_and_it_is_not_owed_again(fake, tmp_path: Path) -> None:
    scenario = tmp_path / "esc.yaml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    first = chat(
        scenario,
        fake,
        ["/room eng-casual", "Lunch on Friday: where? @Erin too", "/wait 40m", "/quit"],
        "--out",
        str(out),
    )
    assert first.returncode == 0, first.stderr
    messages = read_jsonl(out / "messages.jsonl")
    [escalation] = [m for m in messages if m["kind"] == "escalation"]
    assert (escalation["sender"], escalation["conversation"]) == ("alice", "boss:alice")
    assert re.search(
        r"^\d\d:\d\d:\d\d ⚑ Alice escalates to you: Lunch has been debated .* \(/dm alice to answer\)$",
        first.stdout,
        re.M,
    )
    # Erin is not in the casual room: the boss is told, instead of the mention vanishing.
    assert "Erin is not in Engineering casual: your @Erin reached no one (/dm erin)" in first.stdout

    second = chat(out, fake, ["/wait 20m", "/quit"])
    assert second.returncode == 0, second.stderr
    assert [m["id"] for m in read_jsonl(out / "messages.jsonl") if m["kind"] == "escalation"] == [
        escalation["id"]
    ]
    resumed = ideaco("run", "--resume", out, "--duration", "10m", "--base-url", fake.base_url)
    assert resumed.exit_code == 0, resumed.output
    # The same stretch (no boss line since): still that one escalation.
    assert [m["id"] for m in read_jsonl(out / "messages.jsonl") if m["kind"] == "escalation"] == [
        escalation["id"]
    ]
