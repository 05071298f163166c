"""`ideaco reset-relationships` resets the impressions state.json holds (they are in each employee's
mind: the command read a key no state has, and removed nothing), and `--employee` reads an employee
as every surface does (issue 27, item 4): an id or a name, any case; one that names no one is one line."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.store.state import StateStore
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content

CLEAN_ENV = {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "IDEACO_MODEL": None}
SCENARIO = """\
company: Feelings Inc
duration: 20m
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: chatterbox}
  - {id: bob, name: Bob, role: Backend engineer, archetype: old-hand}
rooms:
  - {id: api, name: API design, kind: work, members: [alice, bob]}
script:
  - {at: "00:00", to: api, text: "REST or GraphQL?"}
"""


def answer(body: dict) -> dict:
    """Each speaks once, and forms an impression of the other."""
    other = "bob" if "You are Alice" in body["messages"][0]["content"] else "alice"
    unread = "\n* [" in last_user_content(body)
    return {
        "innerThoughts": "hm",
        "topicSaturation": 3,
        "interestLevel": 8,
        "shouldSpeak": unread,
        "reason": "asked",
        "messages": [{"content": f"My take, for {other}."}] if unread else [],
        "relationshipOps": [
            {"employeeId": other, "name": other.title(), "impression": "sharp", "affinity": 60}
        ],
    }


def cli(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args], env=CLEAN_ENV)


@pytest.fixture
def run(tmp_path: Path) -> Path:
    (tmp_path / "office.yaml").write_text(SCENARIO, encoding="utf-8")
    with FakeOpenAIServer(handler=answer) as fake:
        result = cli("run", tmp_path / "office.yaml", "--base-url", fake.base_url, "--out", tmp_path / "run")
    assert result.exit_code == 0, result.output
    return tmp_path / "run"


def impressions_of(run: Path, employee: str) -> list[str]:
    """Who holds an impression of `employee`, in the run's saved state."""
    store = StateStore(run / "state.json")
    try:
        employees = (store.load() or {})["employees"]
    finally:
        store.close()
    return [e["id"] for e in employees if employee in (e["mind"].get("relationships") or {})]


@pytest.mark.parametrize("named", ["bob", "Bob", "BOB", "@bob"])
def test_an_employee_named_by_id_or_name_has_the_impressions_of_them_reset(run: Path, named: str) -> None:
    assert impressions_of(run, "bob") == ["alice"]
    result = cli("reset-relationships", run, "--employee", named)
    assert result.exit_code == 0, result.output
    assert "reset impressions of bob: 1 removed" in result.output
    assert impressions_of(run, "bob") == [] and impressions_of(run, "alice") == ["bob"]


def test_without_employee_every_impression_is_reset(run: Path) -> None:
    result = cli("reset-relationships", run)
    assert result.exit_code == 0 and "reset all impressions: 2 removed" in result.output, result.output
    assert impressions_of(run, "bob") == [] and impressions_of(run, "alice") == []


def test_a_name_of_no_one_is_one_line(run: Path) -> None:
    result = cli("reset-relationships", run, "--employee", "Zoe")
    assert result.exit_code == 2
    assert "--employee 'Zoe' is not an employee of this run (known: alice, bob, secretary)" in result.output
    assert impressions_of(run, "bob") == ["alice"]  # nothing changed
