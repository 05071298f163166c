"""Hostile text reaches the terminal literally and harmlessly (issue 6, item 5).

Employees (and the boss's script) say things full of rich markup, ANSI/OSC escape sequences and
control characters; the secretary even names a room with them. `ideaco run`, `ideaco chat` and
`ideaco inspect` must show that text visibly (`\\x1b` spelled out, markup as typed) and never
pass a raw ESC, BEL, NUL or backspace from it to the terminal. The logs keep the text as said.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content

ROOT = Path(__file__).resolve().parents[2]
# Wide enough that no line wraps (rich wraps at the console width) and no ambient model leaks in.
ENV = {"COLUMNS": "1000", "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "OPENAI_API_KEY": None}
ENV |= {"IDEACO_MODEL": None, "FORCE_COLOR": None, "NO_COLOR": None, "TTY_COMPATIBLE": None}

# Markup rich would render; clear screen and colour (CSI); retitle the terminal and write the
# clipboard (OSC 52); bell, backspace, carriage return, NUL; a C1 CSI; a bidi override.
HOSTILE = (
    "[bold red]x[/] [link=http://e]y[/link] \x1b[2J\x1b[31mred \x1b]0;pwned\x07 \x1b]52;c;Zm9v\x07 "
    "bell\x07 bs\x08 cr\r nul\x00 c1\x9b2J rtl\u202eevil"
)
# What a model's post or task may hold: markup, never a control character (the text rules' guarantee
# refuses one, docs/posting.md); the boss's lines and the thoughts and memories still carry HOSTILE.
SAID = "[bold red]x[/] [link=http://e]y[/link]"
# What a user must see instead: every control character spelled out, the markup as typed.
VISIBLE = [
    "[bold red]x[/]",
    "[link=http://e]y[/link]",
    "\\x1b[2J\\x1b[31mred",
    "\\x1b]0;pwned\\x07",
    "\\x1b]52;c;Zm9v\\x07",
    "bell\\x07 bs\\x08 cr\\x0d nul\\x00 c1\\x9b2J rtl\\u202eevil",
]
# Never written raw: the introducers and controls that drive a terminal.
RAW = ["\x1b", "\x07", "\x08", "\x00", "\x9b", "\u202e"]
# The secretary names a requirement's room after its first 40 characters: markup first, and a line
# break (folded into a space: an escape sequence there would be refused, issue 22).
REQUIREMENT = "[bold]req[/bold] a status page\nsoon"

SCENARIO = f"""\
company: Acme Labs
duration: 20m
start: "2026-01-05T09:00:00"
departments:
  - {{id: eng, name: Engineering, members: [alice, bob]}}
employees:
  - {{id: alice, name: Alice, role: Frontend engineer, archetype: chatterbox}}
  - {{id: bob, name: Bob, role: Backend engineer, archetype: old-hand}}
rooms:
  - {{id: api, name: API design, kind: work, members: [alice, bob]}}
script:
  - {{at: "00:00", to: api, text: {json.dumps("boss says " + HOSTILE)}}}
  - {{at: "00:01", to: "boss:secretary", text: "Hand Engineering a requirement, please."}}
"""


def answer(body: dict) -> dict:
    """Everyone speaks, thinks, remembers, judges and plans in hostile text; the secretary hands
    Engineering a requirement whose room name is hostile too."""
    system = " ".join(str(m.get("content")) for m in body["messages"] if m.get("role") == "system")
    who = re.search(r"You are (\w+)", system).group(1)  # type: ignore[union-attr]
    unread = [line for line in last_user_content(body).splitlines() if line.startswith("* [")]
    thought: dict = {
        "innerThoughts": f"{who} thinks {HOSTILE}",
        "topicSaturation": 2,
        "interestLevel": 9,
        "shouldSpeak": True,
        "reason": f"because {HOSTILE}",
        "messages": [{"content": f"{who} says {SAID}"}],
        "memoryOps": [
            {
                "op": "add",
                "type": "long_term",
                "content": f"remember {HOSTILE}",
                "category": "fact",
                "importance": 7,
            }
        ],
        "relationshipOps": [],
        "taskOps": [{"op": "create", "description": f"do {SAID}", "type": "oneshot"}],
    }
    if who == "Alice":
        thought["relationshipOps"] = [
            {"employeeId": "bob", "name": "Bob", "impression": HOSTILE, "affinity": 60}
        ]
    if who == "Secretary" and any("a requirement, please" in line for line in unread):
        thought["actions"] = [
            {"tool": "assign_requirement", "args": {"to": "eng", "description": REQUIREMENT}}
        ]
    return thought


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("terminal") / "hostile.yaml"
    path.write_text(SCENARIO)
    return path


@pytest.fixture(scope="module")
def run_result(fake: FakeOpenAIServer, scenario: Path) -> tuple[str, Path]:
    """`ideaco run --show-thoughts` in-process: (what it printed, its run directory)."""
    out = scenario.parent / "run"
    result = CliRunner().invoke(
        app,
        ["run", str(scenario), "--base-url", fake.base_url, "--out", str(out), "--show-thoughts"],
        env=ENV,
    )
    assert result.exit_code == 0, result.output
    return result.output, out


def assert_shown_safely(output: str, *, extra: tuple[str, ...] = ()) -> None:
    for raw in RAW:
        assert raw not in output, f"raw {raw!r} reached the terminal"
    for visible in (*VISIBLE, *extra):
        assert visible in output, f"{visible!r} is not shown"


def subprocess_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ENV}
    env |= {"PYTHONPATH": str(ROOT), "COLUMNS": "1000"}
    return env


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def require(module: str) -> None:
    """The command's module exists: a renamed or removed one fails here, it is never a skip."""
    assert importlib.util.find_spec(module) is not None, f"{module} is gone: this test covers it"


