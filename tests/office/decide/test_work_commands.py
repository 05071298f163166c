"""The chat's /docs, /requirement, /approve and /reopen (issues 20, 37), on the scripted requirement office
(here for its make_office fixture; the views are in ideaco/cli/work_commands.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ideaco.cli import work_commands
from ideaco.cli.chat_commands import Command, parse_line
from ideaco.office.core.documents import version_hash
from tests.office.conftest import MakeOffice, step_until
from tests.office.runs.test_requirement_flow import API, API_V2, GUIDE, Team


async def test_docs_requirement_and_approve_show_and_close_a_requirement(make_office: MakeOffice) -> None:
    team = Team()
    office = make_office(team)
    team.office = office
    office.start()
    office.apply_tool("assign_requirement", {"to": "eng", "description": "Build the users API"})
    await step_until(office, lambda: bool(team.reports), within=timedelta(hours=4))

    docs = [line.plain for line in work_commands.docs_lines(office)]
    assert any(
        line.startswith(f"eng/{API} · version {version_hash(API_V2)} (2 in all) · by bob · approved")
        for line in docs
    )
    assert any(line.startswith(f"eng/{GUIDE} ·") for line in docs)
    text = [line.plain for line in work_commands.docs_lines(office, API)]
    assert text[1:] == [work_commands.QUOTE + row for row in API_V2.splitlines()]
    with pytest.raises(work_commands.WorkCommandError):
        work_commands.docs_lines(office, "nope.md")
    req = [line.plain for line in work_commands.requirement_lines(office)]
    assert req[0].startswith("req-1 ·") and req[0].endswith("· reported")
    assert any(f"bob · resolved · {API}" in line for line in req)

    assert parse_line("/approve req-1") == Command("approve", ("req-1",))
    assert parse_line("/reopen req-1 list the error codes") == Command(
        "reopen", ("req-1", "list the error codes")
    )
    with pytest.raises(work_commands.WorkCommandError, match="say what to rework"):
        work_commands.sign_off(office, "req-1", "reopen", "")
    assert work_commands.sign_off(office, "REQ-1", "approve") == "req-1 approved; Alice is told"
    assert office.company_model.signoffs == {"req-1": "approved"}
    assert office.conversations["boss:alice"].recent[-1].text == "/approve req-1"
    with pytest.raises(work_commands.WorkCommandError, match="not a requirement waiting for your sign-off"):
        work_commands.sign_off(office, "req-1", "approve")  # once only


def test_a_requirement_is_named_by_whole_words_and_its_lead_task_holds_the_whole_title(
    make_office: MakeOffice,
) -> None:
    office = make_office(Team())
    description = "Draft the release notes and the risk register as a table with owners"
    office.apply_tool("assign_requirement", {"to": "eng", "description": description})
    head, *pieces = [line.plain for line in work_commands.requirement_lines(office)]
    assert head == "req-1 · Requirement 1: Draft the release notes and the risk… · open"
    assert any(line.endswith(f" · {description}") for line in pieces)
