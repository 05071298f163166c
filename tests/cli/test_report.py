"""`ideaco report RUNDIR`: tables by default, one JSON document with --json, PNGs unless --no-plots."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content
from tests.test_analysis import make_run
from tests.test_plots import NAMES, PNG_SIGNATURE


def ideaco(*args: str | Path):
    env = {"COLUMNS": "100", "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "OPENAI_API_KEY": None}
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    return make_run(tmp_path / "run")


def test_json_is_one_document_with_the_metrics_and_the_plots(run_dir):
    result = ideaco("report", run_dir, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)  # nothing else on stdout
    assert set(doc) >= {"run", "totals", "employees", "hours", "tasks", "stamina_history", "plots"}
    assert doc["totals"]["thoughts"] == 8
    assert doc["employees"]["bob"]["silences_by_gate"]["saturation"] == 1
    assert [Path(p).name for p in doc["plots"]] == list(NAMES)
    for p in doc["plots"]:
        assert Path(p).read_bytes()[:8] == PNG_SIGNATURE


def test_json_is_indented_and_compact_on_request(run_dir):
    pretty = ideaco("report", run_dir, "--json", "--no-plots").stdout
    compact = ideaco("report", run_dir, "--json", "--no-plots", "--compact").stdout
    assert json.loads(pretty) == json.loads(compact)
    assert pretty.startswith('{\n  "run"') and len(compact.splitlines()) == 1


def test_no_plots_writes_none(run_dir):
    result = ideaco("report", run_dir, "--json", "--no-plots")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["plots"] == []
    assert not any((run_dir / name).exists() for name in NAMES)


def test_default_output_has_the_tables_and_lists_the_plots(run_dir):
    result = ideaco("report", run_dir)
    assert result.exit_code == 0, result.output
    out = result.stdout
    for title in (
        "Employees",
        "Model use",
        "Silences by gate",
        "Per simulated hour",
        "Tasks",
        "Relationships",
    ):
        assert title in out
    assert "Acme Labs" in out and "budget spent: 8 calls" in out
    assert "Compare REST and GraphQL" in out
    assert "1h09m" in out  # task-1 took 4145 s
    assert "10:00" in out  # the second hour's row
    assert "Plots written:" in out
    for name in NAMES:
        assert str(run_dir / name) in out


def test_names_are_shown_literally(tmp_path):
    run_dir = make_run(tmp_path / "run", names=("[bold red]Alice[/bold red]", "Bob\x1b[2J"))
    result = ideaco("report", run_dir, "--no-plots")
    assert result.exit_code == 0, result.output
    assert "[bold red]Alice[/bold red]" in result.stdout
    assert "\x1b[2J" not in result.stdout and "Bob\\x1b[2J" in result.stdout
    assert "Plots skipped" in result.stdout


def test_an_incomplete_run_is_flagged(tmp_path):
    run_dir = make_run(tmp_path / "run", summary=False)
    result = ideaco("report", run_dir, "--no-plots")
    assert result.exit_code == 0, result.output
    assert "no summary.json" in result.stdout


@pytest.mark.parametrize("make", [lambda p: None, lambda p: p.mkdir()])
def test_not_a_run_is_one_error_line(tmp_path, make):
    target = tmp_path / "nothing"
    make(target)
    result = ideaco("report", target)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and str(target) in lines[0]
    assert result.stdout == ""


def test_plots_that_cannot_be_written_are_one_error_line(run_dir):
    (run_dir / "relationships.png").mkdir()  # savefig cannot replace a directory
    result = ideaco("report", run_dir)
    assert result.exit_code == 2
    assert "--no-plots" in result.stderr and "Traceback" not in result.output


SCENARIO = """\
company: Acme Labs
duration: 1h
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}
  - {id: cleo, name: Cleo, role: Designer, archetype: chatterbox}
rooms:
  - {id: api-design, name: API design, kind: work, members: [alice, bob, cleo]}
script:
  - {at: "00:00", to: api-design, text: "Should the new API be REST or GraphQL?"}
  - {at: "00:05", to: "boss:bob", text: "Bob, please research it and tell me."}
  - {at: "00:20", to: api-design, text: "Status, everyone?"}
"""


def busy_answer(body: dict) -> dict:
    """Thoughts with affinity swings and task ops, decided by the request alone."""
    prompt = last_user_content(body)
    system = body["messages"][0]["content"]
    me = re.search(r"You are (\w+)", system).group(1).lower()
    n = len(prompt)
    others = [p for p in ("alice", "bob", "cleo") if p != me]
    open_tasks = re.findall(r"^\[(task-\d+)\]", prompt + "\n" + system, re.M)
    ops: list[dict] = []
    if open_tasks and n % 3 != 2:
        ops = [{"op": "resolve" if n % 3 == 0 else "fail", "taskId": open_tasks[0], "result": "ok"}]
    elif n % 2 == 0:
        ops = [{"op": "create", "description": f"look into {n}", "type": "oneshot"}]
    speak = "\n* [" in prompt
    return {
        "innerThoughts": "hm",
        "topicSaturation": n % 9 + 1,
        "interestLevel": 4 + n % 7,
        "shouldSpeak": speak,
        "reason": "",
        "messages": [{"content": f"note {n}"}] if speak else [],
        "relationshipOps": [
            {"employeeId": others[n % 2], "name": "x", "impression": "hm", "affinity": 10 + n % 85}
        ],
        "taskOps": ops,
    }


def test_stamina_replay_ends_on_the_engine_state_of_a_real_run(tmp_path):
    scenario = tmp_path / "busy.yaml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    with FakeOpenAIServer(handler=busy_answer) as fake:
        result = ideaco("run", scenario, "--out", out, "--base-url", fake.base_url)
    assert result.exit_code == 0, result.output
    doc = json.loads(ideaco("report", out, "--json", "--no-plots").stdout)
    assert doc["totals"]["thoughts"] >= 15 and doc["totals"]["tasks"]["by_status"]["resolved"] > 0
    assert any(rel["swings"] for e in doc["employees"].values() for rel in e["relationships"].values())
    for eid, emp in doc["employees"].items():
        last = doc["stamina_history"]["by_employee"][eid][-1]
        for key in ("patience", "fatigue", "stress"):
            assert last[key] == pytest.approx(emp["stamina"][key], abs=1e-2), (eid, key)