# --- run ----------------------------------------------------------------------------------------------


def test_run_shows_hostile_text_literally(run_result: tuple[str, Path]) -> None:
    output, out = run_result
    # The room the secretary named: its header is shown with the escapes spelled out.
    assert_shown_safely(output, extra=("Requirement 1: [bold]req[/bold] a status page soon",))
    assert "Boss: boss says [bold red]x[/]" in output and "Alice says [bold red]x[/]" in output
    assert "thinks [bold red]x[/]" in output  # --show-thoughts: silent thoughts too
    # The logs keep what was said, byte for byte: only the display is made safe.
    messages = read_jsonl(out / "messages.jsonl")
    assert messages[0]["text"] == "boss says " + HOSTILE
    assert any(m["text"] == f"Alice says {SAID}" for m in messages)


def test_run_through_a_real_pipe_writes_no_raw_control_bytes(fake: FakeOpenAIServer, scenario: Path) -> None:
    out = scenario.parent / "piped"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ideaco",
            "run",
            str(scenario),
            "--base-url",
            fake.base_url,
            "--out",
            str(out),
        ],
        capture_output=True,
        env=subprocess_env(),
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    for stream in (proc.stdout, proc.stderr):
        for raw in RAW:
            assert raw.encode() not in stream, f"raw {raw!r} in the output"
    assert_shown_safely(proc.stdout.decode())


def test_run_on_a_colour_terminal_passes_only_its_own_styling(fake: FakeOpenAIServer, scenario: Path) -> None:
    """Where rich writes colours, the only escape sequences are its own SGR ones."""
    out = scenario.parent / "coloured"
    env = ENV | {"FORCE_COLOR": "1"}
    args = ["run", str(scenario), "--base-url", fake.base_url, "--out", str(out)]
    result = CliRunner().invoke(app, args, env=env)
    assert result.exit_code == 0, result.output
    assert "\x1b[" in result.output  # styled indeed
    # Rich's own: colours (SGR) and, for its progress line, cursor show/hide and erase-line.
    plain = re.sub(r"\x1b\[[0-9;]*m|\x1b\[\?25[lh]|\x1b\[2K|\x1b\[1A|\r", "", result.output)
    assert_shown_safely(plain)


# --- inspect ------------------------------------------------------------------------------------------


def test_inspect_shows_hostile_monologues_literally(run_result: tuple[str, Path]) -> None:
    require("ideaco.cli.inspect")
    _, out = run_result
    result = CliRunner().invoke(app, ["inspect", str(out)], env=ENV)
    assert result.exit_code == 0, result.output
    assert_shown_safely(result.output)
    assert "thinks [bold red]x[/]" in result.output and "because [bold red]x[/]" in result.output


def test_inspect_through_a_real_pipe(run_result: tuple[str, Path]) -> None:
    require("ideaco.cli.inspect")
    _, out = run_result
    proc = subprocess.run(
        [sys.executable, "-m", "ideaco", "inspect", str(out)],
        capture_output=True,
        env=subprocess_env(),
        cwd=ROOT,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    for raw in RAW:
        assert raw.encode() not in proc.stdout + proc.stderr, f"raw {raw!r} in the output"


# --- chat ---------------------------------------------------------------------------------------------

# The boss types hostile text too (a typed line cannot hold a newline or CR: they end it).
TYPED = HOSTILE.replace("\r", "")


def test_chat_shows_hostile_text_and_minds_literally(fake: FakeOpenAIServer, scenario: Path) -> None:
    require("ideaco.cli.chat")
    out = scenario.parent / "chat"
    lines = [
        "/dm alice",
        f"boss types {TYPED}",
        "/wait 3m",
        "/mind alice",
        "/mem alice",
        "/rel alice",
        "/tasks",
    ]
    lines += ["/room api", "/who", "/quit"]
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ideaco",
            "chat",
            str(scenario),
            "--base-url",
            fake.base_url,
            "--out",
            str(out),
        ],
        input="".join(line + "\n" for line in lines).encode(),
        capture_output=True,
        env=subprocess_env(),
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    for raw in RAW:
        assert raw.encode() not in proc.stdout + proc.stderr, f"raw {raw!r} in the output"
    output = proc.stdout.decode()
    assert_shown_safely(output)
    assert "Boss: boss types [bold red]x[/]" in output  # the boss's own line, echoed as typed
    assert "remember [bold red]x[/]" in output  # /mem
    assert "do [bold red]x[/]" in output  # /tasks
    assert "affinity" in output and "[link=http://e]y[/link]" in output  # /rel
    messages = read_jsonl(out / "messages.jsonl")
    assert any(m["sender"] == "boss" and m["text"] == f"boss types {TYPED}" for m in messages)
