"""Every reader survives every log (issue 22, item 4), through the CLI.

A log line that is valid JSON but no record (`{}`, `null`, a number, a message with a null
sender, a time that is no time, a date centuries away) used to give tracebacks in `report`,
`view`, `interview` and `inspect`; `--resume` paid for the whole continuation, then crashed
while summarising. Now a reader skips such a line with one warning naming the file and the line
and goes on; a resume refuses it in one line before any model call, touching nothing; a
state.json from another run is named as such.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.conftest import CLEAN_ENV
from tests.faults.processes import one_error_line, snapshot

SCENARIO = """\
company: Junk Works
duration: 20m
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: chatterbox}
  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}
rooms:
  - {id: api, name: API design, kind: work, members: [alice, bob]}
script:
  - {at: "00:00", to: api, text: "REST or GraphQL?"}
  - {at: "00:10", to: api, text: "And the tests?"}
"""
OTHER = (
    SCENARIO.replace("alice", "ann")
    .replace("Alice", "Ann")
    .replace("bob", "ben")
    .replace("Bob", "Ben")
    .replace("Junk Works", "Other Co")
)
THOUGHT = {
    "innerThoughts": "hm",
    "topicSaturation": 3,
    "interestLevel": 8,
    "shouldSpeak": True,
    "reason": "asked",
    "messages": [{"content": "REST, I think."}],
}
GOOD_MESSAGE = {
    "id": "x-1",
    "at": "2026-01-05T09:05:00",
    "conversation": "api",
    "sender": "bob",
    "text": "hi",
}
GOOD_THOUGHT = {"id": "x1", "at": "2026-01-05T09:05:00", "employee": "bob", "conversation": "api"}
# (log, the line written into it, what the warning says about it)
JUNK = [
    ("messages.jsonl", "{}", "not a message record (id: Field required)"),
    ("messages.jsonl", "null", "not a message record (a JSON null)"),
    ("messages.jsonl", "5", "not a message record (a JSON number)"),
    ("messages.jsonl", '"text"', "not a message record (a JSON string)"),
    (
        "messages.jsonl",
        json.dumps({**GOOD_MESSAGE, "sender": None}),
        "(sender: Input should be a valid string)",
    ),
    ("messages.jsonl", json.dumps({**GOOD_MESSAGE, "at": "soon"}), "(at: Invalid isoformat string: 'soon')"),
    ("messages.jsonl", json.dumps({**GOOD_MESSAGE, "text": 5}), "(text: Input should be a valid string)"),
    (
        "messages.jsonl",
        json.dumps({**GOOD_MESSAGE, "at": "2400-01-01T00:00:00"}),
        "dated 2400-01-01T00:00:00",
    ),
    ("thoughts.jsonl", "[]", "not a thought record (a JSON list)"),
    (
        "thoughts.jsonl",
        json.dumps({**GOOD_THOUGHT, "employee": None}),
        "(employee: Input should be a valid string)",
    ),
    ("thoughts.jsonl", json.dumps({**GOOD_THOUGHT, "llm": {"prompt_tokens": -5}}), "(llm.prompt_tokens:"),
    (
        "thoughts.jsonl",
        json.dumps({**GOOD_THOUGHT, "thought": {"a": 1}}),
        "(thought.topicSaturation: Field required)",
    ),
    ("thoughts.jsonl", json.dumps({**GOOD_THOUGHT, "applied": {"began": 5}}), "(applied.began:"),
    (
        "thoughts.jsonl",
        json.dumps({**GOOD_THOUGHT, "applied": {"began": {"stamina": {"patience": "x"}}}}),
        "(applied.began.stamina.patience.float: Input should be a valid number)",
    ),
    (
        "thoughts.jsonl",
        json.dumps(
            {**GOOD_THOUGHT, "applied": {"steps": [{"step": "mind", "employee": "bob", "stamina": None}]}}
        ),
        "steps[0] (mind).stamina",
    ),
    (
        "thoughts.jsonl",
        json.dumps({**GOOD_THOUGHT, "applied": {"steps": [{"step": "mind", "employee": ["bob"]}]}}),
        "steps[0] (mind).employee",
    ),
]


def answer(body: dict) -> dict:
    return THOUGHT


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


def cli(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], env={**CLEAN_ENV, "COLUMNS": "200"})


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAIServer) -> Path:
    """A finished run of two people (a scripted model)."""
    base = tmp_path_factory.mktemp("junk")
    (base / "junk.yaml").write_text(SCENARIO, encoding="utf-8")
    result = cli("run", base / "junk.yaml", "--base-url", fake.base_url, "--out", base / "run")
    assert result.exit_code == 0, result.output
    return base / "run"


def with_line(made: Path, tmp_path: Path, log: str, line: str) -> tuple[Path, int]:
    """A copy of the run with `line` put in the middle of `log`; the copy and the line's number."""
    run = tmp_path / "run"
    shutil.copytree(made, run)
    if not (run / log).exists():  # changes.jsonl has a line only if a save met a think in flight
        first = json.loads((run / "thoughts.jsonl").read_text(encoding="utf-8").splitlines()[0])
        begun = {"at": first["at"], "cause": "begun", "employee": first["employee"], "thought": first["id"]}
        (run / log).write_text(json.dumps({**begun, "began": {}}) + "\n", encoding="utf-8")
    lines = (run / log).read_text(encoding="utf-8").splitlines()
    at = len(lines) // 2
    (run / log).write_text("\n".join([*lines[:at], line, *lines[at:]]) + "\n", encoding="utf-8")
    return run, at + 1


