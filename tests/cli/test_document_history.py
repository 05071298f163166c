"""A document's log grows with its versions, not their square (issue 28, item 6), through the CLI.

Bob revises one document at each of the boss's 200 lines. Each document step logs what it changed
(the version it added and the text), so the bytes logged per version stay the same from 10 to 200
versions (the whole version list in every step made them grow with the count: 2,110 versions gave a
203 MB thoughts.jsonl). `report`, `view` and `inspect --docs` rebuild the same 200 versions from the
steps, and a resume whose state.json is 100 versions behind its logs catches up to the same document.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.office.core.documents import KEPT_VERSIONS
from ideaco.store.state import StateStore
from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.conftest import CLEAN_ENV
from tests.office.conftest import scenario_dict, thought

PATH = "specs/api.md"
VERSIONS = 200
HALF = 100  # the first run's versions; a resume adds the rest
DATA_BLOCK = re.compile(r'<script type="application/json" id="ideaco-data">(.*?)</script>', re.S)


def text(n: int) -> str:
    return f"# API spec\n\nRevision {n:04d}: GET /users lists users.\n"


def version(n: int) -> str:
    return hashlib.sha256(text(n).encode()).hexdigest()[:8]


def respond(body: dict[str, Any]) -> dict[str, Any]:
    """Bob writes the spec at the boss's first line and revises it at each later one."""
    system, user = (str(m.get("content") or "") for m in body["messages"][:2])
    asked = [
        int(n)
        for line in user.splitlines()
        if line.startswith("* [")
        for n in re.findall(r"Revision (\d+)", line)
    ]
    if not system.startswith("You are Bob,") or not asked:
        return thought()
    current = re.search(rf"- {re.escape(PATH)} \(version (\w+), by Bob\)", user)
    if current is None:
        return thought(
            actions=[{"tool": "write_document", "args": {"path": PATH, "content": text(max(asked))}}]
        )
    args = {"path": PATH, "content": text(max(asked)), "base": current.group(1)}
    return thought(actions=[{"tool": "revise_document", "args": args}])


