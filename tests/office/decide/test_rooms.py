"""Rooms belong to departments (issue 13): a work room shows its department's mission, like a casual room."""

from __future__ import annotations

from datetime import timedelta

from ideaco.office.core.company import Company, Department
from tests.office.conftest import CASUAL, ROOM, scenario_dict, step_until, who


def test_a_work_room_belongs_to_the_department_most_of_its_members_work_in() -> None:
    company = Company(
        "Acme",
        {
            "eng": Department("eng", "Engineering", "Ship it", ["a", "b"]),
            "ops": Department("ops", "Operations", "Keep it up", ["c", "d", "e"]),
        },
    )
    assert company.department_for(["a", "b", "c"]).id == "eng"
    assert company.department_for(["a", "c", "d"]).id == "ops"
    assert company.department_for(["a", "c"]).id == "eng"  # a tie: the first listed
    assert company.department_for(["x"]) is None


async def test_the_work_rooms_prompt_shows_its_departments_mission(make_office) -> None:
    data = scenario_dict(script=[{"at": "00:00", "to": ROOM, "text": "REST or GraphQL?"}])
    data["rooms"].append({"id": "lobby", "name": "Lobby", "kind": "work", "members": ["dana"]})
    data["departments"][0]["members"] = ["alice", "bob", "charlie"]
    data["employees"][3]["archetype"] = "warm-hearted"
    requests: list = []
    office = make_office(
        lambda r: (
            requests.append(r)
            or {"innerThoughts": "x", "topicSaturation": 3, "interestLevel": 5, "shouldSpeak": False}
        ),
        scenario=data,
    )
    assert (office.conversations[ROOM].department, office.conversations[ROOM].mission) == (
        "eng",
        "Ship the new API",
    )
    assert (office.conversations[CASUAL].department, office.conversations[CASUAL].mission) == (
        "eng",
        "Ship the new API",
    )
    assert office.conversations["lobby"].department is None and office.conversations["lobby"].mission is None
    office.start()
    await step_until(
        office, lambda: any(who(r).conversation == ROOM for r in requests), within=timedelta(minutes=2)
    )
    system = next(r for r in requests if who(r).conversation == ROOM).messages[0]["content"]
    assert "Department mission: Ship the new API" in system
