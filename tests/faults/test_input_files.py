"""Bad input files (issue 6, item 4): one line naming the file and field, exit 2, nothing written.

Every case runs with an endpoint nobody listens on: a file must be found unusable before any
endpoint is contacted (the error names the file, not the URL) and before anything is written.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.processes import one_error_line, snapshot

ROOT = Path(__file__).resolve().parents[2]
CLEAN_ENV = {name: None for name in ("IDEACO_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "IDEACO_MODEL")}

GOOD = """\
company: Acme Labs
duration: 10m
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
  - {id: bob, name: Bob, role: Backend engineer, persona: bob.yaml}
rooms:
  - {id: api, name: API design, kind: work, members: [alice, bob]}
script:
  - {at: "00:00", to: api, text: "REST or GraphQL?"}
"""
BOB = "archetype: old-hand\ndescription: Has seen three rewrites.\n"


def closed_url() -> str:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{sock.getsockname()[1]}/v1"


def ideaco(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], env=CLEAN_ENV)


# --- scenario files --------------------------------------------------------------------------------

SCENARIO_CASES = {
    "malformed YAML": (
        {"s.yaml": GOOD.replace("members: [alice, bob]}", "members: [alice, bob}")},
        ["s.yaml", "not valid YAML", "line 7"],
    ),
    "unknown archetype": (
        {"s.yaml": GOOD.replace("anxious-perfectionist", "wizard")},
        ["s.yaml", "employees[0].archetype", "wizard"],
    ),
    "duplicate employee ids": (
        {"s.yaml": GOOD.replace("id: bob, name: Bob", "id: alice, name: Bob")},
        ["s.yaml", "employees[1].id", "duplicate id 'alice'"],
    ),
    "a room id that is an employee's boss chat": (
        {"s.yaml": GOOD.replace("{id: api, name: API design", "{id: alice, name: API design")},
        ["s.yaml", "rooms[0].id", "duplicate id 'alice'"],
    ),
    "an empty room": (
        {"s.yaml": GOOD.replace("members: [alice, bob]}", "members: []}")},
        ["s.yaml", "rooms[0].members", "at least one member"],
    ),
    "a room member who is not an employee": (
        {"s.yaml": GOOD.replace("members: [alice, bob]}", "members: [alice, zed]}")},
        ["s.yaml", "rooms[0].members", "'zed' is not an employee"],
    ),
    "a persona file that is a list": (
        {"s.yaml": GOOD, "bob.yaml": "- old-hand\n- grumpy\n"},
        ["s.yaml", "employees[1].persona", "bob.yaml", "not a mapping"],
    ),
    "a missing persona file": (
        {"s.yaml": GOOD.replace("persona: bob.yaml", "persona: nobody.yaml")},
        ["s.yaml", "employees[1].persona", "nobody.yaml", "not found"],
    ),
    "a persona file with an unknown field": (
        {"s.yaml": GOOD, "bob.yaml": BOB + "superpower: flight\n"},
        ["employees[1].persona", "bob.yaml", "superpower", "unknown field"],
    ),
    "a scenario that is a list": ({"s.yaml": "- company: Acme\n"}, ["s.yaml", "not a mapping", "list"]),
    "an empty scenario file": ({"s.yaml": ""}, ["s.yaml", "not a mapping", "empty"]),
    "a scenario that is not UTF-8": ({"s.yaml": GOOD.encode("utf-16")}, ["s.yaml", "UTF-8"]),
    "a script line to an unknown room": (
        {"s.yaml": GOOD.replace("to: api,", "to: lobby,")},
        ["s.yaml", "script[0].to", "'lobby'"],
    ),
    "a duration that is not one": (
        {"s.yaml": GOOD.replace("duration: 10m", "duration: soon")},
        ["s.yaml", "duration", "'soon'"],
    ),
    "a missing scenario file": ({}, ["s.yaml", "not found"]),
    # Text every prompt carries is bounded, and a persona path stays in the scenario's folder (issue 22).
    "a persona of 5 MB": (
        {"s.yaml": GOOD, "bob.yaml": BOB.replace("Has seen three rewrites.", "x" * (5 << 20))},
        ["employees[1].persona", "bob.yaml", "description", "at most 500 characters"],
    ),
    "a persona with a hundred example lines": (
        {"s.yaml": GOOD, "bob.yaml": BOB + "example_lines: [" + ", ".join(["hi"] * 100) + "]\n"},
        ["employees[1].persona", "bob.yaml", "example_lines", "at most 12 items"],
    ),
    "a persona path out of the scenario's folder": (
        {"s.yaml": GOOD.replace("persona: bob.yaml", "persona: ../bob.yaml")},
        ["s.yaml", "employees[1].persona", "../bob.yaml", "outside the scenario's folder"],
    ),
    "an absolute persona path": (
        {"s.yaml": GOOD.replace("persona: bob.yaml", "persona: /etc/hostname")},
        ["employees[1].persona", "/etc/hostname", "outside the scenario's folder"],
    ),
    "a name of 81 characters": (
        {"s.yaml": GOOD.replace("name: Alice,", "name: " + "A" * 81 + ",")},
        ["s.yaml", "employees[0].name", "at most 80 characters"],
    ),
    "a department's mission of 501 characters": (
        {
            "s.yaml": GOOD
            + "departments:\n  - {id: eng, name: Eng, mission: "
            + "m" * 501
            + ", members: [alice]}\n"
        },
        ["s.yaml", "departments[0].mission", "at most 500 characters"],
    ),
    "a script line of 2001 characters": (
        {"s.yaml": GOOD.replace('text: "REST or GraphQL?"', "text: " + "w" * 2001)},
        ["s.yaml", "script[0].text", "at most 2000 characters"],
    ),
}


@pytest.mark.parametrize("case", list(SCENARIO_CASES))
def test_a_bad_scenario_is_one_line_exit_2_and_nothing_written(tmp_path: Path, case: str) -> None:
    files, expected = SCENARIO_CASES[case]
    for name, content in files.items():
        path = tmp_path / name
        path.write_bytes(content.encode() if isinstance(content, str) else content)
    if "bob.yaml" not in files:
        (tmp_path / "bob.yaml").write_text(BOB)
    before = snapshot(tmp_path)
    out = tmp_path / "runs" / "new"
    line = one_error_line(ideaco("run", tmp_path / "s.yaml", "--base-url", closed_url(), "--out", out))
    for part in expected:
        assert part in line, f"{case}: {part!r} not in {line!r}"
    assert not (tmp_path / "runs").exists(), "the run directory was created"
    assert snapshot(tmp_path) == before


def test_the_good_scenario_runs(tmp_path: Path) -> None:
    """The cases above differ from a scenario that works only by the fault each one injects."""
    (tmp_path / "s.yaml").write_text(GOOD)
    (tmp_path / "bob.yaml").write_text(BOB)
    reply = {"innerThoughts": "ok", "topicSaturation": 3, "interestLevel": 5, "shouldSpeak": False}
    with FakeOpenAIServer(default=reply) as fake:
        result = ideaco("run", tmp_path / "s.yaml", "--base-url", fake.base_url, "--out", tmp_path / "run")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "run" / "state.json").exists()


def test_no_traceback_reaches_a_real_terminal(tmp_path: Path) -> None:
    """The same through a real process: stderr holds exactly the one line."""
    bad = tmp_path / "s.yaml"
    bad.write_text(GOOD.replace("anxious-perfectionist", "wizard"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IDEACO_", "OPENAI_"))}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "ideaco",
            "run",
            str(bad),
            "--base-url",
            closed_url(),
            "--out",
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("ideaco: error: "), proc.stderr
    assert "employees[0].archetype" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "o").exists()


# --- run directories ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real run directory to spoil, one copy per test."""
    base = tmp_path_factory.mktemp("finished")
    (base / "s.yaml").write_text(GOOD)
    (base / "bob.yaml").write_text(BOB)
    reply = {
        "innerThoughts": "ok",
        "topicSaturation": 3,
        "interestLevel": 5,
        "shouldSpeak": True,
        "messages": [{"content": "fine"}],
    }
    with FakeOpenAIServer(default=reply) as fake:
        result = ideaco("run", base / "s.yaml", "--base-url", fake.base_url, "--out", base / "run")
    assert result.exit_code == 0, result.output
    return base / "run"


