"""An agent employee through the CLI (issue 20, item 6): Bob's documents come from a command.

Without --allow-agent-commands the command never runs: the chat model's content is written and
the thought says what would have run. With it, the command writes version 1 (stdout) and the
revision (the file it rewrites in its scratch copy, after reading the review on stdin). A
`--replay` of that run's recording rebuilds the same workspace without running the command.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.cli.test_workspace_replay import PATH, V1, _files, _run, respond
from tests.fakes.openai_server import FakeOpenAIServer
from tests.office.conftest import scenario_dict

AGENT = r"""
import pathlib, sys
brief = sys.stdin.read()
with open(sys.argv[1], "a", encoding="utf-8") as ran:
    ran.write("ran\n")
target = pathlib.Path("specs/api.md")
if target.exists():  # a revision: the file rewritten here, with what the review said
    notes = brief.split("(rejected):", 1)[1].strip().splitlines()[0]
    target.write_text(target.read_text(encoding="utf-8") + f"\nFixed: {notes}\n", encoding="utf-8")
else:
    first = brief.split("# Task", 1)[1].strip().splitlines()[0]
    print(f"# API spec (agent)\n\nFor: {first}")
"""


def _office(tmp_path: Path) -> tuple[Path, Path]:
    agent, ran = tmp_path / "agent.py", tmp_path / "ran.log"
    agent.write_text(AGENT, encoding="utf-8")
    data = scenario_dict(script=[{"at": "00:00", "to": "boss:bob", "text": "Please write the API spec."}])
    bob = next(e for e in data["employees"] if e["id"] == "bob")
    bob["agent"] = {"command": [sys.executable, str(agent), str(ran)], "timeout": "30s"}
    scenario = tmp_path / "office.yaml"
    scenario.write_text(yaml.safe_dump(data), encoding="utf-8")
    return scenario, ran


def _thoughts(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "thoughts.jsonl").read_text(encoding="utf-8").splitlines()]


def _tool_lines(run: Path) -> list[str]:
    return [
        s["message"]
        for t in _thoughts(run)
        for s in t["applied"]["steps"]
        if s["step"] == "tool" and s["tool"].endswith("_document")
    ]


def test_without_the_flag_the_chat_model_writes_and_the_thought_says_what_would_have_run(
    tmp_path: Path,
) -> None:
    scenario, ran = _office(tmp_path)
    common = ["run", str(scenario), "--seed", "1", "--duration", "1h", "--model", "scripted"]
    with FakeOpenAIServer(handler=lambda body: json.dumps(respond(body))) as fake:
        _run([*common, "--base-url", fake.base_url, "--out", str(tmp_path / "plain")])
    assert not ran.exists()  # never run
    assert _files(tmp_path / "plain")[f"eng/{PATH}"].startswith(V1.encode())
    corrections = [c for t in _thoughts(tmp_path / "plain") for c in t.get("corrections") or ()]
    assert any("would have run:" in c and "agent.py" in c for c in corrections)


def test_the_command_writes_and_revises_and_a_replay_rebuilds_it_without_running(tmp_path: Path) -> None:
    scenario, ran = _office(tmp_path)
    recording = tmp_path / "answers.jsonl"
    common = ["run", str(scenario), "--seed", "1", "--duration", "1h", "--model", "scripted"]
    live, again = tmp_path / "live", tmp_path / "again"
    with FakeOpenAIServer(handler=lambda body: json.dumps(respond(body))) as fake:
        _run(
            [
                *common,
                "--base-url",
                fake.base_url,
                "--out",
                str(live),
                "--record",
                str(recording),
                "--allow-agent-commands",
            ]
        )
        _run([*common, "--base-url", fake.base_url, "--out", str(tmp_path / "plain")])
    assert ran.read_text().count("ran") == 2  # the first version and the one revision
    text = _files(live)[f"eng/{PATH}"].decode()
    assert text == "# API spec (agent)\n\nFor: Please write the API spec.\n\nFixed: round 0\n"
    sources = [m.rsplit("(content by the agent command's ", 1)[-1] for m in _tool_lines(live)]
    assert sources == ["stdout)", "file)"]
    # The plain run (no flag) wrote the chat model's words: a different workspace.
    assert _files(tmp_path / "plain") != _files(live)
    _run([*common, "--base-url", "http://127.0.0.1:9/v1", "--out", str(again), "--replay", str(recording)])
    assert ran.read_text().count("ran") == 2  # the replay ran nothing
    assert _files(again) == _files(live)
    assert _tool_lines(again) == _tool_lines(live)


# Issue 28, item 3: the run's own key and its endpoint's password never reach an agent command,
# and what a command prints (it may find them elsewhere) is scrubbed like a model's answer.
KEY, URL_USER, URL_PASSWORD = "mycred-KEY-8f7e6d5c", "acme-user", "hunter2-SECRETPW"
PRYING = r"""
import os, pathlib, sys
sys.stdin.read()
pathlib.Path(sys.argv[1]).write_text(repr(dict(os.environ)), encoding="utf-8")  # what it saw
told = pathlib.Path(sys.argv[2]).read_text(encoding="utf-8")  # what it found lying around
if pathlib.Path("specs/api.md").exists():  # the revision: refused, its reason the secrets
    sys.exit(f"cannot revise, found {told}")
