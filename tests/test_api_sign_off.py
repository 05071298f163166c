"""Approval is the boss's act, through the Python API (issue 37, item 1): `sim.approve` and
`sim.reopen` write the boss's `/approve` or `/reopen` line in the lead's boss chat, the only way a
requirement is decided; the change between thoughts says the boss did; a requirement that does not
wait for the boss, or a reopen without notes, is refused with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.office.conftest import thought

SCENARIO = """\
company: Acme
duration: 1h
start: "2026-01-05T09:00:00"
departments:
  - {id: eng, name: Engineering, mission: Ship the API, members: [alice, bob], lead: alice}
employees:
  - {id: alice, name: Alice, role: Lead engineer, archetype: old-hand}
  - {id: bob, name: Bob, role: Backend engineer, archetype: warm-hearted}
"""


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=lambda body: thought()) as server:
        yield server


def _reported(sim, room: str) -> None:
    """A requirement handed to Engineering and reported done by its lead (as its last piece does)."""
    assert sim.office.apply_tool("assign_requirement", {"to": "eng", "description": "Build the API"}).ok
    sim.office.company_model.signoffs[room] = "reported"


def _approvals(run: Path) -> list[dict]:
    lines = (run / "changes.jsonl").read_text().splitlines()
    return [c for c in map(json.loads, lines) if c.get("cause") == "approval"]


def test_the_api_approves_and_reopens_only_as_the_boss(fake, tmp_path: Path) -> None:
    import ideaco

    scenario = tmp_path / "acme.yaml"
    scenario.write_text(SCENARIO)
    sim = ideaco.load(scenario, out=tmp_path / "run", base_url=fake.base_url)
    try:
        with pytest.raises(ValueError, match=r"req-1 is not a requirement waiting for your sign-off \(no such"):
            sim.approve("req-1")
        _reported(sim, "req-1")
        with pytest.raises(ValueError, match="say what to rework: /reopen req-1 NOTES"):
            sim.reopen("req-1", "")
        said = sim.reopen("req-1", "List the error codes first.")
        assert (said["conversation"], said["sender"]) == ("boss:alice", "boss")
        assert said["text"] == "/reopen req-1 List the error codes first."
        rework = [t.description for t in sim.office.employees["alice"].mind.tasks if "Rework" in t.description]
        assert rework == ["Rework requirement req-1; the boss said: List the error codes first."]
        sim.office.company_model.signoffs["req-1"] = "asked"  # reworked, reported and asked again
        assert sim.approve("req-1")["text"] == "/approve req-1"
        assert sim.office.company_model.signoffs == {"req-1": "approved"}
        with pytest.raises(ValueError, match=r"\(it is approved;"):
            sim.approve("req-1")
    finally:
        sim.close()
    assert [(c["verdict"], c["by"]) for c in _approvals(tmp_path / "run")] == [
        ("reopen", "boss"),
        ("approve", "boss"),
    ]
