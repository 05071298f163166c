"""Teams (issue 20, item 4): a department's teams, each with its work room, from the secretary's
`create_team`, the boss's `/team` (the same tool) or a scenario's `teams:`; a requirement can go to
a team; state.json and a resume keep them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from ideaco.kinds import ConversationKind
from ideaco.office.core import documents as core
from ideaco.office.core.refusal import Refusal
from ideaco.office.engine import persistence
from ideaco.office.engine.build import office_from_state
from ideaco.office.engine.clock import SimClock
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.office.rules import documents as rules
from ideaco.office.rules import toolcaps
from ideaco.scenario import ScenarioError, load_scenario
from ideaco.store.runlog import RunLog
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import START, scenario_dict
from tests.office.decide.test_secretary import empty_office


def grown():
    office = empty_office()
    office.apply_tool("create_department", {"id": "eng", "name": "Engineering", "mission": "Ship"})
    office.apply_tool("create_department", {"id": "ops", "name": "Operations"})
    for name, dept in (("Ann", "eng"), ("Bo", "eng"), ("Cy", "eng"), ("Di", "ops")):
        hired = office.apply_tool(
            "hire_employee", {"name": name, "role": "Dev", "archetype": "idealist", "department": dept}
        )
        assert hired.ok, hired.message
    return office


def test_create_team_opens_its_work_room_in_the_department() -> None:
    office = grown()
    result = office.apply_tool(
        "create_team", {"name": "Payments squad", "department": "Engineering", "members": ["bo", "Cy"]}
    )
    assert result.ok, result.message
    assert result.message == (
        "create_team: team payments-squad (Payments squad) in eng with bo, cy, its work room payments-squad"
    )
    [team] = office.company_model.departments["eng"].teams
    assert (team.id, team.name, team.members, team.lead) == (
        "payments-squad",
        "Payments squad",
        ["bo", "cy"],
        "bo",
    )
    room = office.conversations["payments-squad"]
    assert room.kind is ConversationKind.WORK and room.members == ["bo", "cy"]
    assert room.department == "eng" and room.mission == "Ship"


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ({"name": "Mixed", "department": "eng", "members": ["ann", "di"]}, "di not in eng"),
        ({"name": "Ghosts", "department": "eng", "members": ["zed"]}, "unknown employee 'zed'"),
        ({"name": "Nowhere", "department": "sales", "members": ["ann"]}, "unknown department 'sales'"),
        ({"id": "eng-casual", "name": "Web", "department": "eng", "members": ["ann"]}, "eng-casual"),
        ({"name": "Boss", "department": "eng", "members": ["ann"]}, "reserved"),
        ({"name": "Empty", "department": "eng", "members": []}, "members"),
        # Issue 28, item 19: an id that slugs to nothing made a team and a room with id "" (a name in
        # any script makes one now: 日本 -> riben, issue 36).
        ({"id": "!!!", "name": "Web", "department": "eng", "members": ["ann"]}, "'!!!' is not a valid id"),
        (
            {"name": "★★★", "department": "eng", "members": ["ann"]},
            "a name needs letters",
        ),  # issue 29, item 3
        # Issue 28, item 12: a team's name that reads as a department or a person took their work.
        ({"name": "Engineering", "department": "eng", "members": ["ann"]}, "taken for department eng"),
        ({"name": "operations", "department": "eng", "members": ["ann"]}, "taken for department ops"),
        ({"name": "Ann", "department": "eng", "members": ["bo"]}, "taken for Ann (ann)"),
        ({"name": "di", "department": "eng", "members": ["bo"]}, "taken for Di (di)"),
    ],
)
def test_a_bad_team_is_refused_and_changes_nothing(args: dict, reason: str) -> None:
    office = grown()
    before = json.dumps(persistence.snapshot(office), sort_keys=True, default=str)
    result = office.apply_tool("create_team", args)
    assert not result.ok and reason in result.message, result.message
    assert json.dumps(persistence.snapshot(office), sort_keys=True, default=str) == before


def test_a_requirement_handed_to_a_team_goes_to_its_lead_with_its_members() -> None:
    office = grown()
    office.apply_tool("create_team", {"name": "Payments", "department": "eng", "members": ["cy", "bo"]})
    result = office.apply_tool("assign_requirement", {"to": "payments", "description": "Refunds API"})
    assert result.ok and "eng's lead Cy (cy)" in result.message, result.message
    assert office.conversations["req-1"].members == ["cy", "bo"]
    assert [t.description for t in office.employees["cy"].mind.pending_tasks] == ["Refunds API"]
    assert not office.employees["ann"].mind.pending_tasks


def test_teams_survive_a_resume_and_show_in_the_run_log(tmp_path: Path) -> None:
    office = grown()
    office.apply_tool("create_team", {"name": "Payments", "department": "eng", "members": ["ann", "bo"]})
    snap = json.loads(json.dumps(persistence.snapshot(office)))
    again = office_from_state(
        snap, office.journal.messages, llm=ScriptedLLM(), clock=SimClock(START), journal=MemoryJournal()
    )
    assert again.company_model.departments["eng"].teams[0].members == ["ann", "bo"]
    assert "payments" in again.conversations
    run = RunLog(tmp_path, snap)
    assert run.teams == [
        {"department": "eng", "id": "payments", "name": "Payments", "members": ["ann", "bo"]}
    ]


def test_create_team_is_capped_per_thought_and_per_hour() -> None:
    assert toolcaps.CAPS.costly("create_team")
    assert toolcaps.CAPS.per_thought["create_team"] == 2 and toolcaps.CAPS.per_hour["create_team"] == 10


def test_a_scenarios_teams_have_their_rooms(make_office) -> None:
    data = scenario_dict(
        teams=[{"id": "web", "name": "Web team", "department": "eng", "members": ["alice", "dana"]}]
    )
    office = make_office(scenario=data)
    [team] = office.company_model.departments["eng"].teams
    assert (team.id, team.members, team.lead) == ("web", ["alice", "dana"], "alice")
    assert office.conversations["web"].members == ["alice", "dana"]
    assert office.conversations["web"].department == "eng"


@pytest.mark.parametrize(
    ("team", "field", "message"),
    [
        (
            {"id": "web", "name": "Web", "department": "sales", "members": ["alice"]},
            "teams[0].department",
            "not a department",
        ),
        (
            {"id": "web", "name": "Web", "department": "eng", "members": ["zed"]},
            "teams[0].members",
            "not an employee",
        ),
        (
            {"id": "eng-casual", "name": "Web", "department": "eng", "members": ["bob"]},
            "teams[0].id",
            "duplicate id",
        ),
        (
            {"id": "web", "name": "Engineering", "department": "eng", "members": ["bob"]},
            "teams[0].name",
            "reads as 'eng'",
        ),
        (
            {"id": "web", "name": "Alice", "department": "eng", "members": ["bob"]},
            "teams[0].name",
            "reads as 'alice'",
        ),
    ],
)
def test_a_scenarios_bad_team_is_one_line(tmp_path: Path, team: dict, field: str, message: str) -> None:
    path = tmp_path / "s.yaml"
    data = scenario_dict(teams=[team])
    data.pop("start")
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    assert err.value.field == field and message in err.value.message


def test_inspect_prints_a_line_per_team() -> None:
    from types import SimpleNamespace

    from ideaco.cli.inspect import team_lines

    view = SimpleNamespace(
        teams=[{"department": "eng", "id": "web", "name": "Web", "members": ["ann", "bo"]}]
    )
    assert [line.plain for line in team_lines(view)] == ["team web (Web) in eng: ann, bo"]


def test_a_requirement_goes_to_the_id_it_names_before_any_name() -> None:
    """Issue 28, item 12: teams kept from before the rule (here renamed in the state) named like a
    department id or a person's id do not take their work: ids are matched before names."""
    office = grown()
    office.apply_tool("create_team", {"name": "Payments", "department": "eng", "members": ["cy", "bo"]})
    office.apply_tool("create_team", {"name": "Billing", "department": "eng", "members": ["bo"]})
    payments, billing = office.company_model.departments["eng"].teams
    payments.name, billing.name = "ops", "Di"
    to_ops = office.apply_tool("assign_requirement", {"to": "ops", "description": "A status page"})
    assert to_ops.ok and "ops's lead Di (di)" in to_ops.message, to_ops.message
    to_di = office.apply_tool("assign_requirement", {"to": "di", "description": "An uptime report"})
    assert to_di.ok and to_di.message.endswith("handed to Di (di)"), to_di.message
    assert [t.description for t in office.employees["di"].mind.pending_tasks] == [
        "A status page",  # as ops's lead
        "An uptime report",
    ]
    assert not office.employees["cy"].mind.pending_tasks and not office.employees["bo"].mind.pending_tasks


