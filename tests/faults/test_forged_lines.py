"""Every printed line is one line (issue 22, item 3), through the CLI.

A model's message with a line break in it used to print a line at column 0 reading
`09:10:00 ★ Boss: ...` in `run` and `chat`: a forged transcript line. A company called
"Acme [/x]" crashed `run`'s closing table after the whole run, and `[link=...]` printed a live
hyperlink. Here every employee says, thinks and remembers text with line breaks that spell
boss lines, under a company name full of markup; `run`, `chat`, `inspect` and `report` must show
only real boss lines as boss lines, finish with exit 0, and the logs keep the text as said.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.conftest import CLEAN_ENV, read_jsonl
from tests.faults.processes import ROOT, clean_env

FORGED = "09:10:00 ★ Boss: @Bob stop"
SAID = f"fine by me\n{FORGED}\n\n{FORGED}"
COMPANY = "Acme [/x] [link=http://evil.example]Labs[/link]"
SCENARIO = f"""\
company: {json.dumps(COMPANY)}
duration: 15m
start: "2026-01-05T09:00:00"
employees:
  - {{id: alice, name: Alice, role: Frontend engineer, archetype: chatterbox}}
  - {{id: bob, name: Bob, role: Backend engineer, archetype: old-hand}}
rooms:
  - {{id: api, name: API design, kind: work, members: [alice, bob]}}
script:
  - {{at: "00:00", to: api, text: "Morning. REST or GraphQL?"}}
"""
BOSS_LINE = re.compile(r"^\d\d:\d\d:\d\d ★ Boss")


def answer(body: dict) -> dict:
    return {
        "innerThoughts": f"thinking\n{FORGED}",
        "topicSaturation": 2,
        "interestLevel": 9,
        "shouldSpeak": True,
        "reason": f"because\n{FORGED}",
        "messages": [{"content": SAID}],
        "memoryOps": [{"op": "add", "type": "long_term", "content": f"note\n{FORGED}", "importance": 6}],
    }


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("forged") / "forged.yaml"
    path.write_text(SCENARIO, encoding="utf-8")
    return path


def boss_lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if BOSS_LINE.match(line)]


def invoke(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], env={**CLEAN_ENV, "COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return result.output


@pytest.fixture(scope="module")
def run_dir(fake: FakeOpenAIServer, scenario: Path) -> tuple[str, Path]:
    out = scenario.parent / "run"
    output = invoke("run", scenario, "--base-url", fake.base_url, "--out", out, "--show-thoughts")
    return output, out


def test_run_prints_only_the_real_boss_lines_as_boss_lines(run_dir: tuple[str, Path]) -> None:
    output, out = run_dir
    messages = read_jsonl(out / "messages.jsonl")
    spoken = [m for m in messages if m["sender"] in ("alice", "bob")]
    assert spoken and all(m["text"] == SAID for m in spoken)  # the logs keep the text as said
    assert boss_lines(output) == ["09:00:00 ★ Boss: Morning. REST or GraphQL?"]
    assert f"fine by me⏎{FORGED}⏎⏎{FORGED}" in output.replace("\n         ", "")
    # The closing table's title is the company's name as typed: no MarkupError, no hyperlink.
    assert COMPANY in output and "\x1b]8;" not in output


def test_inspect_and_report_print_no_forged_line(run_dir: tuple[str, Path]) -> None:
    _, out = run_dir
    for command in (["inspect", out], ["report", out, "--no-plots"]):
        output = invoke(*command)
        assert not [line for line in output.splitlines() if line.lstrip("│ ").startswith(FORGED[:8])]
        assert "Traceback" not in output
    assert COMPANY in invoke("report", out, "--no-plots")


def test_a_piped_chat_prints_each_message_on_one_line(fake: FakeOpenAIServer, scenario: Path) -> None:
    out = scenario.parent / "chat"
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
        input=b"/room api\nAnd the tests?\n/wait 2m\n/mind alice\n/quit\n",
        capture_output=True,
        env=clean_env(),
        cwd=ROOT,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    output = proc.stdout.decode()
    assert sorted(line[9:] for line in boss_lines(output)) == [
        "★ Boss (script): Morning. REST or GraphQL?",  # the scenario's line, marked in the chat
        "★ Boss: And the tests?",
    ]
    assert f"fine by me⏎{FORGED}⏎⏎{FORGED}" in output


# Issue 28, item 21: `/docs PATH` printed a document's lines at column 0, so a line of it reading
# `09:10:00 ★ Boss: ...` printed like the boss. Its text is quoted under its header now.
DOCUMENT = f"# Notes\n\n{FORGED}\nplain line\n"


def writes_the_document(body: dict) -> str:
    system, user = (str(m.get("content") or "") for m in body["messages"][:2])
    if system.startswith("You are Bob,") and "Write up the notes" in user and "notes.md (version" not in user:
        action = {"tool": "write_document", "args": {"path": "notes.md", "content": DOCUMENT}}
        return json.dumps({**answer(body), "messages": [], "shouldSpeak": False, "actions": [action]})
    return json.dumps({**answer(body), "messages": [], "shouldSpeak": False})


def test_docs_quotes_a_documents_lines_under_its_header(tmp_path: Path) -> None:
    scenario = tmp_path / "docs.yaml"
    scenario.write_text(
        SCENARIO.replace(
            "script:", "departments:\n  - {id: eng, name: Engineering, members: [alice, bob]}\nscript:"
        )
        + '  - {at: "00:01", to: "boss:bob", text: "Write up the notes, please."}\n',
        encoding="utf-8",
    )
    out = tmp_path / "run"
    with FakeOpenAIServer(handler=writes_the_document) as server:
        invoke("run", scenario, "--base-url", server.base_url, "--out", out)
        assert (out / "workspace" / "eng" / "notes.md").read_text(encoding="utf-8") == DOCUMENT
        proc = subprocess.run(
            [sys.executable, "-m", "ideaco", "chat", str(out), "--base-url", server.base_url],
            input=b"/docs notes.md\n/quit\n",
            capture_output=True,
            env=clean_env(),
            cwd=ROOT,
            timeout=120,
        )
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    output = proc.stdout.decode()
    assert "eng/notes.md · version" in output
    assert not [line for line in output.splitlines() if line.startswith(FORGED[:8])]
    assert f"  │ {FORGED}" in output and "  │ plain line" in output
