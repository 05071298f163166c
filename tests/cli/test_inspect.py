"""`ideaco inspect RUNDIR`: the inner-monologue timeline, its filters, --json and --follow (spec 1.5)."""

from __future__ import annotations

import json
import threading
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ideaco.cli import inspect as inspect_mod
from ideaco.cli.inspect import JsonlTail, follow
from ideaco.cli.main import app
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import SimClock
from ideaco.office.resolve.journal import RunJournal
from ideaco.scenario import Scenario
from ideaco.store.jsonl import JsonlError, dumps
from ideaco.store.rundir import RunDir
from ideaco.store.state import StateStore
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import START, scenario_dict, thought, who

NASTY = "[bold]x[/] \x1b]0;pwn\x07"  # rich markup and a terminal title escape, from an agent
LLM = {"model": "m", "prompt_tokens": 120, "completion_tokens": 30, "cached_tokens": 64, "latency_ms": 1500.0}


def record(id: str, at: str, employee: str, conversation: str, **kw: Any) -> dict[str, Any]:
    """A thoughts.jsonl line as ideaco.office.decide.decision writes it."""
    base: dict[str, Any] = {
        "id": id,
        "at": f"2026-01-05T{at}",
        "employee": employee,
        "conversation": conversation,
        "trigger": "timer",
        "thought": thought(False),
        "spoke": False,
        "gate": "chose_silence",
        "llm": LLM,
        "corrections": [],
        "next_look_at": f"2026-01-05T{at[:-2]}59",
        "messages": [],
        "rethink": False,
    }
    base.update(kw)
    return base


THOUGHTS = [
    record(
        "t1",
        "09:01:00",
        "alice",
        "api-design",
        trigger="boss",
        thought=thought(True, "REST, clearly", innerThoughts=f"alice muses {NASTY}", interest=8),
        spoke=True,
        gate=None,
        messages=["t1-1"],
    ),
    record(
        "t2",
        "09:02:00",
        "bob",
        "api-design",
        thought=thought(False, innerThoughts="bob keeps it to himself", reason="nothing new"),
    ),
    record(
        "t3",
        "09:06:00",
        "bob",
        "eng-casual",
        trigger="nudge",
        gate="cooldown",
        thought=thought(
            True,
            "too soon",
            innerThoughts="bob wants to joke",
            memoryOps=[
                {
                    "op": "add",
                    "type": "long_term",
                    "content": "Alice likes REST",
                    "category": "fact",
                    "importance": 7,
                },
                {"op": "delete", "id": "mem-3"},
            ],
            relationshipOps=[{"employeeId": "alice", "name": "", "impression": "sharp", "affinity": 62}],
            taskOps=[{"op": "create", "description": "draft the schema", "type": "oneshot"}],
            actions=[{"tool": "send_message", "args": {"to": "alice", "content": "lunch?"}}],
        ),
        corrections=["relationshipOps[0]: affinity change clamped to 15"],
    ),
    record(
        "t4",
        "09:07:00",
        "alice",
        "eng-casual",
        thought=None,
        gate="error",
        llm=None,
        error="model said nonsense",
    ),
]
MESSAGES = [
    {
        "id": "script-1",
        "at": "2026-01-05T09:00:00",
        "conversation": "api-design",
        "sender": "boss",
        "text": "REST or GraphQL?",
        "mentions": [],
        "kind": "chat",
    },
    {
        "id": "t1-1",
        "at": "2026-01-05T09:01:05",
        "conversation": "api-design",
        "sender": "alice",
        "text": f"REST, clearly {NASTY}",
        "mentions": [],
        "kind": "chat",
    },
]


def write_lines(path: Path, records: list[dict[str, Any]], tail: str = "") -> None:
    path.write_text("".join(dumps(r) + "\n" for r in records) + tail, encoding="utf-8")


