"""`ideaco chat`'s organization commands: the boss runs the company without the model (issue 12).

`/department`, `/hire`, `/assign` and `/dismiss` call the secretary's tools directly, through the
same validation; the fake model only lets new hires introduce themselves.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ideaco.cli.chat_commands import Command, CommandError, parse_line
from ideaco.store.state import StateStore
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content

ROOT = Path(__file__).resolve().parents[2]
CLEAN_ENV = ("IDEACO_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "IDEACO_MODEL", "FORCE_COLOR")
GROW = [
    "/department Engineering Ship the product",
    "/hire Bob old-hand engineering Backend engineer",
    "/assign engineering Build Bob's login API",
    '/newroom "Launch pad" bob, secretary',
]


def answer(body: dict) -> dict:
    """A new hire introduces itself; everyone else (the secretary above all) stays quiet."""
    if "Introduce yourself" in last_user_content(body):
        return {
            "innerThoughts": "hello",
            "topicSaturation": 2,
            "interestLevel": 8,
            "shouldSpeak": True,
            "messages": [{"content": "Hi all, I'm Bob."}],
        }
    return {"innerThoughts": "nothing for me", "topicSaturation": 2, "interestLevel": 3, "shouldSpeak": False}


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


def command_line(out: Path, fake: FakeOpenAIServer) -> tuple[list[str], dict[str, str]]:
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    env["PYTHONPATH"] = str(ROOT)
    args = [sys.executable, "-m", "ideaco", "chat", "--base-url", fake.base_url]
    return args + (["--new", "Acme Robotics", "--out", str(out)] if not out.exists() else [str(out)]), env


def chat(out: Path, fake: FakeOpenAIServer, lines: list[str]) -> subprocess.CompletedProcess:
    """A scripted session: a new empty company at `out`, or the one already there continued."""
    args, env = command_line(out, fake)
    return subprocess.run(
        args,
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        env=env,
        cwd=out.parent,
        timeout=60,
    )


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def announcements(out: Path) -> list[str]:
    """The system lines the commands posted, as logged in messages.jsonl."""
    return [
        m["text"]
        for m in read_jsonl(out / "messages.jsonl")
        if m["sender"] == "system" and m["kind"] == "system" and m["conversation"] == "boss:secretary"
    ]


def state(out: Path) -> dict:
    return StateStore(out / "state.json").load()


# --- parsing -------------------------------------------------------------------------------------


def test_the_last_argument_is_the_rest_of_the_line_and_needs_no_quotes() -> None:
    assert parse_line("/hire Nora idealist design Product designer") == Command(
        "hire", ("Nora", "idealist", "design", "Product designer")
    )
    assert parse_line('/hire "Mary Ann" old-hand eng "Backend engineer"') == Command(
        "hire", ("Mary Ann", "old-hand", "eng", "Backend engineer")
    )
    assert parse_line("/assign eng Build Bob's login API") == Command(
        "assign", ("eng", "Build Bob's login API")
    )
    assert parse_line('/department "Human Resources" Keep people well') == Command(
        "department", ("Human Resources", "Keep people well")
    )
    assert parse_line("/department Design") == Command("department", ("Design",))
    assert parse_line("/dismiss Mary Ann") == Command("dismiss", ("Mary Ann",))
    assert parse_line('/newroom "Launch pad" bob, alice') == Command("newroom", ("Launch pad", "bob, alice"))


def test_help_flags_and_help_with_a_command_name_show_one_command() -> None:
    assert parse_line("/hire --help") == Command("help", ("hire",))
    assert parse_line("/department -h") == Command("help", ("department",))
    assert parse_line("/help assign") == Command("help", ("assign",))
    assert parse_line("/? /dismiss") == Command("help", ("dismiss",))
    assert parse_line("/who --help") == Command("help", ("who",))


@pytest.mark.parametrize(
    ("line", "hint"),
    [
        (
            "/hire Nora idealist design",
            "usage: /hire NAME ARCHETYPE DEPARTMENT ROLE... (/hire --help for more)",
        ),
        ("/assign eng", "usage: /assign TO DESCRIPTION... (/assign --help for more)"),
        ("/department", "usage: /department NAME [MISSION...]"),
        ("/dismiss", "usage: /dismiss EMPLOYEE"),
        ("/help bogus", "unknown command /bogus"),
    ],
)
def test_a_wrong_call_is_one_line_with_the_usage(line: str, hint: str) -> None:
    with pytest.raises(CommandError) as caught:
        parse_line(line)
    assert hint in str(caught.value) and "\n" not in str(caught.value)


# --- sessions ------------------------------------------------------------------------------------


def test_the_boss_grows_a_company_by_commands(fake, tmp_path) -> None:
    out = tmp_path / "acme"
    result = chat(out, fake, [*GROW, "/who", "/wait 1m", "/quit"])
    assert result.returncode == 0, result.stderr
    saved = state(out)
    [dept] = saved["office"]["organization"]["departments"]
    assert (dept["id"], dept["name"], dept["mission"], dept["lead"]) == (
        "engineering",
        "Engineering",
        "Ship the product",
        "bob",
    )
    bob = next(e for e in saved["employees"] if e["id"] == "bob")
    assert bob["persona"]["id"] == "old-hand" and bob["role"] == "Backend engineer"
    [task] = bob["mind"]["tasks"]
    assert task["description"] == "Build Bob's login API" and task["origin"] == "boss"
    rooms = {c["id"]: c for c in saved["conversations"]}
    assert rooms["engineering-casual"]["members"] == ["bob"] and rooms["req-1"]["members"] == ["bob"]
    assert rooms["launch-pad"]["members"] == ["bob", "secretary"] and rooms["launch-pad"]["kind"] == "work"
    # The trace: one system line per command in the secretary's boss chat, with the tool's words.
    assert announcements(out) == [
        "Done by the boss (/department): create_department: department engineering (Engineering) created "
        "with its casual room engineering-casual",
        "Done by the boss (/hire): hire_employee: hired Bob (bob), Backend engineer, old-hand, in engineering "
        "and leads it",
        "Done by the boss (/assign): assign_requirement: requirement task-1 handed to engineering's lead Bob "
        "(bob), in the new work room req-1",
        "Done by the boss (/newroom): create_room: room launch-pad (Launch pad, work) opened for bob, secretary",
    ]
    assert "system: Done by the boss (/hire): hire_employee: hired Bob (bob)" in result.stdout
    assert re.search(r"^bob +Bob · Backend engineer · green", result.stdout, re.MULTILINE)  # /who
    assert "department engineering Engineering · led by bob · bob" in result.stdout
    # The hire's own thinks still happen: Bob introduces himself in his department's room.
    messages = read_jsonl(out / "messages.jsonl")
    assert any(m["sender"] == "bob" and m["conversation"] == "engineering-casual" for m in messages)
    # The secretary was not woken for the commands (nothing owed, no think for them).
    thoughts = read_jsonl(out / "thoughts.jsonl")
    assert not [t for t in thoughts if t["employee"] == "secretary" and t["trigger"] != "timer"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["messages_by_sender"]["system"] == 4


def test_a_command_is_saved_at_once_and_survives_a_kill(fake, tmp_path) -> None:
    out = tmp_path / "acme"
    args, env = command_line(out, fake)
    process = subprocess.Popen(
        args,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:
        assert process.stdin is not None
        process.stdin.write("".join(line + "\n" for line in GROW[:2]))
        process.stdin.flush()  # and left open: the chat waits for the next line
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if (out / "messages.jsonl").exists() and len(announcements(out)) == 2:
                if any(e["id"] == "bob" for e in state(out)["employees"]):
                    break
            time.sleep(0.1)
        else:
            pytest.fail("the commands never reached state.json and messages.jsonl")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    result = chat(out, fake, ["/who", "/dismiss Bob", "/quit"])
    assert result.returncode == 0, result.stderr
    assert re.search(r"^bob +Bob · Backend engineer", result.stdout, re.MULTILINE)
    assert "department engineering Engineering · led by bob · bob" in result.stdout
    saved = state(out)
    bob = next(e for e in saved["employees"] if e["id"] == "bob")
    assert bob["dismissed"] and saved["office"]["organization"]["departments"][0]["lead"] is None
    texts = announcements(out)
    assert len(texts) == 3 and texts[-1].startswith(
        "Done by the boss (/dismiss): dismiss_employee: Bob (bob)"
    )
    ids = [m["id"] for m in read_jsonl(out / "messages.jsonl")]
    assert len(ids) == len(set(ids))


def test_refusals_are_the_tools_reasons_in_one_line_and_change_nothing(fake, tmp_path) -> None:
    out = tmp_path / "acme"
    refused = {
        "/hire Ann idealist sales Designer": "hire_employee: refused: unknown department 'sales' "
        "(departments: none yet)",
        "/department engineering": "create_department: refused: department 'engineering' already exists",
        "/hire Ann wizard engineering Designer": "hire_employee: refused: unknown archetype 'wizard' "
        "(one of: shy-introvert, chatterbox,",
        "/hire Ann idealist Sales Designer": "hire_employee: refused: unknown department 'Sales' "
        "(departments: engineering (Engineering))",
        "/assign engineering Build it": "assign_requirement: refused: department engineering has nobody yet",
        "/hire ann old-hand engineering Tester": "hire_employee: refused: Ann (ann) already works here",
        "/assign nobody Build it": "assign_requirement: refused: unknown employee 'nobody'",
        "/dismiss secretary": "dismiss_employee: refused: the secretary cannot dismiss itself",
        "/dismiss nobody": "dismiss_employee: refused: unknown employee 'nobody'",
        "/newroom Launch ann nobody": "create_room: refused: unknown employee 'nobody'",
        "/hire Ann": "usage: /hire NAME ARCHETYPE DEPARTMENT ROLE...",
    }
    lines = [*list(refused)[:1], "/department Engineering", *list(refused)[1:5]]
    lines += ["/hire Ann idealist engineering Designer", *list(refused)[5:], "/who", "/quit"]
    result = chat(out, fake, lines)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    shown = result.stdout.splitlines()
    for line, reason in refused.items():
        assert sum(1 for s in shown if s.startswith(reason)) == 1, (line, reason)
    assert any(
        s.startswith(refused["/hire Ann wizard engineering Designer"]) and "idealist)" in s for s in shown
    )
    # Nothing lost: what was done before and after the refusals stands, and only that.
    assert [t.split(":")[1].strip() for t in announcements(out)] == ["create_department", "hire_employee"]
    saved = state(out)
    assert sorted(e["id"] for e in saved["employees"]) == ["ann", "secretary"]
    assert "launch" not in {c["id"] for c in saved["conversations"]}
    assert [d["id"] for d in saved["office"]["organization"]["departments"]] == ["engineering"]
    assert re.search(r"^ann +Ann · Designer · green", result.stdout, re.MULTILINE)


def test_each_command_explains_itself(fake, tmp_path) -> None:
    out = tmp_path / "acme"
    lines = ["/help", "/department Engineering", "/hire --help", "/department -h", "/assign --help"]
    lines += ["/help dismiss", "/newroom -h", "/quit"]
    result = chat(out, fake, lines)
    assert result.returncode == 0, result.stderr
    text = result.stdout
    for usage in (
        "/department NAME [MISSION...]",
        "/hire NAME ARCHETYPE DEPARTMENT ROLE...",
        "/assign TO DESCRIPTION...",
        "/dismiss EMPLOYEE",
        "/newroom NAME MEMBER...",
    ):
        assert re.search(rf"^  {re.escape(usage)}( +\S.*)?$", text, re.MULTILINE), usage  # in /help's list
        assert re.search(rf"^{re.escape(usage)}  \S", text, re.MULTILINE), usage  # its own --help
    assert re.search(r"^  ROLE\.\.\. +the rest of the line", text, re.MULTILINE)
    assert "e.g. /hire Bob old-hand engineering Backend engineer" in text
    assert "calls the secretary's tool hire_employee, with the same checks" in text
    assert "archetypes: shy-introvert, chatterbox," in text and "old-hand, idealist" in text
    assert "departments: engineering (Engineering)" in text
    assert "departments so far: engineering (Engineering)" in text
    assert "employees: none" in text  # /help dismiss: nobody to dismiss but the secretary
    assert "rooms so far: engineering-casual" in text  # /newroom -h


def test_the_boss_forms_a_team_with_a_command(fake, tmp_path) -> None:
    out = tmp_path / "acme"
    lines = [*GROW[:2], "/hire Ann idealist engineering Tester", '/team engineering "Payments squad" bob ann']
    result = chat(out, fake, [*lines, "/who", "/quit"])
    assert result.returncode == 0, result.stderr
    [dept] = state(out)["office"]["organization"]["departments"]
    assert dept["teams"] == [
        {"id": "payments-squad", "name": "Payments squad", "members": ["bob", "ann"], "lead": "bob"}
    ]
    rooms = {c["id"]: c for c in state(out)["conversations"]}
    assert rooms["payments-squad"]["members"] == ["bob", "ann"] and rooms["payments-squad"]["kind"] == "work"
    assert announcements(out)[-1] == (
        "Done by the boss (/team): create_team: team payments-squad (Payments squad) in engineering with bob, "
        "ann, its work room payments-squad"
    )
    assert "team payments-squad Payments squad · bob, ann" in result.stdout  # /who
    assert parse_line('/team eng "Web team" bob, ann') == Command("team", ("eng", "Web team", "bob, ann"))


def test_a_name_of_several_words_without_quotes_is_told_how_to_quote_it(fake, tmp_path) -> None:
    out = tmp_path / "acme"
    hires = [
        "/department Engineering",
        *(f"/hire {n} idealist engineering Engineer" for n in ("Dan", "Bob", "Zoe")),
    ]
    lines = [
        *hires,
        "/newroom Sync war room dan bob zoe",
        "/team engineering Payments squad bob, zoe",
        "/newroom Launch dan nobody",  # a real unknown employee after a known one: no hint
        '/newroom "Sync war room" dan bob zoe',
        "/quit",
    ]
    result = chat(out, fake, lines)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    shown = result.stdout.splitlines()
    assert (
        "create_room: refused: unknown employee 'war' (a name of several words goes in quotes: "
        '/newroom "Sync war room" dan bob zoe)' in shown
    )
    assert (
        "create_team: refused: unknown employee 'squad' (a name of several words goes in quotes: "
        '/team engineering "Payments squad" bob zoe)' in shown
    )
    assert "create_room: refused: unknown employee 'nobody'" in shown
    rooms = {c["id"]: c for c in state(out)["conversations"]}
    assert rooms["sync-war-room"]["name"] == "Sync war room"
    assert rooms["sync-war-room"]["members"] == ["dan", "bob", "zoe"]
    assert "launch" not in rooms and "payments" not in rooms