def test_a_team_whose_lead_left_is_led_by_its_next_member() -> None:
    """Issue 28, item 20: the dismissed lead kept the team's requirements."""
    office = grown()
    office.apply_tool("create_team", {"name": "Payments", "department": "eng", "members": ["cy", "bo"]})
    assert office.apply_tool("dismiss_employee", {"id": "cy"}).ok
    [team] = office.company_model.departments["eng"].teams
    assert (team.members, team.lead) == (["bo"], "bo")
    result = office.apply_tool("assign_requirement", {"to": "payments", "description": "Refunds API"})
    assert result.ok and "eng's lead Bo (bo)" in result.message, result.message
    assert office.conversations["req-1"].members == ["bo"]
    assert not office.employees["cy"].mind.pending_tasks
    assert office.apply_tool("dismiss_employee", {"id": "bo"}).ok
    again = office.apply_tool("assign_requirement", {"to": "payments", "description": "Invoices"})
    assert not again.ok and "team payments has nobody yet" in again.message, again.message


@pytest.mark.parametrize("status", [core.REQUESTED, core.REJECTED])
def test_a_review_whose_reviewer_left_goes_to_the_next_member(status: str) -> None:
    """Issue 28, item 20: a review stayed with its dismissed reviewer, stuck for good. Waiting for a
    verdict, the next reviewer is owed a think with the document; rejected, the author's next
    request goes to the next reviewer."""
    office = grown()  # eng: Ann (lead), Bo, Cy
    v1 = "# Plan\n\nShip it.\n"
    version = core.Version(core.version_hash(v1), "cy", START, "t1")
    review = core.Review("bo", status=status, round=int(status == core.REJECTED))
    doc = core.Document("eng", "plan.md", "cy", v1, (version,), review=review)
    office.state.documents[doc.key] = doc
    result = office.apply_tool("dismiss_employee", {"id": "bo"})
    assert result.ok and result.message.endswith("; Ann reviews plan.md now"), result.message
    handed = office.state.documents[doc.key].review
    assert handed is not None and (handed.reviewer, handed.status) == ("ann", status)
    owed = [o.conversation for o in office.employees["ann"].desk.owed if o.conversation.startswith("dm:")]
    assert owed == (["dm:ann:cy"] if status == core.REQUESTED else [])
    verdict = rules.verdict(office.state.documents[doc.key], "ann", "approve", "fine", 3, "ann")
    assert isinstance(verdict, Refusal) == (status == core.REJECTED)  # rejected: the author's turn
    if status == core.REJECTED:
        asked = rules.request_review(office.state.documents[doc.key], "cy", "ann")
        assert not isinstance(asked, Refusal) and asked.review is not None
        assert asked.review.reviewer == "ann"
