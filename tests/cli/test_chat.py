"""`ideaco chat` scripted through standard input, on the simulated clock, against the fake server."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from ideaco.cli.chat_commands import Command, CommandError, parse_line
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content

ROOT = Path(__file__).resolve().parents[2]
CLEAN_ENV = ("IDEACO_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "IDEACO_MODEL", "FORCE_COLOR")
# Markup rich would render, and an OSC sequence that would retitle the terminal.
HOSTILE = "[bold red]Alice here[/] on it"  # (a control character is refused: tests/faults/test_terminal.py)

SCENARIO = """\
company: Acme Labs
duration: 30m
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}
rooms:
  - {id: launch, name: Launch, kind: work, members: [alice, bob]}
"""


def answer(body: dict) -> dict:
    """Whoever the boss addressed answers (and remembers, rates Bob, takes a task); others stay quiet."""
    who = re.search(r"You are (\w+)", body["messages"][0]["content"]).group(1)  # type: ignore[union-attr]
    prompt = last_user_content(body)
    boss_unread = bool(re.search(r"^\* \[[\d:]+\] Boss \(BOSS\):", prompt, re.MULTILINE))
    speak = boss_unread and who == "Alice"
    return {
        "innerThoughts": f"{who} weighs what the boss wrote",
        "topicSaturation": 2,
        "interestLevel": 8,
        "shouldSpeak": speak,
        "reason": "the boss asked me" if speak else "nothing for me",
        "messages": [{"content": HOSTILE}] if speak else [],
        "memoryOps": [
            {
                "op": "add",
                "type": "long_term",
                "content": "The boss greeted me",
                "category": "fact",
                "importance": 6,
            }
        ]
        if speak
        else [],
        "relationshipOps": [
            {"employeeId": "bob", "name": "Bob", "impression": "a steady hand", "affinity": 60}
        ]
        if speak
        else [],
        "taskOps": [{"op": "create", "description": "Write the launch checklist", "type": "oneshot"}]
        if speak
        else [],
    }


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(SCENARIO)
    return path


def chat(source: Path, fake: FakeOpenAIServer, lines: list[str], *extra: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    env["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "ideaco", "chat", str(source), "--base-url", fake.base_url, *extra],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        env=env,
        cwd=source.parent,
        timeout=60,
    )


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# --- the command parser --------------------------------------------------------------------------


def test_a_plain_line_is_a_message_and_a_blank_line_nothing() -> None:
    assert parse_line("hello there\n") == "hello there"
    assert parse_line("   \n") is None
    assert parse_line("//etc/hosts is broken") == "/etc/hosts is broken"


def test_commands_parse_with_their_arguments() -> None:
    assert parse_line("/dm alice") == Command("dm", ("alice",))
    assert parse_line("  /ROOM launch ") == Command("room", ("launch",))
    assert parse_line("/tasks") == Command("tasks")
    assert parse_line("/tasks bob") == Command("tasks", ("bob",))
    assert parse_line("/mind alice 3") == Command("mind", ("alice", "3"))
    assert parse_line("/wait 1h30m") == Command("wait", ("1h30m",), timedelta(hours=1, minutes=30))
    assert parse_line("/exit") == Command("quit")


@pytest.mark.parametrize(
    ("line", "hint"),
    [
        ("/bogus", "unknown command /bogus"),
        ("/", "a command name must follow"),
        ("/dm", "usage: /dm ID"),
        ("/who alice", "usage: /who"),
        ("/mem alice bob", "usage: /mem ID"),
        ("/mind alice lots", "usage: /mind ID [N]"),
        ("/wait soon", "/wait: 'soon' is not a duration"),
        ("/wait 0s", "positive duration"),
        ("/bad\x1b]0;x\x07", "\\x1b"),
    ],
)
def test_bad_commands_are_one_line_hints(line: str, hint: str) -> None:
    with pytest.raises(CommandError) as caught:
        parse_line(line)
    assert hint in str(caught.value)
    assert "\n" not in str(caught.value) and "\x1b" not in str(caught.value)


# --- scripted sessions ---------------------------------------------------------------------------


def test_the_boss_writes_in_a_1_on_1_and_sees_the_answer_literally(fake, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    result = chat(scenario, fake, ["/dm alice", "hello", "/wait 2m", "/quit"], "--out", str(out))
    assert result.returncode == 0, result.stderr
    messages = read_jsonl(out / "messages.jsonl")
    assert messages[0] | {"at": None} == {
        "id": messages[0]["id"],
        "at": None,
        "conversation": "boss:alice",
        "sender": "boss",
        "text": "hello",
        "mentions": ["alice"],
        "kind": "chat",
    }
    assert messages[0]["at"] == "2026-01-05T09:00:00"  # posted at the current simulated moment
    reply = messages[1]
    assert reply["sender"] == "alice" and reply["conversation"] == "boss:alice" and reply["text"] == HOSTILE
    # The answer is printed, its markup and escape sequence literally; no ANSI at all in a pipe.
    assert "Alice: [bold red]Alice here[/] on it" in result.stdout
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["messages"] == 2 and summary["simulated_seconds"] >= 120
    assert "ideaco chat" in result.stdout.splitlines()[-1]


def test_a_second_session_continues_the_same_office(fake, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    first = chat(scenario, fake, ["/dm alice", "hello", "/wait 2m", "/quit"], "--out", str(out))
    assert first.returncode == 0, first.stderr
    before = read_jsonl(out / "messages.jsonl")
    second = chat(out, fake, ["/dm alice", "and now the checklist", "/wait 2m"])  # end of input = /quit
    assert second.returncode == 0, second.stderr
    assert "continuing Acme Labs" in second.stdout
    after = read_jsonl(out / "messages.jsonl")
    assert after[: len(before)] == before  # nothing rewritten
    assert len({m["id"] for m in after}) == len(after)  # no id handed out twice
    new = after[len(before) :]
    assert new[0]["sender"] == "boss" and new[0]["text"] == "and now the checklist"
    assert new[0]["conversation"] == "boss:alice" and new[0]["at"] >= before[-1]["at"]
    assert any(m["sender"] == "alice" for m in new[1:])  # the same Alice, still answering
    assert "Alice: [bold red]" in second.stdout


def test_every_command_answers_and_bad_ones_get_a_hint(fake, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    lines = [
        "/help",
        "/dm alice",
        "hello, how is Bob getting on?",
        "/wait 2m",
        "/who",
        "/tasks",
        "/tasks bob",
        "/mind alice",
        "/mem alice",
        "/rel alice",
        "/stamina alice",
        "/room launch",
        "morning, team",
        "/pause",
        "/wait 1m",
        "/resume",
        "/bogus",
        "/mem nobody",
        "/room nowhere",
        "/dm",
        "/quit",
        "never posted",
    ]
    result = chat(scenario, fake, lines, "--out", str(out))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "/mind ID [N]" in text  # /help
    assert re.search(r"^alice +Alice · Frontend engineer · green · idle · next look", text, re.MULTILINE)
    assert re.search(r"^bob +Bob · Backend engineer", text, re.MULTILINE)  # /who
    # /tasks: the board, every open task with its owner, claim key, urgency and age
    assert re.search(
        r"\[task-1\] alice · no key · pending · normal · \d+m\d\ds old · oneshot · Write the launch", text
    )
    assert "no tasks for bob" in text
    assert "Alice weighs what the boss wrote" in text and "why: the boss asked me" in text  # /mind
    assert "[mem-1] fact · importance 6 · The boss greeted me" in text  # /mem
    assert re.search(r"^bob +Bob · affinity 60 · a steady hand", text, re.MULTILINE)  # /rel
    assert "patience " in text and "comfort " in text  # /stamina
    assert "now writing in launch (Launch)" in text
    assert "paused at 09:02:00" in text and "the clock is paused: /resume first" in text
    assert "unknown command /bogus" in text
    assert "no employee 'nobody' (employees: alice, bob" in text
    assert "no room 'nowhere' (rooms: launch" in text and "usage: /dm ID" in text
    boss = [m for m in read_jsonl(out / "messages.jsonl") if m["sender"] == "boss"]
    assert [(m["conversation"], m["text"]) for m in boss] == [
        ("boss:alice", "hello, how is Bob getting on?"),
        ("launch", "morning, team"),
    ]


def test_a_bad_source_is_one_line_and_exit_2(fake, scenario, tmp_path) -> None:
    missing = chat(tmp_path / "nope.yaml", fake, ["/quit"])
    assert missing.returncode == 2 and missing.stderr.strip().count("\n") == 0
    assert "nope.yaml" in missing.stderr and "Traceback" not in missing.stderr
    out = tmp_path / "run"
    assert chat(scenario, fake, ["/quit"], "--out", str(out)).returncode == 0
    both = chat(out, fake, ["/quit"], "--out", str(tmp_path / "other"))
    assert both.returncode == 2 and "--out does not apply" in both.stderr
    assert not (tmp_path / "other").exists()