@pytest.fixture
def run(tmp_path: Path) -> Path:
    """A run directory written by hand: two employees, four thoughts and a torn last line."""
    rundir = tmp_path / "run"
    rundir.mkdir()
    store = StateStore(rundir / "state.json")
    store.save(
        {
            "office": {"company": "Acme Labs", "start": "2026-01-05T09:00:00"},
            "employees": [{"id": "alice", "name": "Alice"}, {"id": "bob", "name": "Bob"}],
            "conversations": [
                {"id": "api-design", "name": "API design"},
                {"id": "eng-casual", "name": "Engineering casual"},
            ],
        }
    )
    store.close()
    write_lines(rundir / "messages.jsonl", MESSAGES)
    write_lines(rundir / "thoughts.jsonl", THOUGHTS, tail='{"id": "t5-torn", "at": "2026-01-05T09:0')
    return rundir


def inspect(*args: str | Path, columns: str | None = None):
    """`ideaco inspect` with its output piped; `columns`: as if on a terminal that wide (COLUMNS)."""
    return CliRunner().invoke(app, ["inspect", *map(str, args)], env={"COLUMNS": columns})


def shown_ids(output: str) -> list[str]:
    return [tid for tid in ("t1", "t2", "t3", "t4", "t5") if f"  {tid}\n" in output]


def assert_one_line_error(result, *words: str) -> None:
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr


# ---------------------------------------------------------------------------- the timeline


def test_timeline_shows_thoughts_oldest_first_with_verdicts(run: Path):
    result = inspect(run)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert shown_ids(out) == ["t1", "t2", "t3", "t4"]  # the torn line is not a thought yet
    assert "4 of 4 thoughts" in out
    assert "09:01:00  Alice in api-design · boss" in out  # names come from state.json
    assert "alice muses" in out and "bob keeps it to himself" in out
    assert "spoke" in out and "REST, clearly" in out  # the posted text, joined via messages.jsonl
    assert "held    chose_silence" in out and "nothing new" in out
    assert "held    cooldown" in out
    assert "interest 8/10 · saturation 3/10" in out
    assert "next look 09:01:59" in out
    assert "120+30 tok (64 cached) · 1.5 s" in out


def test_timeline_shows_ops_corrections_and_errors_compactly(run: Path):
    out = inspect(run, "--conversation", "eng-casual").stdout
    assert "+ long fact (7): Alice likes REST" in out
    assert "- mem-3" in out
    assert "Alice 62/100: sharp" in out  # the op's empty name falls back to the employee's
    assert "+ oneshot: draft the schema" in out
    assert "send_message → alice: lunch?" in out
    assert "affinity change clamped to 15" in out
    assert "model said nonsense" in out and "no model call" in out


def test_empty_sections_are_left_out(run: Path):
    out = inspect(run, "--gate", "chose_silence").stdout
    assert shown_ids(out) == ["t2"]
    for label in ("memory", "people", "tasks", "actions", "summary", "fixed", "error", "spoke"):
        assert f"  {label} " not in out


def test_agent_text_is_printed_literally_never_interpreted(run: Path):
    out = inspect(run).stdout
    assert "[bold]x[/]" in out  # not taken as rich markup
    assert "\\x1b]0;pwn\\x07" in out  # the escape sequence is made visible...
    assert "\x1b" not in out and "\x07" not in out  # ...and cannot drive the terminal
    assert out.count("[bold]x[/]") == 2  # in the inner thoughts and in the posted message


def test_timeline_fits_an_80_column_terminal(run: Path):
    out = inspect(run, columns="80").stdout
    assert max(len(line.rstrip()) for line in out.splitlines()) <= 80


def test_piped_output_is_not_wrapped_and_has_no_trailing_spaces(run: Path):
    out = inspect(run).stdout
    assert max(len(line) for line in out.splitlines()) > 80  # a long line stays one line
    assert not [line for line in out.splitlines() if line != line.rstrip()]
    assert not [line for line in inspect(run, columns="80").stdout.splitlines() if line != line.rstrip()]


def test_json_is_indented_and_compact_on_request(run: Path):
    pretty, compact = inspect(run, "--json").stdout, inspect(run, "--json", "--compact").stdout
    assert json.loads(pretty) == json.loads(compact)
    assert pretty.startswith('{\n  "run"') and len(compact.splitlines()) == 1


