"""The task board end to end (issue 13): in a scripted `ideaco chat` the boss has work put on the
board, `/tasks` shows it claimable, then claimed, then released with its reason; the board
survives `ideaco run --resume` and a new chat session."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.test_chat import chat
from tests.cli.test_run import ideaco
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content

SCENARIO = """\
company: Acme Labs
duration: 30m
start: "2026-01-05T09:00:00"
departments:
  - {id: eng, name: Engineering, mission: Ship the launch, members: [alice, bob], lead: alice}
employees:
  - {id: alice, name: Alice, role: Lead engineer, archetype: old-hand}
  - {id: bob, name: Bob, role: Backend engineer, archetype: zen-slacker}
rooms:
  - {id: launch, name: Launch, kind: work, members: [alice, bob]}
"""


def answer(body: dict) -> dict:
    """Alice offers the checklist when asked; Bob claims what the board shows him, and gives it up
    when the boss says so; nobody says anything else."""
    who = re.search(r"You are (\w+)", body["messages"][0]["content"]).group(1)  # type: ignore[union-attr]
    text = last_user_content(body)
    ops: list[dict] = []
    if who == "Alice" and "put the launch checklist on the board" in text and "[task-" not in text:
        ops = [{"op": "offer", "description": "Launch checklist", "claimKey": "launch-checklist"}]
    elif who == "Bob" and "give the checklist back" in text and "[task-1]" in text:
        ops = [{"op": "release", "taskId": "task-1", "reason": "swamped with the API"}]
    elif who == "Bob" and "## Claimable tasks" in text and "give the checklist back" not in text:
        ops = [{"op": "create", "claimKey": "launch-checklist"}]
    return {
        "innerThoughts": f"{who} reads",
        "topicSaturation": 2,
        "interestLevel": 8,
        "shouldSpeak": bool(ops),
        "reason": "test",
        "messages": [{"content": f"{who}: on it"}] if ops else [],
        "taskOps": ops,
    }


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


def board_of(out: Path) -> dict:
    """state.json's task board, by task id."""
    [office] = json.loads((out / "state.json").read_text())["office"].values()
    return {o["id"]: o for o in office["board"]}


def test_offered_claimed_released_in_chat_and_kept_by_resume(fake, tmp_path: Path) -> None:
    scenario = tmp_path / "board.yaml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    lines = [
        "/dm alice",
        "Alice, please put the launch checklist on the board.",
        "/wait 1m",
        "/tasks",
        "/wait 5m",  # a zen slacker's first dibs come 216 s after the work went up
        "/tasks",
        "/dm bob",
        "Bob, give the checklist back, I need you on the API.",
        "/wait 1m",
        "/tasks",
        "/quit",
    ]
    result = chat(scenario, fake, lines, "--out", str(out))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert re.search(
        r"\[task-1\] nobody \(claimable\) · key launch-checklist · normal · \d+m\d\ds old · "
        r"Launch checklist · offered by alice · in launch",
        text,
    )
    assert re.search(r"\[task-1\] bob · key launch-checklist · pending · normal · \dm\d\ds old", text)
    assert re.search(
        r"\[task-1\] nobody \(claimable\) · key launch-checklist · .* · "
        r"released by bob: swamped with the API · in launch",
        text,
    )
    assert board_of(out)["task-1"]["reason"] == "swamped with the API"
    # The run goes on from the logs: the released work is still on the board (Bob put it there, so he
    # is not asked to claim it again, and Alice does not claim).
    resumed = ideaco("run", "--resume", out, "--duration", "5m", "--base-url", fake.base_url)
    assert resumed.exit_code == 0, resumed.output
    assert board_of(out)["task-1"]["offered_by"] == "bob"
    again = chat(out, fake, ["/tasks", "/quit"])
    assert again.returncode == 0, again.stderr
    assert "released by bob: swamped with the API" in again.stdout