@pytest.mark.parametrize(("log", "line", "said"), JUNK)
def test_every_reader_skips_a_line_that_is_no_record_with_one_warning(
    made: Path, tmp_path: Path, fake: FakeOpenAIServer, log: str, line: str, said: str
) -> None:
    run, number = with_line(made, tmp_path, log, line)
    for command in (
        ["report", run, "--no-plots"],
        ["report", run, "--json", "--no-plots"],
        ["view", run, "--out", tmp_path / "view.html"],
        ["inspect", run],
        ["inspect", run, "--json"],
        ["interview", run, "bob", "How did it go?", "--base-url", fake.base_url],
    ):
        result = cli(*command)
        assert result.exit_code == 0, (command, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        warnings = [w for w in result.stderr.splitlines() if w.strip()]
        if command[0] == "inspect" and "dated" in said:
            assert warnings == []  # a timeline shows each thought as it is: a far date costs nothing there
            continue
        assert len(warnings) == 1, (command, result.stderr)
        assert warnings[0].startswith(f"ideaco: warning: {run / log}: line {number} is "), warnings[0]
        assert said in warnings[0] and warnings[0].endswith(", skipped")


@pytest.mark.parametrize(("log", "line", "said"), JUNK)
def test_a_resume_refuses_a_line_that_is_no_record_before_any_call(
    made: Path, tmp_path: Path, fake: FakeOpenAIServer, log: str, line: str, said: str
) -> None:
    run, number = with_line(made, tmp_path, log, line)
    before, calls = snapshot(run), len(fake.requests)
    result = cli("run", "--resume", run, "--duration", "10m", "--base-url", fake.base_url)
    error = one_error_line(result)
    assert error.startswith(f"ideaco: error: {run / log}: line {number} is "), error
    assert (
        said in error or "dated" in said
    )  # a far date is a sound record to a writer: its shape is refused elsewhere
    assert len(fake.requests) == calls and snapshot(run) == before  # nothing paid, nothing touched


def test_a_state_from_another_run_is_named_by_readers_and_refused_by_a_resume(
    made: Path, tmp_path: Path, fake: FakeOpenAIServer
) -> None:
    (tmp_path / "other.yaml").write_text(OTHER, encoding="utf-8")
    other = tmp_path / "other"
    assert cli("run", tmp_path / "other.yaml", "--base-url", fake.base_url, "--out", other).exit_code == 0
    mixed = tmp_path / "mixed"
    shutil.copytree(made, mixed)
    shutil.copy(other / "state.json", mixed / "state.json")
    for command in (  # inspect reads state.json too (names, holds, teams): it says so as well (issue 28, 13)
        ["report", mixed, "--no-plots"],
        ["view", mixed, "--out", tmp_path / "view.html"],
        ["inspect", mixed],
        ["inspect", mixed, "--json"],
        ["inspect", mixed, "--docs"],
    ):
        result = cli(*command)
        assert result.exit_code == 0, (command, result.output)
        [warning] = result.stderr.splitlines()
        assert warning == (
            f"ideaco: warning: {mixed / 'state.json'} is from another run (scenario 'other'): "
            "none of the people in its logs (alice, bob) is in it"
        ), command
    before, calls = snapshot(mixed), len(fake.requests)
    error = one_error_line(cli("run", "--resume", mixed, "--base-url", fake.base_url))
    assert "is from another run (scenario 'other')" in error and "cannot continue them" in error
    assert len(fake.requests) == calls and snapshot(mixed) == before


READERS = (
    ["report", "--no-plots"],
    ["report", "--json", "--no-plots"],
    ["inspect"],
    ["inspect", "--json"],
    ["inspect", "--docs"],
)


@pytest.mark.parametrize("log", ["messages.jsonl", "thoughts.jsonl", "changes.jsonl"])
def test_a_garbled_line_amid_a_log_is_one_line_for_every_reader_and_a_resume(
    made: Path, tmp_path: Path, fake: FakeOpenAIServer, log: str
) -> None:
    """Not JSON, with lines after it (so no torn last line): every reader and a resume say where,
    in one line (issue 28, item 13: `inspect` used to end in a traceback on messages.jsonl)."""
    run, number = with_line(made, tmp_path, log, '{"id": "m9", garbled')
    before, calls = snapshot(run), len(fake.requests)
    commands = [[c[0], run, *c[1:]] for c in READERS]
    commands += [["view", run, "--out", tmp_path / "view.html"]]
    commands += [["run", "--resume", run, "--duration", "10m", "--base-url", fake.base_url]]
    for command in commands:
        error = one_error_line(cli(*command))
        assert error == f"ideaco: error: {run / log}: line {number} is not valid JSON", (command, error)
    assert len(fake.requests) == calls and snapshot(run) == before  # nothing paid, nothing touched


@pytest.mark.parametrize(("text", "said"), [("{nope", "cannot be read"), ("[]", "is not a JSON object")])
def test_a_resume_warns_of_a_summary_it_cannot_read_and_writes_it_again(
    made: Path, tmp_path: Path, fake: FakeOpenAIServer, text: str, said: str
) -> None:
    """summary.json is the run's end report, written again at the end: one that is no JSON object
    is one warning, and the resume goes on (issue 28, item 13: it ended in a traceback)."""
    run = tmp_path / "run"
    shutil.copytree(made, run)
    (run / "summary.json").write_text(text, encoding="utf-8")
    result = cli("run", "--resume", run, "--duration", "5m", "--base-url", fake.base_url)
    assert result.exit_code == 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.stderr.splitlines() == [f"ideaco: warning: {run / 'summary.json'} {said}, ignored"]
    assert isinstance(json.loads((run / "summary.json").read_text(encoding="utf-8")), dict)


# Bytes no JSON reader expects in a log line (issue 28's "done means": every reader survives
# whatever a log holds), each put amid a log with lines after it.
RAW = {
    "not UTF-8": b'\xff\xfe{"id": 1}',
    "NUL bytes": b"\x00\x00\x00",
    "a byte-order mark": b"\xef\xbb\xbf{}",
    "NaN": b'{"id": "m1", "at": NaN}',
    "nested 50,000 deep": b"[" * 50_000 + b"]" * 50_000,
    "a 2 MB line": b'{"id": "' + b"x" * 2_000_000 + b'"}',
    "lone surrogates": json.dumps({**GOOD_MESSAGE, "sender": "\ud800", "text": "\udc00"}).encode(),
    "spaces only": b"   \t ",
}


@pytest.mark.parametrize("log", ["messages.jsonl", "thoughts.jsonl"])
@pytest.mark.parametrize("raw", list(RAW.values()), ids=list(RAW))
def test_every_reader_survives_any_bytes_in_a_log_line(
    made: Path, tmp_path: Path, log: str, raw: bytes
) -> None:
    """Each reader goes on (exit 0, at most one warning naming the file and the line) or stops in one
    line naming them (exit 2); never a traceback, never a hang."""
    run = tmp_path / "run"
    shutil.copytree(made, run)
    lines = (run / log).read_bytes().splitlines()
    at = len(lines) // 2
    (run / log).write_bytes(b"\n".join([*lines[:at], raw, *lines[at:]]) + b"\n")
    where = f"{run / log}: line {at + 1} "
    for command in (*([c[0], run, *c[1:]] for c in READERS), ["view", run, "--out", tmp_path / "view.html"]):
        result = cli(*command)
        if result.exit_code == 2:
            assert one_error_line(result).startswith(f"ideaco: error: {where}"), (command, result.stderr)
            continue
        assert result.exit_code == 0, (command, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
        warnings = [w for w in result.stderr.splitlines() if w.strip()]
        assert len(warnings) <= 1 and all(w.startswith(f"ideaco: warning: {where}") for w in warnings), (
            command,
            warnings,
        )