def test_follow_ends_once_the_run_has_ended(run: Path):
    (run / "summary.json").write_text("{}", encoding="utf-8")  # written at the end; nobody writes now
    result = inspect(run, "--follow")
    assert result.exit_code == 0, result.output
    assert "the run has ended" in result.stdout.splitlines()[-1]
    result = inspect(run, "--follow", "--json")
    assert result.exit_code == 0 and "the run has ended" in result.stderr
    assert all(json.loads(line) for line in result.stdout.splitlines())  # still JSON Lines


def test_follow_ends_when_no_process_writes_a_run_killed_before_its_summary(run: Path, monkeypatch):
    """A run killed with SIGKILL never writes summary.json: --follow used to follow it forever."""
    polls: list[int] = []

    def count(_seconds: float) -> None:
        polls.append(1)
        assert len(polls) < 5, "--follow went on following a run nobody writes"

    monkeypatch.setattr(inspect_mod, "_sleep", count)
    result = inspect(run, "--follow")
    assert result.exit_code == 0, result.output
    assert "no process is writing the run" in result.stdout.splitlines()[-1]
    assert f"ideaco run --resume {run} continues it" in result.stdout.replace("\n", "")
    assert len(polls) == 1  # no writer at two polls in a row: one wait between them


def test_follow_waits_out_one_poll_without_a_writer(run: Path, monkeypatch):
    """A writer between two sessions (a resume taking over) is not taken for a dead run at once."""
    alive = iter([False, True, True, False, False])
    monkeypatch.setattr(inspect_mod, "writer_alive", lambda _path: next(alive))
    monkeypatch.setattr(inspect_mod, "_sleep", lambda _seconds: None)
    result = inspect(run, "--follow")
    assert result.exit_code == 0 and "no process is writing the run" in result.stdout
    with pytest.raises(StopIteration):
        next(alive)  # all five polls were needed


def test_follow_goes_on_while_a_live_process_writes_the_run(run: Path, monkeypatch):
    (run / "summary.json").write_text("{}", encoding="utf-8")  # an earlier session's, being resumed
    monkeypatch.setattr(inspect_mod, "writer_alive", lambda _path: True)
    monkeypatch.setattr(inspect_mod, "_sleep", _interrupt)
    result = inspect(run, "--follow")
    assert result.exit_code == 0 and "the run has ended" not in result.stdout


# ---------------------------------------------------------------------------- filters


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--employee", "bob"), ["t2", "t3"]),
        (("--employee", "ALICE"), ["t1", "t4"]),  # by name, in any case
        (("--conversation", "api-design"), ["t1", "t2"]),
        (("--gate", "spoke"), ["t1"]),
        (("--gate", "cooldown"), ["t3"]),
        (("--gate", "error"), ["t4"]),
        (("--since", "09:06"), ["t3", "t4"]),
        (("--since", "09:06:30"), ["t4"]),
        (("--since", "2026-01-05T09:01:30"), ["t2", "t3", "t4"]),
        (("--employee", "bob", "--conversation", "api-design"), ["t2"]),
    ],
)
def test_filters(run: Path, args: tuple[str, ...], expected: list[str]):
    result = inspect(run, *args)
    assert result.exit_code == 0, result.output
    assert shown_ids(result.stdout) == expected


def test_nothing_matching_is_an_empty_timeline_not_an_error(run: Path):
    result = inspect(run, "--gate", "saturation")
    assert result.exit_code == 0
    assert "0 of 4 thoughts" in result.stdout


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--employee", "carol"), ["--employee 'carol'", "alice (Alice)", "bob (Bob)"]),
        (("--conversation", "lobby"), ["--conversation 'lobby'", "api-design", "eng-casual"]),
        (("--gate", "shy"), ["--gate 'shy'", "chose_silence", "loop_breaker", "spoke"]),
        (("--since", "noonish"), ["--since 'noonish'", "HH:MM"]),
        (("--since", "25:00"), ["--since '25:00'"]),
    ],
)
def test_unknown_filter_values_are_one_line_errors(run: Path, args: tuple[str, ...], words: list[str]):
    assert_one_line_error(inspect(run, *args), *words)


def test_not_a_run_directory_is_a_one_line_error(tmp_path: Path):
    assert_one_line_error(inspect(tmp_path / "missing"), "does not exist")
    assert_one_line_error(inspect(tmp_path), "not an ideaco run directory")


