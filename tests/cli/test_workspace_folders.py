"""Through the CLI (issue 28, item 1): a document whose path is another document's folder
(`docs/a.md` then `docs`, `specs` then `specs/b.md`) is one tool refusal the employee reads, and
the run goes on; a run directory that holds such a pair already (written before ideaco refused
it) is refused by `--resume` in one line, touching nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner, Result

from ideaco.cli.main import app
from ideaco.office.core.documents import version_hash
from ideaco.office.rules.documents import FOLDER_CLASH
from ideaco.store.state import StateStore
from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.conftest import CLEAN_ENV
from tests.faults.processes import one_error_line, snapshot
from tests.office.conftest import scenario_dict, thought

FIRST = ["docs/a.md", "docs", "specs"]  # a thought's actions are at most three
THEN = ["specs/b.md", "docs2/a.md", "docsx"]


def _text(path: str) -> str:
    return f"# {path}\n"


def _write(path: str) -> dict[str, Any]:
    return {"tool": "write_document", "args": {"path": path, "content": _text(path)}}


def respond(body: dict[str, Any], prompts: list[str]) -> str:
    system, user = (str(m.get("content") or "") for m in body["messages"][:2])
    if system.startswith("You are Bob,"):
        prompts.append(user)
        if "Please write the docs." in user and "(version" not in user:
            return json.dumps(thought(True, "On it.", actions=[_write(p) for p in FIRST]))
        if "Done?" in user and "docsx (version" not in user:
            return json.dumps(thought(True, "Now.", actions=[_write(p) for p in THEN]))
    return json.dumps(thought())


def _invoke(args: list[str | Path]) -> Result:
    return CliRunner().invoke(app, [str(a) for a in args], env=CLEAN_ENV)


def _files(run: Path) -> dict[str, bytes]:
    root = run / "workspace"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _tools(run: Path) -> list[tuple[bool, str]]:
    records = [json.loads(line) for line in (run / "thoughts.jsonl").read_text().splitlines()]
    return [(s["ok"], s["message"]) for r in records for s in r["applied"]["steps"] if s["step"] == "tool"]


def wrote(path: str) -> tuple[bool, str]:
    return True, f"wrote {path} (version {version_hash(_text(path))})"


def refused(path: str, other: str) -> tuple[bool, str]:
    return False, f"write_document refused: {FOLDER_CLASH}: {path} and {other} cannot both be files"


def _run(tmp_path: Path, prompts: list[str]) -> Path:
    scenario, out = tmp_path / "office.yaml", tmp_path / "run"
    script = [
        {"at": "00:00", "to": "boss:bob", "text": "Please write the docs."},
        {"at": "00:10", "to": "boss:bob", "text": "Done?"},
    ]
    scenario.write_text(yaml.safe_dump(scenario_dict(script=script)))
    with FakeOpenAIServer(handler=lambda body: respond(body, prompts)) as fake:
        args = ["run", scenario, "--seed", "1", "--duration", "20m", "--model", "scripted"]
        result = _invoke([*args, "--base-url", fake.base_url, "--out", out])
    assert result.exit_code == 0, result.output
    return out


def test_a_path_that_is_another_documents_folder_is_refused_and_the_run_goes_on(tmp_path: Path) -> None:
    prompts: list[str] = []
    out = _run(tmp_path, prompts)
    assert _tools(out) == [
        wrote("docs/a.md"),
        refused("docs", "docs/a.md"),
        wrote("specs"),
        refused("specs/b.md", "specs"),
        wrote("docs2/a.md"),
        wrote("docsx"),
    ]
    written = ("docs/a.md", "docs2/a.md", "docsx", "specs")
    assert _files(out) == {f"eng/{p}": _text(p).encode() for p in written}
    assert any(FOLDER_CLASH in p for p in prompts[1:])  # Bob read why in his next thought
    with FakeOpenAIServer(handler=lambda body: respond(body, prompts)) as fake:
        resumed = _invoke(["run", "--resume", out, "--duration", "10m", "--base-url", fake.base_url])
    assert resumed.exit_code == 0, resumed.output


def test_a_resume_refuses_documents_written_in_each_others_way_in_one_line(tmp_path: Path) -> None:
    out = _run(tmp_path, [])
    with StateStore(out / "state.json") as store:  # as an ideaco without the check left it
        state = store.load()
        assert state is not None
        documents = state["office"]["documents"]
        first = next(d for d in documents if d["path"] == "docs/a.md")
        documents.append({**first, "path": "docs"})
        store.save(state)
    before = snapshot(out)
    resumed = _invoke(["run", "--resume", out, "--base-url", "http://127.0.0.1:9/v1", "--model", "scripted"])
    line = one_error_line(resumed)
    assert f"state.json: documents eng/docs and eng/docs/a.md cannot both be files: {FOLDER_CLASH}" in line
    assert snapshot(out) == before
