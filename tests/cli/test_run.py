"""`ideaco run` end to end against the scripted fake OpenAI server (spec 1.1, 1.2, 1.5)."""

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
from ideaco.shipped import shipped_scenarios
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content
from tests.faults.processes import one_error_line

ROOT = Path(__file__).resolve().parents[2]
RUN_FILES = {"state.json", "messages.jsonl", "thoughts.jsonl", "summary.json"}
THOUGHT_FIELDS = {
    "id",
    "at",
    "employee",
    "conversation",
    "trigger",
    "thought",
    "spoke",
    "gate",
    "llm",
    "corrections",
    "next_look_at",
}
MESSAGE_FIELDS = {"id", "at", "conversation", "sender", "text", "mentions", "kind"}
# No ambient endpoint or key may leak into these runs.
CLEAN_ENV = {name: None for name in ("IDEACO_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "IDEACO_MODEL")}

SCENARIO = """\
company: Acme Labs
duration: 30m
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}
rooms:
  - {id: api-design, name: API design, kind: work, members: [alice, bob]}
script:
  - {at: "00:00", to: api-design, text: "Should the new API be REST or GraphQL?"}
  - {at: "00:12", to: "boss:alice", text: "Alice, sum it up for me."}
"""


def answer(body: dict) -> dict:
    """A Flow-of-Thought that depends only on the request, so a replay can match it."""
    prompt = last_user_content(body)
    speak = "\n* [" in prompt  # something unread
    return {
        "innerThoughts": "weighing it up",
        "topicSaturation": 3,
        "interestLevel": 7,
        "shouldSpeak": speak,
        "reason": "scripted",
        "messages": [{"content": f"my take, after {len(prompt)} characters of chat"}] if speak else [],
    }


@pytest.fixture
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(SCENARIO)
    return path


def ideaco(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], env=CLEAN_ENV)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- a run ---------------------------------------------------------------------------------------


def test_run_writes_the_run_directory(fake, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    result = ideaco(
        "run", scenario, "--duration", "10m", "--base-url", fake.base_url, "--out", out, "--seed", "3"
    )
    assert result.exit_code == 0, result.output
    assert {p.name for p in out.iterdir()} >= RUN_FILES
    messages = read_jsonl(out / "messages.jsonl")
    thoughts = read_jsonl(out / "thoughts.jsonl")
    assert messages[0]["sender"] == "boss" and len(messages) > 1
    assert thoughts and all(THOUGHT_FIELDS <= set(t) for t in thoughts)
    assert all(set(m) == MESSAGE_FIELDS for m in messages)
    assert len(fake.requests) == sum((t["llm"] or {}).get("calls", 0) for t in thoughts)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["messages"] == len(messages) and summary["thoughts"] == len(thoughts)
    assert summary["simulated_seconds"] == 600
    state = json.loads((out / "state.json").read_text())
    assert state  # the TinyDB database is there to resume from


def test_run_with_an_endpoint_never_loads_the_embedded_model(fake, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    code = (
        "import sys\n"
        "from ideaco.cli.main import app\n"
        "try:\n"
        "    app(sys.argv[1:])\n"
        "except SystemExit as exc:\n"
        "    print('EXIT', exc.code)\n"
        "print('LOADED', 'xllamacpp' in sys.modules, 'ideaco.llm.embedded' in sys.modules)\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    env["PYTHONPATH"] = str(ROOT)
    args = [
        "run",
        str(scenario),
        "--duration",
        "5m",
        "--base-url",
        fake.base_url,
        "--out",
        str(out),
        "--seed",
        "3",
    ]
    proc = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60
    )
    assert "EXIT 0" in proc.stdout, proc.stdout + proc.stderr
    assert "LOADED False False" in proc.stdout
    assert (out / "messages.jsonl").exists()


# --- failing early, writing nothing --------------------------------------------------------------


def test_a_malformed_scenario_is_one_line_exit_2_and_nothing_written(tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(SCENARIO.replace("archetype: old-hand", "archetype: wizard"))
    out = tmp_path / "run"
    # The endpoint is unreachable too: the scenario must be checked before anything is contacted.
    result = ideaco("run", bad, "--base-url", f"http://127.0.0.1:{closed_port()}/v1", "--out", out)
    line = one_error_line(result)
    assert str(bad) in line and "employees[1].archetype" in line
    assert not out.exists()


def test_an_unreachable_endpoint_is_one_line_exit_2_and_nothing_written(scenario, tmp_path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    out = tmp_path / "run"
    result = ideaco("run", scenario, "--base-url", url, "--out", out)
    line = one_error_line(result)
    assert url in line
    assert not out.exists()


def test_a_missing_scenario_file_is_one_line_exit_2(tmp_path) -> None:
    missing = tmp_path / "nope.yaml"
    out = tmp_path / "run"
    line = one_error_line(ideaco("run", missing, "--out", out))
    assert line == (
        f"ideaco: error: {missing}: file not found (a shipped scenario runs by its name: "
        f"{', '.join(shipped_scenarios())})"
    )
    assert not out.exists()


@pytest.mark.parametrize("command", ["run", "sweep"])
def test_the_help_names_the_shipped_scenarios(command: str) -> None:
    shown = " ".join(ideaco(command, "--help").output.split())  # rich wraps the help
    assert "a shipped scenario by name:" in shown
    assert all(name.replace("-", "- ") in shown or name in shown for name in shipped_scenarios())


def test_a_missing_path_anywhere_whose_name_is_close_to_a_shipped_scenario_names_it(tmp_path) -> None:
    for missing in (tmp_path / "elsewhere" / "startp.yaml", tmp_path / "startup.yaml"):
        line = one_error_line(ideaco("run", missing, "--out", tmp_path / "run"))
        assert line.startswith(f"ideaco: error: {missing}: file not found (did you mean 'startup'?) ")
        assert line.endswith(f"(a shipped scenario runs by its name: {', '.join(shipped_scenarios())})")


def test_a_shipped_name_as_a_missing_path_is_refused_and_a_bare_name_says_it_runs_the_shipped_one(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # a folder without startup.yaml
    line = one_error_line(ideaco("run", "startup.yaml", "--out", tmp_path / "run"))
    assert "startup.yaml: file not found" in line
    url = f"http://127.0.0.1:{closed_port()}/v1"
    result = ideaco("run", "startup", "--base-url", url, "--out", tmp_path / "run")
    said = result.output.splitlines()
    assert said[0].startswith("startup: no such file here, running the shipped scenario (")
    assert said[0].endswith("scenarios/startup.yaml)") and result.exit_code == 2


# --- record, replay, budget, resume --------------------------------------------------------------


def test_replay_of_a_recorded_run_reproduces_its_messages_byte_for_byte(fake, scenario, tmp_path) -> None:
    record = tmp_path / "calls.jsonl"
    first, second = tmp_path / "first", tmp_path / "second"
    result = ideaco(
        "run", scenario, "--duration", "15m", "--base-url", fake.base_url, "--out", first, "--record", record
    )
    assert result.exit_code == 0, result.output
    served = len(fake.requests)
    assert served > 0 and record.exists()

    # The same model flags as the recorded run (they shape the requests), but nothing is contacted.
    result = ideaco(
        "run", scenario, "--duration", "15m", "--base-url", fake.base_url, "--replay", record, "--out", second
    )
    assert result.exit_code == 0, result.output
    assert len(fake.requests) == served
    assert (second / "messages.jsonl").read_bytes() == (first / "messages.jsonl").read_bytes()


def test_max_calls_ends_the_run_cleanly(fake, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    result = ideaco("run", scenario, "--base-url", fake.base_url, "--out", out, "--max-calls", "3")
    assert result.exit_code == 0, result.output
    assert len(fake.requests) == 3
    summary = json.loads((out / "summary.json").read_text())
    assert "--max-calls 3" in summary["stop_reason"]
    assert summary["simulated_seconds"] < 30 * 60
    assert summary["silences_by_gate"].get("budget") == 1


def test_resume_continues_the_run_and_appends(fake, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    assert (
        ideaco("run", scenario, "--duration", "10m", "--base-url", fake.base_url, "--out", out).exit_code == 0
    )
    before = (out / "messages.jsonl").read_text()
    thoughts_before = read_jsonl(out / "thoughts.jsonl")

    result = ideaco("run", "--resume", out, "--duration", "10m", "--base-url", fake.base_url)
    assert result.exit_code == 0, result.output
    after = (out / "messages.jsonl").read_text()
    assert after.startswith(before) and len(after) > len(before)
    messages = read_jsonl(out / "messages.jsonl")
    assert len({m["id"] for m in messages}) == len(messages)
    thoughts = read_jsonl(out / "thoughts.jsonl")
    assert len({t["id"] for t in thoughts}) == len(thoughts) > len(thoughts_before)
    assert [m["id"] for m in messages if m["id"].startswith("script-")] == ["script-1", "script-2"]
    new = messages[len(before.splitlines()) :]
    assert min(m["at"] for m in new) >= "2026-01-05T09:10:00"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["simulated_seconds"] == 20 * 60


def test_a_resume_on_another_model_says_so(fake, scenario, tmp_path) -> None:
    """The model flags are not kept in the run: a resume without them went on with another model
    (the embedded one) without a word."""
    out = tmp_path / "run"
    first = ideaco(
        "run", scenario, "--duration", "5m", "--base-url", fake.base_url, "--model", "m1", "--out", out
    )
    assert first.exit_code == 0, first.output
    same = ideaco("run", "--resume", out, "--duration", "5m", "--base-url", fake.base_url, "--model", "m1")
    assert same.exit_code == 0 and "goes on with" not in same.output
    other = ideaco("run", "--resume", out, "--duration", "5m", "--base-url", fake.base_url, "--model", "m2")
    assert other.exit_code == 0, other.output
    assert (
        "this run's thoughts so far used the model m1; it goes on with m2 "
        "(give the run's --base-url / --model again to keep it)"
    ) in other.output


def test_a_resume_on_the_employees_own_models_says_nothing(fake, tmp_path) -> None:
    """An employee's own `model:` is the model its thoughts used and go on with: not a change."""
    path = tmp_path / "own.yaml"
    own = SCENARIO.replace("archetype: old-hand}", "archetype: old-hand, model: bob-model}")
    path.write_text(own.replace("anxious-perfectionist}", "anxious-perfectionist, model: alice-model}"))
    out = tmp_path / "run"
    first = ideaco("run", path, "--duration", "20m", "--base-url", fake.base_url, "--out", out)
    assert first.exit_code == 0, first.output
    last = read_jsonl(out / "thoughts.jsonl")[-1]
    assert last["llm"]["model"] == f"{last['employee']}-model"  # not the run's model: the case guarded
    again = ideaco("run", "--resume", out, "--duration", "5m", "--base-url", fake.base_url)
    assert again.exit_code == 0 and "goes on with" not in again.output, again.output


def test_a_run_says_why_it_stopped_in_summary_json(fake, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    assert (
        ideaco("run", scenario, "--duration", "5m", "--base-url", fake.base_url, "--out", out).exit_code == 0
    )
    assert (
        json.loads((out / "summary.json").read_text())["stop_reason"]
        == "reached the end of the simulated time"
    )


def test_resuming_a_finished_run_says_until_when_it_goes_on(fake, scenario, tmp_path) -> None:
    out = tmp_path / "run"
    assert (
        ideaco("run", scenario, "--duration", "10m", "--base-url", fake.base_url, "--out", out).exit_code == 0
    )
    result = ideaco("run", "--resume", out, "--base-url", fake.base_url)
    assert result.exit_code == 0, result.output
    assert (
        "this run had reached its end (09:10); without --duration it goes on for the scenario's length "
        "again: until 09:40 (30m00s more simulated time)"
    ) in result.stdout  # the scenario says 30m
    result = ideaco("run", "--resume", out, "--duration", "5m", "--base-url", fake.base_url)
    assert result.exit_code == 0, result.output
    assert "continuing until 09:45 (5m00s more simulated time)" in result.stdout


def test_a_replay_that_misses_stops_with_one_line_naming_the_request(fake, scenario, tmp_path) -> None:
    record = tmp_path / "calls.jsonl"
    first, second = tmp_path / "first", tmp_path / "second"
    args = ["run", scenario, "--duration", "15m", "--base-url", fake.base_url]
    assert ideaco(*args, "--out", first, "--record", record).exit_code == 0
    # Another model name changes every request, so the recording holds none of them.
    result = ideaco(*args, "--model", "another-model", "--out", second, "--replay", record)
    assert result.exit_code == 2, result.output
    assert "no recorded answer" in result.output.lower() or "replay" in result.output.lower()
    assert " in " in result.output  # the request's tag: "<employee> in <conversation> at <time>"
    assert "Traceback" not in result.output
