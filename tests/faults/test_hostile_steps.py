"""Every reader survives a step of the wrong shape, and a resume names its line (issue 28, item 9).

A thought's `applied.steps` (and a change's `steps`) used to be checked only for the steps a
reader looked into: a document or company step of the wrong shape (a list for a company, a path
with a null byte, no versions) ended `report`, `view`, `inspect --docs` and `run --resume` in a
traceback, and a resume blamed state.json for a line of thoughts.jsonl or changes.jsonl. Now every
step kind has its record shape (`store/step_records.py`): a reader skips a line whose steps do not
fit with one warning naming the file and the line; a resume refuses it in one line naming the same,
and refuses a line that fits but cannot be applied again (an unknown employee, a path out of the
workspace) naming its file and line too, before any model call, touching nothing.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.cli.test_workspace_replay import respond
from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.conftest import CLEAN_ENV
from tests.faults.processes import one_error_line, snapshot
from tests.office.conftest import scenario_dict

AT = "2026-01-05T09:30:00"
VERSION = {"hash": "bc49a161", "author": "bob", "at": AT, "thought": "t000099"}
DOC = {
    "step": "document",
    "tool": "revise_document",
    "department": "eng",
    "path": "specs/api.md",
    "author": "bob",
}
REVISED = DOC | {"versions": [VERSION], "content": "# API\n", "review": None}
COMPANY = {"name": "Acme Labs", "departments": [{"id": "eng", "name": "Engineering"}], "requirements": 0}
OWED = {"conversation": "boss:bob", "trigger": "system", "note": "report"}
OFFER = {"id": "task-9", "description": "d", "claim_key": "k", "offered_by": "bob", "offered_at": AT}

# (step kind, a step of the wrong shape, what the warning says of it)
SHAPES: list[tuple[str, Any, str]] = [
    ("mind", {"step": "mind", "employee": ["bob"]}, "(mind).employee: Input should be a valid string"),
    (
        "mind",
        {"step": "mind", "employee": "bob", "read": {"conversation": "api", "upto": -1}},
        "(mind).read.upto",
    ),
    (
        "employee",
        {"step": "employee", "id": "zed", "joined": {"id": "zed"}},
        "(employee).joined.name: Field required",
    ),
    (
        "employee",
        {"step": "employee", "id": "bob", "fields": {"dismissed": "yes"}},
        "(employee).fields.dismissed",
    ),
    (
        "employee",
        {"step": "employee", "id": "bob", "fields": {"mind": {}}},
        "(employee).fields.mind: Extra inputs",
    ),
    (
        "conversation",
        {"step": "conversation", "id": "api-design", "fields": {"members": 5}},
        ".fields.members",
    ),
    (
        "conversation",
        {"step": "conversation", "id": "x", "opened": {"id": "x"}},
        "(conversation).opened.kind",
    ),
    ("company", {"step": "company"}, "(company).company: Field required"),
    (
        "company",
        {"step": "company", "company": None},
        "(company).company: Input should be a valid dictionary",
    ),
    ("company", {"step": "company", "company": []}, "(company).company: Input should be a valid dictionary"),
    (
        "company",
        {"step": "company", "company": COMPANY | {"departments": "eng"}},
        "company.departments: Input should be a valid list",
    ),
    (
        "company",
        {"step": "company", "company": COMPANY | {"departments": [5]}},
        "company.departments.0: Input",
    ),
    (
        "company",
        {"step": "company", "company": COMPANY | {"signoffs": []}},
        "company.signoffs: Input should be",
    ),
    ("company", {"step": "company", "company": COMPANY | {"departments": [{"id": 5}]}}, "departments.0.id"),
    ("owe", {"step": "owe", "employee": "bob", "conversation": "boss:bob"}, "(owe).trigger: Field required"),
    (
        "owe",
        {"step": "owe", "employee": "bob", **OWED, "trigger": "zzz"},
        "(owe).trigger: 'zzz' is not a trigger",
    ),
    (
        "owe_again",
        {"step": "owe_again", "employee": "bob", "trigger": "boss", "owed": []},
        "(owe_again).owed",
    ),
    ("draft", {"step": "draft", "conversation": "api-design"}, "(draft).where: Field required"),
    (
        "draft",
        {"step": "draft", "where": "x", "conversation": "api-design", "gate": "zzz"},
        "'zzz' is not a gate",
    ),
    (
        "hold",
        {"step": "hold", "employee": "bob", "conversation": "boss:bob", "reopens_at": "soon", "owed": OWED},
        "(hold).reopens_at",
    ),
    (
        "hold",
        {"step": "hold", "employee": "bob", "conversation": "boss:bob", "reopens_at": AT},
        "(hold).owed: Field required",
    ),
    ("board", {"step": "board", "added": [5]}, "(board).added.0: Input should be a valid dictionary"),
    ("board", {"step": "board", "removed": "task-1"}, "(board).removed: Input should be a valid list"),
    (
        "board",
        {"step": "board", "added": [{k: v for k, v in OFFER.items() if k != "offered_at"}]},
        "offered_at: Field required",
    ),
    ("notice", {"step": "notice"}, "(notice).conversation: Field required"),
    (
        "tool",
        {"step": "tool", "tool": "x", "ok": "yes", "message": "m"},
        "(tool).ok: Input should be a valid boolean",
    ),
    ("tool", {"step": "tool", "tool": "x", "ok": True, "message": None}, "(tool).message"),
    ("tool", {"step": "tool", "tool": "x", "ok": True, "message": "m", "counted": "yes"}, "(tool).counted"),
    ("document", {"step": "document"}, "(document): a document step names its department, path and author"),
    ("document", DOC | {"path": None}, "(document).path: Input should be a valid string"),
    (
        "document",
        DOC | {"versions": [], "content": "x"},
        "the versions it added and their content, or neither",
    ),
    ("document", DOC | {"versions": [VERSION]}, "the versions it added and their content, or neither"),
    ("document", DOC | {"versions": ["bc49a161"], "content": "x"}, "(document).versions.0: Input should be"),
    ("document", DOC | {"versions": [VERSION | {"at": "soon"}], "content": "x"}, "(document).versions.0.at"),
    ("document", DOC | {"review": "approved"}, "(document).review: Input should be a valid dictionary"),
    ("document", DOC | {"review": {"status": "approved"}}, "(document).review.reviewer: Field required"),
    ("document", DOC | {"tool": 5}, "(document).tool: Input should be a valid string"),
    (
        "document",
        {"step": "document", "tool": "review", "document": None},
        "names its department, path and author",
    ),
    (
        "document",
        {"step": "document", "tool": "review", "document": "x"},
        "(document).document: Input should be",
    ),
    (
        "document",
        {"step": "document", "document": {**REVISED, "versions": []}},
        "document.versions: List should have at least 1",
    ),
    ("(none)", {"step": "zzz"}, "steps[0] is no step kind ('zzz')"),
    ("(none)", {"step": 5}, "steps[0] names no step"),
    ("(none)", 5, "steps[0] names no step"),
]
# (a step that fits its shape but cannot be applied again, what the refusal says)
UNAPPLIABLE: list[tuple[Any, str]] = [
    (REVISED | {"path": "specs/a\u0000b.md"}, "document path 'specs/a\\x00b.md' is no workspace path"),
    (REVISED | {"path": "../../etc/passwd"}, "document path '../../etc/passwd' is no workspace path"),
    (REVISED | {"department": "eng/specs"}, "document department 'eng/specs' is no workspace path"),
    (DOC | {"path": "docs/never.md", "review": None}, "document eng/docs/never.md was never written"),
    # Caught first by the rules a live step passed (rules/logged.py), in the same one line:
    ({"step": "mind", "employee": "nobody"}, "(mind): 'nobody' is no employee"),
    ({"step": "owe", "employee": "nobody", **OWED}, "(owe): 'nobody' is no employee"),
    (
        {"step": "hold", "employee": "nobody", "conversation": "boss:bob", "reopens_at": AT, "owed": OWED},
        "'nobody'",
    ),
    ({"step": "conversation", "id": "nowhere", "fields": {"name": "x"}}, "'nowhere' is no conversation"),
    (
        {
            "step": "draft",
            "where": "messages[0]",
            "conversation": "api-design",
            "gate": "loop_breaker",
            "rule": "zzz",
        },
        "'zzz'",
    ),
]


def cli(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], env={**CLEAN_ENV, "COLUMNS": "200"})


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=lambda body: json.dumps(respond(body))) as server:
        yield server


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, fake: FakeOpenAIServer) -> Path:
    """A finished run in which Bob writes a document and Alice reviews it (a scripted model)."""
    base = tmp_path_factory.mktemp("hostile-steps")
    script = [{"at": "00:00", "to": "boss:bob", "text": "Please write the API spec."}]
    (base / "office.yaml").write_text(yaml.safe_dump(scenario_dict(script=script)))
    flags = ["--seed", "1", "--duration", "1h", "--model", "scripted", "--base-url", fake.base_url]
    result = cli("run", base / "office.yaml", *flags, "--out", base / "run")
    assert result.exit_code == 0, result.output
    return base / "run"


def with_step(made: Path, tmp_path: Path, step: Any, log: str = "thoughts.jsonl") -> tuple[Path, int]:
    """A copy of the run with one more record, after its last save, applying `step`; the line's number."""
    run = tmp_path / "run"
    shutil.copytree(made, run)
    if log == "thoughts.jsonl":
        record = {
            "id": "t000099",
            "at": AT,
            "employee": "bob",
            "conversation": "boss:bob",
            "trigger": "timer",
        }
        record |= {"thought": None, "spoke": False, "gate": None, "llm": None, "corrections": []}
        record |= {"applied": {"at": AT, "note": "", "rethinks": 0, "began": {}, "steps": [step]}}
    else:  # a boss's command, applied again by a resume
        record = {"at": AT, "cause": "command", "tool": "hire_employee", "args": {}, "steps": [step]}
    path = run / log
    lines = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
    path.write_text("\n".join([*lines, json.dumps(record)]) + "\n", encoding="utf-8")
    return run, len(lines) + 1


