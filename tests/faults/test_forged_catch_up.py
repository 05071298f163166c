"""A forged log line after the last save is held to the live rules on resume (issue 28, item 11).

A resume applies the records logged after the last save as they say. A line added to
changes.jsonl (a "command" hiring an employee with id `boss`, whose "@Alice stop" the office would
then obey) or to thoughts.jsonl used to land unchecked. Now each caught-up step passes the id and
name rules its live twin did (`office/rules/logged.py`); a step that does not makes the resume one
line naming the file and the line, before any model call, touching nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.processes import one_error_line, snapshot
from tests.faults.test_junk_logs import SCENARIO, answer, cli

JOINED = {
    "name": "Boss",
    "role": "CEO",
    "age": 50,
    "department": None,
    "model": None,
    "persona": {},
    "mind": {},
}


def hire(ident: str, name: str) -> dict[str, Any]:
    return {
        "step": "employee",
        "id": ident,
        "joined": {"id": ident, **JOINED, "name": name, "dismissed": False},
    }


FORGED = [
    ([hire("boss", "Boss")], "the employee id 'boss' is reserved"),  # the case
    ([hire("zed", "B\u043e\u0455\u0455")], "'B\u043e\u0455\u0455' is reserved"),  # a Cyrillic look-alike
    ([hire("alice", "Zed")], "the employee id 'alice' is already taken"),
    ([hire("zed", "Alice")], "'Alice' is the name of 'alice' already"),
    ([{"step": "employee", "id": "alice", "fields": {"name": "Boss"}}], "'Boss' is reserved"),
    (
        [
            {
                "step": "conversation",
                "id": "boss-chat-x",
                "opened": {"id": "boss-chat-x", "kind": "work", "name": "War room", "members": ["alice"]},
            }
        ],
        "room id 'boss-chat-x' is reserved",
    ),
    (
        [{"step": "owe", "employee": "boss", "conversation": "api", "trigger": "system", "note": "x"}],
        "'boss' is no employee",
    ),
]


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAIServer) -> Path:
    base = tmp_path_factory.mktemp("forged-catch-up")
    (base / "office.yaml").write_text(SCENARIO, encoding="utf-8")
    result = cli("run", base / "office.yaml", "--base-url", fake.base_url, "--out", base / "run")
    assert result.exit_code == 0, result.output
    return base / "run"


def appended(made: Path, tmp_path: Path, log: str, steps: list[dict[str, Any]]) -> tuple[Path, int]:
    """A copy of the run with a forged record at the end of `log` (after the last save); its line."""
    run = tmp_path / "run"
    shutil.copytree(made, run)
    last = json.loads((run / "thoughts.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    if log == "changes.jsonl":
        record = {"at": last["at"], "cause": "command", "tool": "hire_employee", "args": {}, "steps": steps}
    else:  # a thought of Alice's, its `applied` the forged steps
        record = {**last, "id": "t999999", "employee": "alice", "conversation": "api", "messages": []}
        record["applied"] = {**last["applied"], "steps": steps}
    path = run / log
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    path.write_text("\n".join([*lines, json.dumps(record)]) + "\n", encoding="utf-8")
    return run, len(lines) + 1


@pytest.mark.parametrize("log", ["changes.jsonl", "thoughts.jsonl"])
@pytest.mark.parametrize(("steps", "why"), FORGED)
def test_a_forged_step_after_the_last_save_makes_the_resume_one_line(
    made: Path, tmp_path: Path, fake: FakeOpenAIServer, log: str, steps: list[dict[str, Any]], why: str
) -> None:
    run, line = appended(made, tmp_path, log, steps)
    before, calls = snapshot(run), len(fake.requests)
    error = one_error_line(cli("run", "--resume", run, "--duration", "5m", "--base-url", fake.base_url))
    assert error.startswith(
        f"ideaco: error: {run / log}: line {line} is not a change the office could make ("
    ), error
    assert why in error and error.endswith("; remove or mend that line to continue this run"), error
    assert len(fake.requests) == calls and snapshot(run) == before  # nothing paid, nothing touched


def test_a_true_command_after_the_last_save_still_resumes(
    made: Path, tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    """The rules are the live ones: a hire as the office logs it lands again (here Zed, a new id and name)."""
    zed = hire("zed", "Zed")
    zed["joined"]["role"] = "Tester"
    chat = {
        "step": "conversation",
        "id": "boss:zed",
        "opened": {"id": "boss:zed", "kind": "boss", "name": "Boss and Zed", "members": ["zed"]},
    }
    run, _ = appended(made, tmp_path, "changes.jsonl", [zed, chat])
    result = cli("run", "--resume", run, "--duration", "5m", "--base-url", fake.base_url)
    assert result.exit_code == 0, result.output
    state = json.loads((run / "state.json").read_text(encoding="utf-8"))
    employees = state["employees"]
    ids = [e["id"] for e in (employees.values() if isinstance(employees, dict) else employees)]
    assert "zed" in ids
