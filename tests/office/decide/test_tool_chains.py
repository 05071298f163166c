"""Bounded tool chains (issue 22, item 2): no answer loops the secretary.

One boss line, "hire one engineer", once became 551 employees, 1,277 calls and 2.4 M tokens in a
simulated hour: each tool result owed the secretary a think in which the tools were offered again.
A refused hire retried at every think cost 187 paid calls an hour. Here the scripted secretary
never stops calling tools; the office must.
"""

from __future__ import annotations

import itertools
import json
from datetime import timedelta

from ideaco.ids import SECRETARY
from ideaco.office.rules.toolcaps import CAPS
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import prompt_of, thought, who
from tests.office.decide.test_secretary import empty_office

NAMES = (f"Eng{n}" for n in itertools.count(1))


def hire(name: str, archetype: str = "old-hand") -> dict:
    args = {"name": name, "role": "Engineer", "archetype": archetype, "department": "eng"}
    return {"tool": "hire_employee", "args": args}


def greedy(request):
    """A secretary that hires three more at every think, whatever it reads; everyone else is quiet."""
    if who(request).employee != SECRETARY:
        return thought(False)
    return thought(True, "On it.", actions=[hire(next(NAMES)) for _ in range(3)])


def stubborn(request):
    """A secretary that tries the same refused hire at every think."""
    if who(request).employee != SECRETARY:
        return thought(False)
    return thought(True, "Hiring the wizard.", actions=[hire("Merlin", "wizard")])


async def office_with_engineering(handler):
    llm = ScriptedLLM(handler=handler)
    office = empty_office(llm)
    assert office.apply_tool("create_department", {"id": "eng", "name": "Engineering"}).ok
    office.start()
    return office, llm


def secretary_calls(llm) -> list:
    return [r for r in llm.requests if who(r).employee == SECRETARY]


def steps(office, kind: str = "tool") -> list[dict]:
    return [s for t in office.journal.thoughts for s in t["applied"]["steps"] if s["step"] == kind]


async def test_one_request_allows_so_many_tool_rounds_then_the_secretary_is_stopped_and_says_so() -> None:
    office, llm = await office_with_engineering(greedy)
    office.post_as_boss("boss:secretary", "Please hire one engineer.")
    await office.run(timedelta(hours=1))
    hired = [e for e in office.employees if e != SECRETARY]
    per_thought = CAPS.per_thought["hire_employee"]
    assert len(hired) == CAPS.rounds * per_thought  # 3 rounds of 2 (the third call of each refused)
    calls = secretary_calls(llm)
    # The boss's line, a report after each round, and one look at the notice (which asks nothing).
    assert len(calls) == CAPS.rounds + 2
    last = prompt_of(calls[CAPS.rounds])  # the report after the last round
    assert f"step {CAPS.rounds}/{CAPS.rounds}" in last and "no tools now" in last
    assert "hire_employee" not in json.dumps(calls[CAPS.rounds].json_schema)  # it is offered no tools
    assert "hire_employee" in json.dumps(calls[0].json_schema)
    caps = [s.get("cap") for s in steps(office) if not s["ok"]]
    assert caps == ["per_thought"] * CAPS.rounds + ["rounds"] * 3 + ["no_request"] * 3
    [notice] = [m for m in office.journal.messages if m["sender"] == "system"]
    assert notice["conversation"] == "boss:secretary"
    assert notice["text"].startswith("The secretary stopped: its 3 more tool call(s) (hire_employee, ")
    assert "Write again to go on." in notice["text"]


async def test_a_refused_call_is_not_made_again_with_the_same_arguments() -> None:
    office, llm = await office_with_engineering(stubborn)
    office.post_as_boss("boss:secretary", "Hire a wizard.")
    await office.run(timedelta(hours=1))
    tools = steps(office)
    assert [s.get("cap") for s in tools] == [None, "repeated", "repeated", "rounds", "no_request"]
    assert "unknown archetype 'wizard'" in tools[0]["message"]
    assert len(secretary_calls(llm)) == CAPS.rounds + 2  # was 187 paid calls an hour
    assert "refused before with the same arguments" in prompt_of(secretary_calls(llm)[2])


async def test_a_new_line_of_the_boss_starts_a_new_request() -> None:
    office, llm = await office_with_engineering(stubborn)
    office.post_as_boss("boss:secretary", "Hire a wizard.")
    await office.run(timedelta(minutes=30))
    office.post_as_boss("boss:secretary", "Try again, please.")
    await office.run(timedelta(minutes=30))
    caps = [s.get("cap") for s in steps(office)]
    assert caps == [None, "repeated", "repeated", "rounds", "no_request"] * 2  # the boss may ask again
    assert len(secretary_calls(llm)) == 2 * (CAPS.rounds + 2)


async def test_hires_per_hour_are_capped_whatever_the_boss_writes() -> None:
    office, _ = await office_with_engineering(greedy)
    for n in range(12):  # a boss line every five minutes, each one a new request
        office.post_as_boss("boss:secretary", f"And one more engineer ({n}).")
        await office.run(timedelta(minutes=5))
    hired = [e for e in office.employees if e != SECRETARY]
    assert len(hired) == CAPS.per_hour["hire_employee"]
    assert "per_hour" in {s.get("cap") for s in steps(office)}
    assert office.employees[SECRETARY].desk.tool_log[-1][0] == "hire_employee"


async def test_the_boss_own_commands_are_not_capped() -> None:
    office, _ = await office_with_engineering(greedy)
    for n in range(CAPS.per_hour["hire_employee"] + 3):
        assert office.apply_tool("hire_employee", hire(f"Pick {n}")["args"]).ok
    assert office.employees[SECRETARY].desk.tool_log == []


async def test_summary_json_counts_the_calls_made_refused_and_stopped_by_each_cap() -> None:
    from ideaco.office.resolve.summary import summarize

    office, _ = await office_with_engineering(greedy)
    office.post_as_boss("boss:secretary", "Please hire one engineer.")
    await office.run(timedelta(hours=1))
    summary = summarize(
        office.journal.thoughts,
        office.journal.messages,
        employees=sorted(office.employees),
        simulated_start=office.now(),
        simulated_now=office.now(),
        wall_time_s=0.0,
        stop_reason=None,
    )
    made = CAPS.rounds * CAPS.per_thought["hire_employee"]
    assert summary["tool_calls"] == {
        "made": made,
        "refused": CAPS.rounds + 3 + 3,
        "by_cap": {"no_request": 3, "per_thought": CAPS.rounds, "rounds": 3},
    }