READERS = (
    ["report", "--no-plots"],
    ["report", "--json", "--no-plots"],
    ["view", "--out", "{tmp}/view.html"],
    ["inspect"],
    ["inspect", "--json"],
    ["inspect", "--docs"],
    ["inspect", "--docs", "--json"],
)


def read_all(run: Path, tmp_path: Path) -> list[list[str]]:
    """Every reader's warnings (each must end well: exit 0, no traceback)."""
    out = []
    for reader in READERS:
        result = cli(reader[0], run, *(a.format(tmp=tmp_path) for a in reader[1:]))
        assert result.exit_code == 0, (reader, result.output)
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            reader,
            repr(result.exception),
        )
        out.append([w for w in result.stderr.splitlines() if w.strip()])
    return out


def resume_error(run: Path, fake: FakeOpenAIServer) -> str:
    """The one line a resume refuses with; nothing paid, nothing touched."""
    before, calls = snapshot(run), len(fake.requests)
    error = one_error_line(cli("run", "--resume", run, "--duration", "5m", "--base-url", fake.base_url))
    assert len(fake.requests) == calls and snapshot(run) == before
    assert "state.json" not in error, error
    return error


@pytest.mark.parametrize(
    ("kind", "step", "said"), SHAPES, ids=[f"{k}-{i}" for i, (k, _, _) in enumerate(SHAPES)]
)
def test_a_step_of_the_wrong_shape_is_one_warning_for_each_reader_and_one_line_for_a_resume(
    made: Path, tmp_path: Path, fake: FakeOpenAIServer, kind: str, step: Any, said: str
) -> None:
    run, number = with_step(made, tmp_path, step)
    where = f"{run / 'thoughts.jsonl'}: line {number} is not a thought record ("
    for warnings in read_all(run, tmp_path):
        assert len(warnings) == 1, warnings
        assert warnings[0].startswith(f"ideaco: warning: {where}") and warnings[0].endswith(", skipped")
        assert said in warnings[0], warnings[0]
    error = resume_error(run, fake)
    assert error.startswith(f"ideaco: error: {where}") and said in error, error