print(f"# API spec (agent)\n\nfound {told}\n\nenv {dict(os.environ)!r}")
"""


def test_an_agent_command_sees_no_run_secret_and_its_output_is_scrubbed(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from ideaco.cli.main import app
    from ideaco.redact import basic_credentials

    agent, seen, found = tmp_path / "agent.py", tmp_path / "seen-env.txt", tmp_path / "found.txt"
    agent.write_text(PRYING, encoding="utf-8")
    found.write_text(f"key {KEY} password {URL_PASSWORD}", encoding="utf-8")
    data = scenario_dict(script=[{"at": "00:00", "to": "boss:bob", "text": "Please write the API spec."}])
    bob = next(e for e in data["employees"] if e["id"] == "bob")
    bob["agent"] = {"command": [sys.executable, str(agent), str(seen), str(found)], "timeout": "30s"}
    bob["agent"]["env"] = ["KEEP_ME", "MYCRED", "URL_COPY"]  # named, the run's secrets still never pass
    scenario = tmp_path / "office.yaml"
    scenario.write_text(yaml.safe_dump(data), encoding="utf-8")
    out, record = tmp_path / "run", tmp_path / "answers.jsonl"
    with FakeOpenAIServer(handler=lambda body: json.dumps(respond(body))) as fake:
        url = fake.base_url.replace("http://", f"http://{URL_USER}:{URL_PASSWORD}@")
        env = {"MYCRED": KEY, "OPENAI_BASE_URL": url, "URL_COPY": url, "KEEP_ME": "kept-value"}
        env |= {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None}
        args = ["run", str(scenario), "--seed", "1", "--duration", "1h", "--model", "scripted"]
        args += ["--api-key-env", "MYCRED", "--out", str(out), "--record", str(record)]
        result = CliRunner().invoke(app, [*args, "--allow-agent-commands"], env=env)
    assert result.exit_code == 0, result.output
    saw = seen.read_text(encoding="utf-8")
    assert "KEEP_ME" in saw and "kept-value" in saw  # the command ran, with the named variable passed
    for name in ("MYCRED", "OPENAI_BASE_URL", "URL_COPY"):
        assert f"'{name}'" not in saw, f"the command saw {name}"
    assert KEY not in saw and URL_PASSWORD not in saw
    assert _files(out)[f"eng/{PATH}"].decode().startswith("# API spec (agent)\n\nfound key *** password ***")
    assert any("cannot revise, found key *** password ***" in line for line in _tool_lines(out))
    secrets = (KEY, URL_PASSWORD, basic_credentials(URL_USER, URL_PASSWORD))
    places = {str(p): p.read_text(errors="replace") for p in [*out.rglob("*"), record] if p.is_file()}
    places["CLI output"] = result.output
    leaks = [(secret, where) for secret in secrets for where, text in places.items() if secret in text]
    assert leaks == [], f"leaked: {leaks}"


# Issue 28, item 18: a recording's agent outcomes are checked like its chat answers.
def _tampered(body: dict[str, Any], case: str) -> str:
    if case == "not JSON":
        return "the command printed this"
    if case == "a list":
        return json.dumps([body])
    if case == "no ran":
        return json.dumps({k: v for k, v in body.items() if k != "ran"})
    assert case == "ok as text"
    return json.dumps({**body, "ok": "no"})


def _tampered_recording(
    tmp_path: Path, case: str, model: str = "agent-command"
) -> tuple[list[str], Path, int]:
    """A live run's recording, its first agent outcome tampered with (and recorded as `model`'s):
    the replay's arguments (without --out), the recording, the tampered line's number."""
    scenario, _ = _office(tmp_path)
    recording = tmp_path / "answers.jsonl"
    common = ["run", str(scenario), "--seed", "1", "--duration", "1h", "--model", "scripted"]
    with FakeOpenAIServer(handler=lambda body: json.dumps(respond(body))) as fake:
        live = [*common, "--base-url", fake.base_url, "--out", str(tmp_path / "live")]
        _run([*live, "--record", str(recording), "--allow-agent-commands"])
    lines = [json.loads(line) for line in recording.read_text(encoding="utf-8").splitlines()]
    number = next(n for n, line in enumerate(lines, 1) if line["model"] == "agent-command")
    agent = lines[number - 1]
    agent["response"]["content"] = _tampered(json.loads(agent["response"]["content"]), case)
    agent["model"] = model
    recording.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return [*common, "--base-url", "http://127.0.0.1:9/v1", "--replay", str(recording)], recording, number


@pytest.mark.parametrize("case", ["not JSON", "a list", "no ran", "ok as text"])
def test_a_replay_refuses_a_recorded_agent_outcome_that_is_not_one_in_one_line(
    tmp_path: Path, case: str
) -> None:
    from typer.testing import CliRunner

    from ideaco.cli.main import app
    from tests.faults.processes import one_error_line

    args, recording, number = _tampered_recording(tmp_path, case)
    out = tmp_path / "again"
    env = {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None}
    error = one_error_line(CliRunner().invoke(app, [*args, "--out", str(out)], env=env))
    assert error.startswith(f"ideaco: error: --replay {recording}:{number}: not a recording line ("), error
    assert "agent command's outcome" in error
    assert not out.exists()


def test_a_bad_agent_outcome_recorded_under_another_model_is_a_refusal_naming_its_line(
    tmp_path: Path,
) -> None:
    """The line's own `model` says it is no agent's, so it passes the reading: answering the agent's
    request, it is checked then, and the document is refused with the line named (no traceback)."""
    from typer.testing import CliRunner

    from ideaco.cli.main import app

    args, recording, number = _tampered_recording(tmp_path, "ok as text", model="scripted")
    env = {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None}
    result = CliRunner().invoke(app, [*args, "--out", str(tmp_path / "again")], env=env)
    # The refusal changes what follows: the replay then stops at a request the recording never saw.
    assert result.exit_code in (0, 2) and "Traceback" not in result.output, result.output
    refused = [m for m in _tool_lines(tmp_path / "again") if "outcome is unknown" in m]
    assert refused and f"--replay {recording}:{number}: not a recording line" in refused[0], refused


def test_the_command_runs_only_for_a_call_that_can_succeed(tmp_path: Path) -> None:
    """Issue 28, item 17: the command ran for `docs/a b;c.md` (and a stale revision) before the
    path and the document's state were checked, then the call was refused. The checks come first."""
    scenario, ran = _office(tmp_path)

    def respond_with_bad_calls(body: dict[str, Any]) -> str:
        answer = respond(body)
        writes = [a for a in answer["actions"] if a["tool"] == "write_document"]
        if writes:  # Bob's first answer: a bad path and a stale revision before the good write
            bad = [
                {"tool": "write_document", "args": {"path": "docs/a b;c.md", "content": "x"}},
                {"tool": "revise_document", "args": {"path": PATH, "content": "y", "base": "deadbeef"}},
            ]
            answer["actions"] = bad + answer["actions"]
        return json.dumps(answer)

    common = ["run", str(scenario), "--seed", "1", "--duration", "1h", "--model", "scripted"]
    with FakeOpenAIServer(handler=respond_with_bad_calls) as fake:
        _run([*common, "--base-url", fake.base_url, "--out", str(tmp_path / "run"), "--allow-agent-commands"])
    lines = _tool_lines(tmp_path / "run")
    assert lines[:3] == [
        "write_document refused: 'a b;c.md' in 'docs/a b;c.md': use letters (any script), digits, '.', '_' and '-' only",
        "revise_document refused: no document 'specs/api.md' in your department's workspace",
        f"wrote {PATH} (version {lines[2].split('version ')[1]}",
    ]
    assert ran.read_text().count("ran") == 1  # for the good write only (a thought keeps 3 actions: no review)
