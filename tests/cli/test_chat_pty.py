"""`ideaco chat` at a real terminal (a pty), on the real clock: typing is never broken by arrivals.

The office chatters on its own while a line is typed one character at a time; at least one agent
message must be printed while the line is still being edited, and the line, once Enter is
pressed, must reach messages.jsonl exactly as typed.
"""

from __future__ import annotations

import fcntl
import itertools
import json
import os
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, last_user_content

try:
    import pty  # noqa: F401 - only to know whether this platform has pseudo-terminals

    _master, _slave = os.openpty()
    os.close(_master)
    os.close(_slave)
    NO_PTY = ""
except (ImportError, OSError) as exc:  # pragma: no cover - platform dependent
    NO_PTY = f"no pseudo-terminal available here ({exc})"

pytestmark = pytest.mark.skipif(bool(NO_PTY), reason=NO_PTY or "pty available")

ROOT = Path(__file__).resolve().parents[2]
CLEAN_ENV = (
    "IDEACO_BASE_URL",
    "OPENAI_BASE_URL",
    "OPENAI_API_KEY",
    "IDEACO_MODEL",
    "FORCE_COLOR",
    "NO_COLOR",
)
ANSI = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[@-Z\\-_])")
TYPED = "Ship on Friday, but only if QA signs off [for real] :)"
MARK = "chatter-"  # in every agent message; never in what the test types

SCENARIO = """\
company: Acme Labs
duration: 1h
start: "2026-01-05T09:00:00"
departments:
  - {id: eng, name: Engineering, members: [alice, bob, carol]}
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: chatterbox}
  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}
  - {id: carol, name: Carol, role: QA engineer, archetype: warm-hearted}
rooms:
  - {id: launch, name: Launch, kind: work, members: [alice, bob, carol]}
script:
  - {at: "00:00", to: launch, text: "@all how is the launch going?"}
  - {at: "00:00", to: eng-casual, text: "@all what did everyone do this weekend?"}
"""


def chatty() -> object:
    """Everyone speaks whenever something is unread, with a fresh line each time."""
    serial = itertools.count(1)

    def answer(body: dict) -> dict:
        speak = "\n* [" in last_user_content(body)
        return {
            "innerThoughts": "keep talking",
            "topicSaturation": 1,
            "interestLevel": 10,
            "shouldSpeak": speak,
            "reason": "chatty",
            "messages": [{"content": f"{MARK}{next(serial)} still going"}] if speak else [],
        }

    return answer