def _edit_state(edit):
    def apply(run: Path) -> None:
        state = json.loads((run / "state.json").read_text())
        edit(state)
        (run / "state.json").write_text(json.dumps(state))

    return apply


def _set_meta_version(state: dict) -> None:
    state["meta"]["1"]["layout_version"] = 99


def _set_office_version(state: dict) -> None:
    state["office"]["1"]["format_version"] = 1  # the format before `applied`: read, not continued


def _set_office_version_text(state: dict) -> None:
    state["office"]["1"]["format_version"] = (
        "2"  # the right number as a string: refused without contradiction
    )


def _drop_office_field(state: dict) -> None:
    del state["office"]["1"]["now"]


def _drop_employees(state: dict) -> None:
    del state["employees"]
    state["meta"]["1"]["tables"].pop("employees", None)


def _bad_clock(state: dict) -> None:
    state["office"]["1"]["now"] = "Monday morning"


def _corrupt_log_line(run: Path) -> None:
    lines = (run / "messages.jsonl").read_text().splitlines(keepends=True)
    lines[1] = '{"id": "m2", "text": tru\n'
    (run / "messages.jsonl").write_text("".join(lines))


RUNDIR_CASES = {
    "a state from another version (meta layout_version 99)": (
        _edit_state(_set_meta_version),
        ["state.json", "layout version 99"],
    ),
    "an office table of an older version": (_edit_state(_set_office_version), ["state.json", "format 1"]),
    "an office format that is the text '2'": (
        _edit_state(_set_office_version_text),
        ["state.json", "state format '2' is not supported for resuming (this ideaco continues format 2;"],
    ),
    "a state that is not JSON": (
        lambda run: (run / "state.json").write_text('{"office": {"1": {"now": '),
        ["state.json", "not a valid state file"],
    ),
    "a state that is a JSON list": (
        lambda run: (run / "state.json").write_text("[1, 2]"),
        ["state.json", "not a JSON object"],
    ),
    "an empty state file": (lambda run: (run / "state.json").write_text(""), ["state.json"]),
    "an office table missing a field": (_edit_state(_drop_office_field), ["state.json", "now"]),
    "a state without its employees table": (_edit_state(_drop_employees), ["state.json", "employees"]),
    "a clock that is not a time": (_edit_state(_bad_clock), ["state.json", "now"]),
    "a log with a corrupt line before its end": (_corrupt_log_line, ["messages.jsonl", "line 2"]),
    "not a run directory": (lambda run: (run / "state.json").unlink(), ["no state.json"]),
}