def test_missing_thoughts_log_is_a_one_line_error(run: Path):
    (run / "thoughts.jsonl").unlink()
    assert_one_line_error(inspect(run), "thoughts.jsonl")


def test_corrupt_line_before_the_end_is_a_one_line_error(run: Path):
    path = run / "thoughts.jsonl"
    path.write_text("not json\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    assert_one_line_error(inspect(run), "line 1 is not valid JSON")


# ---------------------------------------------------------------------------- --json


def test_json_is_one_document_with_names_and_posted_messages(run: Path):
    result = inspect(run, "--json", "--employee", "Alice")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)  # nothing else on stdout
    assert doc["run"] == str(run)
    assert doc["filters"] == {"employee": "alice", "conversation": None, "gate": None, "since": None}
    assert [t["id"] for t in doc["thoughts"]] == ["t1", "t4"]
    first = doc["thoughts"][0]
    assert first["employee_name"] == "Alice"
    assert first["posted"] == [MESSAGES[1]]
    assert first["thought"]["innerThoughts"] == f"alice muses {NASTY}"  # the record as logged
    assert set(THOUGHTS[0]) <= set(first)
    assert doc["thoughts"][1]["posted"] == []


def test_json_filters_record_since_as_iso(run: Path):
    doc = json.loads(inspect(run, "--json", "--since", "09:06", "--gate", "COOLDOWN").stdout)
    assert doc["filters"]["since"] == "2026-01-05T09:06:00"
    assert doc["filters"]["gate"] == "cooldown"
    assert [t["id"] for t in doc["thoughts"]] == ["t3"]


# ---------------------------------------------------------------------------- following a live run


def appended(path: Path, rec: dict[str, Any]) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(dumps(rec) + "\n")


def test_tail_consumes_only_complete_lines(tmp_path: Path):
    path = tmp_path / "log.jsonl"
    write_lines(path, [{"n": 1}], tail='{"n": 2')
    tail = JsonlTail(path)
    assert tail.poll() == [{"n": 1}]
    assert tail.poll() == []  # the torn line is left for later
    with open(path, "a", encoding="utf-8") as f:
        f.write("}\n")
    assert tail.poll() == [{"n": 2}]


def test_tail_holds_back_a_bad_last_line_and_refuses_one_in_the_middle(tmp_path: Path):
    path = tmp_path / "log.jsonl"
    path.write_text('{"n": 1}\n\x00\x00\n', encoding="utf-8")
    tail = JsonlTail(path)
    assert tail.poll() == [{"n": 1}]
    appended(path, {"n": 2})
    with pytest.raises(JsonlError, match="line 2 is not valid JSON"):
        tail.poll()


def test_follow_picks_up_lines_appended_after_it_started(tmp_path: Path):
    path = tmp_path / "log.jsonl"  # a log of no declared shape: any object is a record
    write_lines(path, [{"id": "old"}])
    seen: list[str] = []
    done = threading.Event()
    worker = threading.Thread(target=follow, args=(path, lambda r: seen.append(r["id"]), done.is_set, 0.01))
    worker.start()
    try:
        deadline = time.monotonic() + 5
        while seen != ["old"] and time.monotonic() < deadline:
            time.sleep(0.005)
        with open(path, "a", encoding="utf-8") as f:
            f.write('{"id": "new"}\n{"id": "to')  # one complete line, one being written
        while seen != ["old", "new"] and time.monotonic() < deadline:
            time.sleep(0.005)
    finally:
        done.set()
        worker.join(timeout=5)
    assert seen == ["old", "new"]  # the torn line was not taken


def test_follow_stops_when_asked_and_returns_the_offset(tmp_path: Path):
    path = tmp_path / "log.jsonl"  # a log of no declared shape: any object is a record
    write_lines(path, [{"id": "a"}], tail='{"id": "b')
    seen: list[dict] = []
    offset = follow(path, seen.append, lambda: True, poll_s=0)
    assert seen == [{"id": "a"}]
    assert offset == len(dumps({"id": "a"})) + 1