@pytest.mark.parametrize(
    ("step", "said"), UNAPPLIABLE, ids=[f"{s.get('step')}-{i}" for i, (s, _) in enumerate(UNAPPLIABLE)]
)
def test_a_step_a_resume_cannot_apply_is_refused_naming_its_line_and_readers_show_it(
    made: Path, tmp_path: Path, fake: FakeOpenAIServer, step: Any, said: str
) -> None:
    run, number = with_step(made, tmp_path, step)
    assert read_all(run, tmp_path) == [[]] * len(READERS)  # a sound record: read as it is
    error = resume_error(run, fake)
    line = f"ideaco: error: {run / 'thoughts.jsonl'}: line {number} "
    assert error.startswith(
        (f"{line}cannot be applied again (", f"{line}is not a change the office could make (")
    ), error
    assert said in error and error.endswith("; remove or mend that line to continue this run"), error


@pytest.mark.parametrize(
    ("step", "said", "refused"),
    [
        (
            {"step": "company", "company": []},
            "(company).company: Input should be a valid dictionary",
            "is not a change record (",
        ),
        (
            {"step": "document", "document": "x"},
            "(document).document: Input should be",
            "is not a change record (",
        ),
        (
            {"step": "mind", "employee": "nobody"},
            "'nobody' is no employee",
            "is not a change the office could make (",
        ),
    ],
)
def test_a_change_between_thoughts_is_checked_and_named_the_same_way(
    made: Path, tmp_path: Path, fake: FakeOpenAIServer, step: Any, said: str, refused: str
) -> None:
    run, number = with_step(made, tmp_path, step, "changes.jsonl")
    shape = "not a change record" in refused
    for warnings in read_all(run, tmp_path):
        assert len(warnings) == int(shape), warnings
        assert not shape or (
            warnings[0].startswith(f"ideaco: warning: {run / 'changes.jsonl'}: line {number} ")
            and said in warnings[0]
        )
    error = resume_error(run, fake)
    assert (
        error.startswith(f"ideaco: error: {run / 'changes.jsonl'}: line {number} {refused}") and said in error
    ), error