@pytest.mark.parametrize("endpoint", ["unreachable", "listening"])
@pytest.mark.parametrize("case", list(RUNDIR_CASES))
def test_a_bad_run_directory_is_one_line_exit_2_and_nothing_modified(
    tmp_path: Path, finished_run: Path, case: str, endpoint: str
) -> None:
    spoil, expected = RUNDIR_CASES[case]
    run = tmp_path / "run"
    run.mkdir()
    for src in finished_run.iterdir():
        (run / src.name).write_bytes(src.read_bytes())
    spoil(run)
    # What a killed run also leaves, and a resume would clean up: it must not, when it refuses.
    with open(run / "thoughts.jsonl", "ab") as f:
        f.write(b'{"id": "t9')
    (run / ".state.json.abc123.tmp").write_text("{")
    before = snapshot(run)
    with FakeOpenAIServer() as fake:
        url = closed_url() if endpoint == "unreachable" else fake.base_url
        line = one_error_line(ideaco("run", "--resume", run, "--base-url", url))
    assert not fake.requests
    for part in expected:
        assert part in line, f"{case}: {part!r} not in {line!r}"
    assert snapshot(run) == before, "a refused resume changed the run directory"


def test_a_persona_link_out_of_the_scenario_folder_is_refused(tmp_path: Path) -> None:
    """A link beside the scenario that points elsewhere is read through: where it lands counts."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "secret.yaml").write_text(BOB)
    folder = tmp_path / "scenario"
    folder.mkdir()
    (folder / "s.yaml").write_text(GOOD)
    (folder / "bob.yaml").symlink_to(outside / "secret.yaml")
    line = one_error_line(
        ideaco("run", folder / "s.yaml", "--base-url", closed_url(), "--out", tmp_path / "run")
    )
    assert "employees[1].persona" in line and "outside the scenario's folder" in line
    assert not (tmp_path / "run").exists()
