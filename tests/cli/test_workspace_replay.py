"""Through the CLI (issue 20): a run whose employees write and review a document records its
answers; `--replay` of that recording writes the same workspace, byte for byte."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.fakes.openai_server import FakeOpenAIServer
from tests.office.conftest import scenario_dict, thought

PATH = "specs/api.md"
V1 = "# API spec\n\nGET /users lists users.\n"
V2 = V1 + "\nErrors: 404 when a user is missing.\n"


def _tool(name: str, **args: Any) -> dict[str, Any]:
    return {"tool": name, "args": args}


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """The review, read off each prompt: who is asked, and where the document's review stands."""
    system, user = (str(m.get("content") or "") for m in body["messages"][:2])
    me = system.removeprefix("You are ").split(",", 1)[0]
    state = re.search(
        rf"- {re.escape(PATH)} \(version (\w+), by Bob\): (\w+), reviewer Alice, rejections (\d)", user
    )
    asked = "[system]" in user
    if me == "Bob" and "Please write the API spec" in user and f"{PATH} (version" not in user:
        return thought(
            True,
            "On it.",
            actions=[_tool("write_document", path=PATH, content=V1), _tool("request_review", path=PATH)],
        )
    if state is None or not asked:
        return thought()
    version, status, rejections = state.group(1), state.group(2), int(state.group(3))
    if me == "Alice" and status in ("requested", "rebutted"):
        verdict = "approve" if status == "rebutted" else "reject"
        return thought(actions=[_tool("review", path=PATH, verdict=verdict, notes=f"round {rejections}")])
    if me == "Bob" and status == "rejected" and rejections == 1:
        return thought(
            actions=[
                _tool("revise_document", path=PATH, content=V2, base=version),
                _tool("request_review", path=PATH),
            ]
        )
    if me == "Bob" and status == "rejected":
        return thought(actions=[_tool("rebut", path=PATH, argument="errors are in the guide")])
    return thought()


def _run(args: list[str]) -> None:
    result = CliRunner().invoke(app, args, env={"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None})
    assert result.exit_code == 0, result.output


def _files(run: Path) -> dict[str, bytes]:
    root = run / "workspace"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_a_replay_writes_the_recorded_runs_workspace_byte_for_byte(tmp_path: Path) -> None:
    scenario = tmp_path / "office.yaml"
    script = [{"at": "00:00", "to": "boss:bob", "text": "Please write the API spec."}]
    scenario.write_text(yaml.safe_dump(scenario_dict(script=script)))
    recording = tmp_path / "answers.jsonl"
    common = ["run", str(scenario), "--seed", "1", "--duration", "1h", "--model", "scripted"]
    with FakeOpenAIServer(handler=lambda body: json.dumps(respond(body))) as fake:
        _run(
            [
                *common,
                "--base-url",
                fake.base_url,
                "--out",
                str(tmp_path / "live"),
                "--record",
                str(recording),
            ]
        )
    _run(
        [
            *common,
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--out",
            str(tmp_path / "again"),
            "--replay",
            str(recording),
        ]
    )
    assert _files(tmp_path / "live") == _files(tmp_path / "again") == {f"eng/{PATH}": V2.encode()}
    thoughts = [json.loads(line) for line in (tmp_path / "again" / "thoughts.jsonl").read_text().splitlines()]
    tools = [s["tool"] for t in thoughts for s in t["applied"]["steps"] if s["step"] == "tool" and s["ok"]]
    assert tools == [
        "write_document",
        "request_review",
        "review",
        "revise_document",
        "request_review",
        "review",
        "rebut",
        "review",
    ]