def test_follow_command_prints_new_filtered_thoughts_as_json_lines(run: Path, monkeypatch):
    """--json --follow: one object per line; a thought appended later is printed; Ctrl-C exits 0."""
    polls = []

    def fake_sleep(_seconds: float) -> None:
        polls.append(1)
        if len(polls) == 1:
            path = run / "thoughts.jsonl"
            path.write_text(path.read_text().rsplit("\n", 1)[0] + "\n", encoding="utf-8")  # finish the run
            appended(path, record("t6", "09:09:00", "bob", "api-design"))
            appended(path, record("t7", "09:09:30", "alice", "api-design"))
        else:
            raise KeyboardInterrupt

    monkeypatch.setattr(inspect_mod, "_sleep", fake_sleep)
    result = inspect(run, "--follow", "--json", "--employee", "bob")
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [t["id"] for t in lines] == ["t2", "t3", "t6"]
    assert lines[-1]["employee_name"] == "Bob"


def test_follow_command_prints_the_timeline_then_new_thoughts(run: Path, monkeypatch):
    def fake_sleep(_seconds: float) -> None:
        appended(run / "messages.jsonl", {**MESSAGES[1], "id": "t8-1", "text": "late reply"})
        with open(run / "thoughts.jsonl", "a", encoding="utf-8") as f:  # completes the torn line
            f.write('0:00"}\n')
        appended(
            run / "thoughts.jsonl",
            record("t8", "09:10:00", "alice", "api-design", spoke=True, messages=["t8-1"]),
        )
        monkeypatch.setattr(inspect_mod, "_sleep", _interrupt)

    monkeypatch.setattr(inspect_mod, "_sleep", fake_sleep)
    result = inspect(run, "--follow", "--gate", "spoke")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "following new thoughts" in out
    assert out.index("REST, clearly") < out.index("late reply")  # joined with a message written later


def _interrupt(_seconds: float) -> None:
    raise KeyboardInterrupt


# ---------------------------------------------------------------------------- a real run


async def test_inspects_a_run_directory_written_by_an_office(tmp_path: Path):
    def handler(request):
        tag = who(request)
        speak = tag.employee == "alice" and tag.conversation == "api-design"
        return thought(speak, "REST it is" if speak else None)

    rundir = RunDir(tmp_path / "run").create()
    data = scenario_dict(script=[{"at": "00:00", "to": "api-design", "text": "REST or GraphQL?"}])
    office = office_from_scenario(
        Scenario.model_validate(data),
        tmp_path,
        llm=ScriptedLLM(handler=handler),
        clock=SimClock(START),
        seed=1,
        journal=RunJournal(rundir),
    )
    office.start()
    await office.run(timedelta(minutes=5))
    office.checkpoint()
    office.journal.close()

    doc = json.loads(inspect(rundir.path, "--json").stdout)
    thoughts = doc["thoughts"]
    assert thoughts and {t["employee_name"] for t in thoughts} <= {"Alice", "Bob", "Charlie", "Dana"}
    spoken = [t for t in thoughts if t["spoke"]]
    assert spoken and all(t["posted"][0]["text"] == "REST it is" for t in spoken)
    out = inspect(rundir.path, "--employee", "Alice").stdout
    assert "Alice in api-design" in out and "REST it is" in out


def test_inspect_shows_the_changes_between_thoughts_in_their_place(tmp_path: Path) -> None:
    from tests.guard.runs import RUNS

    guarded = next(r for r in RUNS if r.name == "office-s1")  # Ben is held at 09:40, released at 09:55
    out = tmp_path / "run"
    ran = CliRunner().invoke(app, guarded.args(out))
    assert ran.exit_code == 0, ran.output
    text = CliRunner().invoke(app, ["inspect", str(out)], env={"COLUMNS": "120"}).stdout
    release = text.index("between thoughts: released from a hold · Ben")
    assert "note    You were on hold since 09:40" in text[release:]
    assert text.rindex("\n09:4", 0, release) < release < text.index("Ben in sync · boss  t000065")  # in place
    document = json.loads(CliRunner().invoke(app, ["inspect", str(out), "--json"]).stdout)
    causes = [c["cause"] for c in document["changes"]]
    assert "release" in causes
    logged = {t["id"] for t in document["thoughts"]}
    assert not any(c.get("thought") in logged for c in document["changes"])  # said by its thought