class Terminal:
    """A child process on a pty; everything it prints is kept in `output`."""

    def __init__(self, args: list[str], env: dict[str, str], cwd: Path) -> None:
        self.master, slave = os.openpty()
        # Wide enough that no line wraps; prompt_toolkit reads the size from the terminal.
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 250, 0, 0))
        self.proc = subprocess.Popen(
            args, stdin=slave, stdout=slave, stderr=slave, env=env, cwd=cwd, start_new_session=True
        )
        os.close(slave)
        self.raw = b""

    @property
    def output(self) -> str:
        return ANSI.sub("", self.raw.decode("utf-8", "replace"))

    def read(self, timeout: float) -> bool:
        """Read what is there within `timeout`; False once the child closed the terminal."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: the child is gone
            return False
        self.raw += chunk
        return bool(chunk)

    def wait_for(self, predicate, deadline_s: float, what: str) -> None:
        deadline = time.monotonic() + deadline_s
        while not predicate():
            assert time.monotonic() < deadline, (
                f"timed out waiting for {what}; output:\n{self.output[-3000:]}"
            )
            if not self.read(0.05):
                assert predicate(), f"the chat ended before {what}; output:\n{self.output[-3000:]}"

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        os.close(self.master)


def boss_lines(run: Path) -> list[dict]:
    path = run / "messages.jsonl"
    if not path.exists():
        return []
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return [r for r in records if r["sender"] == "boss" and not r["id"].startswith("script-")]


def test_typing_is_never_broken_by_arriving_messages(tmp_path: Path) -> None:
    scenario = tmp_path / "office.yaml"
    scenario.write_text(SCENARIO)
    run = tmp_path / "run"
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    # A terminal that answers no cursor-position requests: tell prompt_toolkit not to ask.
    env.update(PYTHONPATH=str(ROOT), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    with FakeOpenAIServer(handler=chatty()) as fake:
        args = [sys.executable, "-m", "ideaco", "chat", str(scenario), "--base-url", fake.base_url]
        term = Terminal([*args, "--out", str(run), "--speed", "50"], env, tmp_path)
        try:
            term.wait_for(lambda: "[boss:secretary] boss>" in term.output, 20, "the prompt")
            typing_started = len(term.output)
            half = len(TYPED) // 2
            for char in TYPED[:half]:  # one key at a time, reading what arrives between keys
                term.type(char)
                term.read(0.05)
            # Half a line typed: wait until the office speaks over it, then finish the line.
            term.wait_for(lambda: MARK in term.output[typing_started:], 20, "an agent message while typing")
            arrived = term.output.index(MARK, typing_started)
            # The message went above the prompt, which was redrawn with the half line intact.
            term.wait_for(
                lambda: f"[boss:secretary] boss> {TYPED[:half]}" in term.output[arrived:],
                10,
                "the prompt redrawn",
            )
            for char in TYPED[half:]:
                term.type(char)
                term.read(0.05)
            # Echoed key by key, or (on a busy machine) redrawn whole with cursor moves for spaces.
            term.wait_for(
                lambda: TYPED.replace(" ", "") in term.output[arrived:].replace(" ", ""),
                10,
                "the rest of the line echoed",
            )
            assert boss_lines(run) == []  # nothing was sent before Enter
            entered = len(term.output)
            term.type("\r")
            term.wait_for(lambda: boss_lines(run), 10, "the typed line in messages.jsonl")
            term.wait_for(lambda: "Boss" in term.output[entered:], 10, "the boss's line in the transcript")
            term.read(0.5)
            # Once: the transcript's line; the prompt that held it while typed is erased on Enter.
            assert ANSI.sub("", term.output[entered:]).count(TYPED) == 1, term.output[entered:]
            assert [(m["conversation"], m["text"]) for m in boss_lines(run)] == [("boss:secretary", TYPED)]
            term.type("/quit\r")
            deadline = time.monotonic() + 20
            while term.read(0.05):  # until the chat closes the terminal
                assert time.monotonic() < deadline, f"the chat did not end; output:\n{term.output[-3000:]}"
            term.proc.wait(timeout=10)
        finally:
            term.close()
    assert term.proc.returncode == 0, term.output[-3000:]
    assert "Continue with: ideaco chat" in term.output
    assert (run / "summary.json").exists()


def test_a_model_slower_than_the_clock_gets_one_status_line(tmp_path: Path) -> None:
    """Issue 29, item 7: at --speed 50 a model that takes 4 s an answer is minutes behind the
    clock; the chat says so in one status line instead of leaving the boss's line unanswered."""
    from tests.fakes.openai_server import Reply

    scenario = tmp_path / "office.yaml"
    scenario.write_text(SCENARIO)
    run = tmp_path / "run"
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    env.update(PYTHONPATH=str(ROOT), TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    slow = chatty()

    def answer(body: dict) -> Reply:
        return Reply(json.dumps(slow(body)), delay=4.0)

    with FakeOpenAIServer(handler=answer) as fake:
        args = [sys.executable, "-m", "ideaco", "chat", str(scenario), "--base-url", fake.base_url]
        term = Terminal([*args, "--out", str(run), "--speed", "50"], env, tmp_path)
        try:
            term.wait_for(lambda: "boss>" in term.output, 20, "the prompt")
            term.wait_for(lambda: "the model is behind" in term.output, 30, "the status line")
            line = next(ln for ln in term.output.splitlines() if "the model is behind" in ln)
            assert "late in simulated time" in line and "50x real time" in line
            term.type("/quit\r")
            deadline = time.monotonic() + 30
            while term.read(0.05):
                assert time.monotonic() < deadline, f"the chat did not end; output:\n{term.output[-3000:]}"
            term.proc.wait(timeout=10)
        finally:
            term.close()
    assert term.proc.returncode == 0, term.output[-3000:]