def cli(*args: Any) -> Any:
    result = CliRunner().invoke(app, [str(a) for a in args], env={**CLEAN_ENV, "COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def document_steps(run: Path) -> list[tuple[int, dict[str, Any]]]:
    """Each document step with the bytes of thoughts.jsonl up to and including its thought's line."""
    out, size = [], 0
    for line in (run / "thoughts.jsonl").read_bytes().splitlines(keepends=True):
        size += len(line)
        steps = json.loads(line)["applied"]["steps"]
        out += [(size, s) for s in steps if s["step"] == "document"]
    return out


def saved_document(state: Path) -> dict[str, Any]:
    with StateStore(state) as store:
        [doc] = store.load()["office"]["documents"]
    return doc


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A run of 200 versions made in two parts, and a copy of its state.json after the first."""
    base = tmp_path_factory.mktemp("history")
    script = [
        {"at": f"{m // 60:02d}:{m % 60:02d}", "to": "boss:bob", "text": f"Revision {m} please."}
        for m in range(VERSIONS)
    ]
    (base / "office.yaml").write_text(yaml.safe_dump(scenario_dict(script=script)))
    run = base / "run"
    with FakeOpenAIServer(handler=respond) as fake:
        flags = ["--seed", "1", "--model", "scripted", "--base-url", fake.base_url]
        cli("run", base / "office.yaml", "--duration", f"{HALF}m", "--out", run, *flags)
        shutil.copy(run / "state.json", base / "state-half.json")
        cli("run", "--resume", run, "--duration", f"{VERSIONS - HALF + 1}m", *flags)
    return {"run": run, "half": base / "state-half.json"}


def test_the_bytes_logged_per_version_stay_the_same_from_10_to_200_versions(made: dict[str, Path]) -> None:
    logged = document_steps(made["run"])
    assert len(logged) == VERSIONS  # one write and 199 revisions, each one step
    sizes = [len(json.dumps(step)) for _, step in logged]
    assert max(sizes[VERSIONS - 10 :]) <= max(sizes[10:20])  # the 200th step is no bigger than the 11th
    per_version = {n: logged[n - 1][0] / n for n in (10, 50, VERSIONS)}  # thoughts.jsonl bytes per version
    assert per_version[VERSIONS] <= 1.1 * per_version[10], per_version
    assert per_version[50] <= 1.1 * per_version[10], per_version


def test_state_json_keeps_a_bounded_document_whatever_its_versions(made: dict[str, Path]) -> None:
    half, now = saved_document(made["half"]), saved_document(made["run"] / "state.json")
    assert (len(half["versions"]), half["earlier"]) == (KEPT_VERSIONS, HALF - KEPT_VERSIONS)
    assert (len(now["versions"]), now["earlier"]) == (KEPT_VERSIONS, VERSIONS - KEPT_VERSIONS)
    assert [v["hash"] for v in now["versions"]] == [
        version(n) for n in range(VERSIONS - KEPT_VERSIONS, VERSIONS)
    ]
    assert abs(len(json.dumps(now)) - len(json.dumps(half))) <= 16  # the same size (its counts' digits aside)


def test_report_view_and_inspect_rebuild_every_version_from_the_steps(
    made: dict[str, Path], tmp_path: Path
) -> None:
    run = made["run"]
    work = json.loads(cli("report", run, "--json", "--no-plots").stdout)["documents"]
    assert work["written"] == 1
    assert work["documents"] == [
        {
            "document": f"eng/{PATH}",
            "author": "bob",
            "versions": VERSIONS,
            "rejections": 0,
            "status": "not reviewed",
            "reviewer": None,
        }
    ]
    history = json.loads(cli("inspect", run, "--docs", "--json").stdout)["history"]
    assert [h["what"] for h in history] == ["written"] + ["revised"] * (VERSIONS - 1)
    assert [(h["version"], h["versions"]) for h in history] == [(version(n), n + 1) for n in range(VERSIONS)]
    cli("view", run, "--out", tmp_path / "view.html")
    data = json.loads(DATA_BLOCK.search((tmp_path / "view.html").read_text(encoding="utf-8")).group(1))
    [doc] = data["documents"]
    assert doc["count"] == VERSIONS and [v["hash"] for v in doc["versions"]] == [
        version(n) for n in range(VERSIONS)
    ]
    assert doc["versions"][-1]["content"] == text(VERSIONS - 1)
    assert f"+Revision {VERSIONS - 1:04d}" in doc["versions"][-1]["diff"]


def test_a_resume_catches_up_a_hundred_versions_from_the_steps(made: dict[str, Path], tmp_path: Path) -> None:
    """As after a kill just past the first part's last save: state.json 100 versions behind its logs."""
    run = tmp_path / "run"
    shutil.copytree(made["run"], run)
    shutil.copy(made["half"], run / "state.json")
    with FakeOpenAIServer(handler=respond) as fake:
        cli("run", "--resume", run, "--duration", "1m", "--base-url", fake.base_url, "--model", "scripted")
    assert saved_document(run / "state.json") == saved_document(made["run"] / "state.json")
    assert (run / "workspace" / "eng" / PATH).read_text(encoding="utf-8") == text(VERSIONS - 1)


def legacy(run: Path) -> None:
    """The run's thoughts.jsonl as an ideaco before issue 28 (item 6) logged it: each document step
    holding the whole document, every version so far."""
    whole: dict[str, Any] = {}
    lines = []
    for line in (run / "thoughts.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        for i, step in enumerate(record["applied"]["steps"]):
            if step["step"] == "document":
                doc = whole.setdefault(step["path"], {"versions": []})
                doc |= {k: step[k] for k in ("department", "path", "author", "task", "review")}
                doc["versions"] = doc["versions"] + step.get("versions", [])
                doc["content"] = step.get("content", doc.get("content"))
                record["applied"]["steps"][i] = {
                    "step": "document",
                    "tool": step["tool"],
                    "document": dict(doc),
                }
        lines.append(json.dumps(record))
    (run / "thoughts.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_an_older_ideacos_whole_document_steps_read_and_resume_the_same(
    made: dict[str, Path], tmp_path: Path
) -> None:
    run = tmp_path / "run"
    shutil.copytree(made["run"], run)
    legacy(run)
    for reader in (["report", "--json", "--no-plots"], ["inspect", "--docs", "--json"]):
        assert json.loads(cli(reader[0], run, *reader[1:]).stdout) | {"run": ""} == json.loads(
            cli(reader[0], made["run"], *reader[1:]).stdout
        ) | {"run": ""}
    shutil.copy(made["half"], run / "state.json")
    with FakeOpenAIServer(handler=respond) as fake:
        cli("run", "--resume", run, "--duration", "1m", "--base-url", fake.base_url, "--model", "scripted")
    assert saved_document(run / "state.json") == saved_document(made["run"] / "state.json")
