"""The workspace of a real run directory (issue 20): a kill mid-review and a resume, or the same
answers again (what `--replay` gives), rebuild it byte for byte; hostile calls write nothing."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.cycle import Phase
from ideaco.office.core.documents import version_hash
from ideaco.office.engine.build import office_from_scenario, office_from_state
from ideaco.office.engine.clock import SimClock
from ideaco.office.engine.office import Office
from ideaco.office.engine.persistence import snapshot
from ideaco.office.resolve.journal import RunJournal
from ideaco.office.rules.documents import MAX_BYTES
from ideaco.scenario import Scenario
from ideaco.store.rundir import RunDir
from ideaco.store.workspace import Workspace
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import START, scenario_dict, step_until, thought
from tests.office.decide.test_document_work import PATH, V2, Script, _tool, review_script
from tests.office.runs.test_requirement_flow import Team


def _office(tmp_path: Path, name: str, script: Script) -> tuple[Office, RunDir]:
    rundir = RunDir(tmp_path / name).create()
    office = office_from_scenario(
        Scenario.model_validate(scenario_dict()),
        tmp_path,
        llm=ScriptedLLM(handler=script),
        clock=SimClock(START),
        seed=1,
        journal=RunJournal(rundir),
    )
    return office, rundir


def _status(office: Office) -> str | None:
    doc = office.state.documents.get(f"eng/{PATH}")
    return doc.review.status if doc is not None and doc.review is not None else None


async def _settle(office: Office) -> None:
    while any(e.desk.phase is not Phase.IDLE for e in office.employees.values()):
        await office.clock.step()  # a think begun but not resolved has logged nothing yet


def _logs(rundir: RunDir) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    def read(path: Path) -> list[dict[str, Any]]:
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []

    return read(rundir.messages_path), read(rundir.thoughts_path)


def _files(rundir: RunDir) -> dict[str, bytes]:
    root = rundir.path / "workspace"
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


async def _whole_run(tmp_path: Path, name: str) -> tuple[Office, RunDir]:
    office, rundir = _office(tmp_path, name, review_script())
    office.start()
    office.post_as_boss("bob", "Please write the API spec.")
    await step_until(office, lambda: _status(office) == "approved", within=timedelta(hours=3))
    office.journal.close()
    return office, rundir


async def test_the_same_answers_write_the_same_workspace(tmp_path: Path) -> None:
    first, a = await _whole_run(tmp_path, "a")
    second, b = await _whole_run(tmp_path, "b")
    assert _files(a) == _files(b) == {f"eng/{PATH}": V2.encode()}
    assert first.journal is not second.journal and _logs(a)[1] == _logs(b)[1]


async def test_a_kill_mid_review_and_a_resume_rebuild_the_workspace(tmp_path: Path) -> None:
    _, whole = await _whole_run(tmp_path, "whole")
    script = review_script()
    office, rundir = _office(tmp_path, "killed", script)
    start = json.loads(json.dumps(snapshot(office), default=str))  # the last save: before anything
    office.start()
    office.post_as_boss("bob", "Please write the API spec.")
    await step_until(office, lambda: _status(office) == "rejected", within=timedelta(hours=3))
    await _settle(office)
    office.journal.close()
    # What a kill leaves: a write whose thought was never logged, and a file lost.
    (rundir.path / "workspace/eng/stray.md").write_text("never applied")
    (rundir.path / f"workspace/eng/{PATH}").unlink()

    messages, thoughts = _logs(rundir)
    resumed = office_from_state(
        start,
        messages,
        thoughts=thoughts,
        llm=ScriptedLLM(handler=script),
        clock=SimClock(office.now()),
        journal=RunJournal(rundir),
    )
    assert set(_files(rundir)) == {f"eng/{PATH}"}
    assert resumed.state.documents == office.state.documents
    resumed.start()
    await step_until(resumed, lambda: _status(resumed) == "approved", within=timedelta(hours=3))
    resumed.journal.close()
    assert _files(rundir) == _files(whole)


def _tools(rundir: RunDir) -> list[dict[str, Any]]:
    return [s for t in _logs(rundir)[1] for s in t["applied"]["steps"] if s["step"] == "tool"]


def _hostile(tmp_path: Path, calls: list[dict[str, Any]]) -> tuple[Office, RunDir]:
    script = Script(dm={}, boss={"bob": [thought(actions=calls)]})
    return _office(tmp_path, "hostile", script)


async def test_hostile_paths_stale_bases_and_oversized_content_are_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    calls = [
        _tool("write_document", path="../../outside/pwned.md", content="x"),
        _tool("write_document", path="/etc/passwd", content="x"),
        _tool("write_document", path="notes/con.txt", content="x"),
    ]
    office, rundir = _hostile(tmp_path, calls)
    office.start()
    office.post_as_boss("bob", "go")
    await step_until(office, lambda: len(_tools(rundir)) >= 3)
    await _settle(office)
    refused = [s for s in _tools(rundir) if not s["ok"]]
    assert [s["message"].split(":")[0] for s in refused] == ["write_document refused"] * 3
    assert "leaves its folder" in refused[0]["message"] and "not relative" in refused[1]["message"]
    assert "reserved" in refused[2]["message"]
    assert not list(outside.iterdir()) and _files(rundir) == {}
    assert office.state.documents == {}
    notes = office.employees["bob"].mind.notes
    assert any("leaves its folder" in n for n in notes)  # read in Bob's next thought


async def test_a_stale_base_and_oversized_content_change_nothing(tmp_path: Path) -> None:
    calls = [
        _tool("write_document", path="a.md", content="one"),
        _tool("revise_document", path="a.md", content="two", base="deadbeef"),
        _tool("write_document", path="b.md", content="x" * (MAX_BYTES + 1)),
    ]
    office, rundir = _hostile(tmp_path, calls)
    office.start()
    office.post_as_boss("bob", "go")
    await step_until(office, lambda: len(_tools(rundir)) >= 3)
    ok = [(s["tool"], s["ok"]) for s in _tools(rundir)]
    assert ok == [("write_document", True), ("revise_document", False), ("write_document", False)]
    messages = [s["message"] for s in _tools(rundir)]
    assert "not 'deadbeef'" in messages[1] and f"over the limit of {MAX_BYTES}" in messages[2]
    assert _files(rundir) == {"eng/a.md": b"one"}


def test_the_workspace_writes_nothing_through_a_link(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "workspace"
    root.mkdir()
    (root / "eng").symlink_to(outside)
    workspace = Workspace(root)
    try:
        workspace.write("eng/plan.md", "x")
    except OSError as exc:
        assert "is a link" in str(exc)
    else:
        raise AssertionError("wrote through a link")
    assert not list(outside.iterdir())
    workspace.rebuild({})
    assert not (root / "eng").exists() and outside.exists()


async def test_report_lists_the_documents_their_rounds_and_each_reviewers_rejections(tmp_path: Path) -> None:
    office, rundir = _office(tmp_path, "reported", review_script())
    office.start()
    office.post_as_boss("bob", "Please write the API spec.")
    await step_until(office, lambda: _status(office) == "approved", within=timedelta(hours=3))
    office.checkpoint()
    office.journal.close()
    out = CliRunner().invoke(app, ["report", str(rundir.path), "--no-plots", "--json"])
    assert out.exit_code == 0, out.output
    work = json.loads(out.stdout)["documents"]
    assert work["written"] == 1
    assert work["documents"] == [
        {
            "document": f"eng/{PATH}",
            "author": "bob",
            "versions": 2,
            "rejections": 2,
            "status": "approved",
            "reviewer": "alice",
        }
    ]
    assert work["reviewers"] == {"alice": {"reviews": 3, "rejections": 2, "rejection_rate": 0.667}}
    assert work["requirements"] == []  # Bob was asked in his boss chat: no requirement to time
    summary = json.loads(out.stdout)["collaboration"]["summary"]  # what a sweep compares
    assert summary["documents_approved"] == 1 and summary["review_rejection_rate"] == 0.6667
    assert summary["calls_per_approved_document"] == summary["calls"]
    human = CliRunner().invoke(app, ["report", str(rundir.path), "--no-plots"], env={"COLUMNS": "200"})
    assert "Documents (1 written)" in human.output and "alice 2/3 rejected" in human.output


async def test_inspect_docs_shows_each_documents_history(tmp_path: Path) -> None:
    office, rundir = _office(tmp_path, "inspected", review_script())
    office.start()
    office.post_as_boss("bob", "Please write the API spec.")
    await step_until(office, lambda: _status(office) == "approved", within=timedelta(hours=3))
    office.checkpoint()
    office.journal.close()
    out = CliRunner().invoke(app, ["inspect", str(rundir.path), "--docs", "--json"])
    assert out.exit_code == 0, out.output
    history = json.loads(out.stdout)["history"]
    assert [(h["employee"], h["tool"], h["review"]) for h in history] == [
        ("bob", "write_document", None),
        ("bob", "request_review", "requested"),
        ("alice", "review", "rejected"),
        ("bob", "revise_document", "rejected"),
        ("bob", "request_review", "requested"),
        ("alice", "review", "rejected"),
        ("bob", "rebut", "rebutted"),
        ("alice", "review", "approved"),
    ]
    assert [h["what"] for h in history][2:4] == ["rejected", "revised"]
    text = CliRunner().invoke(app, ["inspect", str(rundir.path), "--docs", "--employee", "alice"])
    assert "3 document changes" in text.output and f"alice review eng/{PATH} · rejected" in text.output
    # Alice's rows alone still carry the versions Bob's steps added (rebuilt from every thought).
    assert f"approved · version {version_hash(V2)} · review approved" in text.output


async def test_the_viewer_shows_each_documents_versions_diffs_and_review_thread(tmp_path: Path) -> None:
    from ideaco.store.runlog import RunLog
    from ideaco.viewer import gather, render

    office, rundir = _office(tmp_path, "viewed", review_script())
    office.start()
    office.post_as_boss("bob", "Please write the API spec.")
    await step_until(office, lambda: _status(office) == "approved", within=timedelta(hours=3))
    office.checkpoint()
    office.journal.close()
    data, records = gather(RunLog.open(rundir.path))
    (doc,) = data["documents"]
    assert doc["key"] == f"eng/{PATH}" and [v["content"] for v in doc["versions"]][-1] == V2
    assert "+Errors: 404 when a user is missing." in doc["versions"][1]["diff"]
    assert [h["tool"] for h in doc["history"]][-2:] == ["rebut", "review"]
    # Each row says what its call did: a revision reads as one, not as the rejection before it (issue 29).
    assert [(h["tool"], h["status"]) for h in doc["history"]] == [
        ("write_document", "written"),
        ("request_review", "review asked"),
        ("review", "rejected"),
        ("revise_document", "revised"),
        ("request_review", "review asked"),
        ("review", "rejected"),
        ("rebut", "rebutted"),
        ("review", "approved"),
    ]
    assert doc["count"] == 2
    assert doc["history"][-2]["argument"] == "errors are in the shared guide"
    page = render(data, records)
    assert 'data-tab="documents"' in page and "documentsTab" in page


async def test_report_times_a_requirement_from_the_hand_over_to_the_boss_approval(tmp_path: Path) -> None:
    team = Team()  # the scripted requirement of test_requirement_flow: two pieces, four reviews
    office, rundir = _office(tmp_path, "required", team)
    team.office = office
    office.start()
    assert office.apply_tool("assign_requirement", {"to": "eng", "description": "Build the users API"}).ok
    await step_until(office, lambda: bool(team.reports), within=timedelta(hours=4))
    office.post_as_boss("alice", "/approve req-1")
    office.checkpoint()
    office.journal.close()
    out = CliRunner().invoke(app, ["report", str(rundir.path), "--no-plots", "--json"])
    assert out.exit_code == 0, out.output
    [row] = json.loads(out.stdout)["documents"]["requirements"]
    minutes = (office.now() - START).total_seconds() / 60
    assert row["status"] == "approved" and 0 < row["reported_after_s"] <= row["approved_after_s"]
    assert round(row["approved_after_s"] / 60) == round(minutes)
    summary = json.loads(out.stdout)["collaboration"]["summary"]  # what a sweep compares
    assert summary["requirement_approval_s"] == row["approved_after_s"]
    human = CliRunner().invoke(app, ["report", str(rundir.path), "--no-plots"], env={"COLUMNS": "200"})
    assert f"req-1 (lead Alice): reported after {row['reported_after_s'] / 60:.0f} min" in human.output
    assert f"approved by the boss after {minutes:.0f} min" in human.output
