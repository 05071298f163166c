"""The secretary's tool caps (issue 22): each rule on both sides of its threshold."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

import pytest

from ideaco.office.rules.toolcaps import (
    CAPS,
    HOUR,
    SUMMARY_NOTE,
    ToolCaps,
    call_key,
    is_last,
    recent,
    refuse,
    stop_note,
    tools_allowed,
)

NOW = datetime(2026, 1, 5, 10, 0, 0)
TINY = timedelta(microseconds=1)
KEY = call_key("hire_employee", {"name": "Ann"})


def check(tool="hire_employee", key=KEY, *, round_=0, refused=(), this=None, hour=(), caps=CAPS):
    return refuse(
        tool=tool,
        key=key,
        round_=round_,
        refused_before=refused,
        this_thought=Counter(this or {}),
        last_hour=hour,
        now=NOW,
        caps=caps,
    )


def test_a_first_call_of_a_request_may_be_made() -> None:
    assert check() is None


@pytest.mark.parametrize(("round_", "refused"), [(CAPS.rounds - 1, False), (CAPS.rounds, True)])
def test_a_request_allows_so_many_tool_rounds(round_: int, refused: bool) -> None:
    found = check(round_=round_)
    assert (found is not None) == refused
    if found:
        assert found.cap == "rounds" and f"{CAPS.rounds} of {CAPS.rounds} tool steps" in found.reason


def test_a_call_refused_before_is_not_made_again_but_another_is() -> None:
    assert check(refused=[KEY]).cap == "repeated"
    assert check(key=call_key("hire_employee", {"name": "Bob"}), refused=[KEY]) is None


def test_the_same_arguments_in_any_order_are_the_same_call() -> None:
    assert call_key("t", {"a": 1, "b": [2]}) == call_key("t", {"b": [2], "a": 1})
    assert call_key("t", {"a": 1}) != call_key("u", {"a": 1})


def test_a_calls_key_is_the_same_in_every_version() -> None:
    """The calls refused in a request are kept by key in state.json (the secretary's owed report):
    a run resumed by another version of ideaco must name them alike."""
    assert call_key("hire_employee", {"name": "Zoë", "department": "eng"}) == "20d00f2ba8f4"


@pytest.mark.parametrize(("done", "refused"), [(1, False), (2, True)])
def test_hires_per_thought(done: int, refused: bool) -> None:
    found = check(this={"hire_employee": done})
    assert (found is not None and found.cap == "per_thought") == refused


def test_a_tool_without_a_cost_has_no_per_thought_or_hour_cap() -> None:
    assert check("create_room", key=call_key("create_room", {}), this={"create_room": 99}) is None
    assert not CAPS.costly("create_room") and CAPS.costly("hire_employee") and CAPS.costly("summarize")


def test_hires_per_hour_and_when_the_next_one_may_be_made() -> None:
    limit = CAPS.per_hour["hire_employee"]
    hour = [("hire_employee", NOW - timedelta(minutes=50 - i)) for i in range(limit - 1)]
    assert check(hour=hour) is None  # one below the cap
    full = [*hour, ("hire_employee", NOW - timedelta(minutes=5))]
    found = check(hour=full)
    assert found.cap == "per_hour" and "the next one at 10:10:00" in found.reason
    assert check(hour=[(t, at) for t, at in full if t != "hire_employee"] + [("summarize", NOW)] * 10) is None


def test_a_call_exactly_an_hour_old_has_left_the_window() -> None:
    assert recent([("x", NOW - HOUR)], NOW) == []
    assert recent([("x", NOW - HOUR + TINY)], NOW) == [("x", NOW - HOUR + TINY)]
    caps = ToolCaps(per_hour={"hire_employee": 1})
    assert check(hour=[("hire_employee", NOW - HOUR)], caps=caps) is None
    assert check(hour=[("hire_employee", NOW - HOUR + TINY)], caps=caps).cap == "per_hour"


def test_the_report_after_the_last_round_is_known_by_its_note() -> None:
    assert is_last(stop_note() + " Done: x. Tell the boss.")
    assert not is_last("Done: x. Tell the boss.")
    assert f"step {CAPS.rounds}/{CAPS.rounds}" in stop_note()


def test_without_a_request_of_the_boss_no_call_is_made() -> None:
    found = refuse(
        "create_room", "k", round_=0, refused_before=(), this_thought={}, last_hour=(), now=NOW, asked=False
    )
    assert found.cap == "no_request"


# --- the documented numbers (docs/organization.md), each on both sides ------------------------------


@pytest.mark.parametrize(("round_", "refused"), [(2, False), (3, True)])
def test_a_boss_request_allows_three_tool_rounds(round_: int, refused: bool) -> None:
    assert (check(round_=round_) is not None) == refused
    assert "You have used all 3 tool steps for this request (step 3/3): no tools now." == stop_note()


@pytest.mark.parametrize(
    ("tool", "cap"), [("hire_employee", 2), ("assign_requirement", 2), ("summarize", 1), ("create_team", 2)]
)
def test_each_costly_tool_has_its_cap_per_thought(tool: str, cap: int) -> None:
    key = call_key(tool, {})
    assert check(tool, key) is None  # the first of a thought
    assert check(tool, key, this={tool: cap - 1}) is None
    found = check(tool, key, this={tool: cap})
    assert found.cap == "per_thought" and f"at most {cap} {tool} call(s) in one thought" == found.reason


@pytest.mark.parametrize(
    ("tool", "cap"),
    [("hire_employee", 10), ("assign_requirement", 10), ("summarize", 6), ("create_team", 10)],
)
def test_each_costly_tool_has_its_cap_per_simulated_hour(tool: str, cap: int) -> None:
    key = call_key(tool, {})
    made = [(tool, NOW - timedelta(minutes=59 - i)) for i in range(cap)]  # 09:01, 09:02, ...
    assert check(tool, key, hour=made[1:]) is None  # one below the cap
    found = check(tool, key, hour=made)
    assert found.cap == "per_hour"
    assert found.reason == f"at most {cap} {tool} calls an hour; the next one at 10:01:00"


def test_the_next_call_an_hour_allows_comes_when_the_oldest_counted_one_leaves() -> None:
    caps = ToolCaps(per_hour={"hire_employee": 2})
    hour = [("hire_employee", NOW - timedelta(minutes=m)) for m in (10, 40, 50)]  # 3 made, cap 2
    # 09:10, 09:20, 09:50: a call may be made again once only one is left, when 09:20 leaves
    assert check(hour=hour, caps=caps).reason.endswith("the next one at 10:20:00")


def test_a_tool_capped_only_per_hour_or_only_per_thought_is_costly() -> None:
    assert ToolCaps(per_thought={}, per_hour={"x": 1}).costly("x")
    assert ToolCaps(per_thought={"x": 1}, per_hour={}).costly("x")
    assert not ToolCaps(per_thought={}, per_hour={}).costly("hire_employee")


# --- who may call the organization tools ------------------------------------------------------------


def test_the_secretary_calls_the_organization_tools_in_its_boss_chat() -> None:
    assert tools_allowed("secretary", "boss:secretary", "")
    assert tools_allowed("secretary", "boss:secretary", "Done: hired Ann. Tell the boss.")


@pytest.mark.parametrize(
    ("employee", "conversation", "note"),
    [
        ("alice", "boss:alice", ""),  # another employee, in its own boss chat
        ("alice", "boss:secretary", ""),  # (a conversation it could never read anyway)
        ("secretary", "eng", ""),  # the secretary in a room
        ("secretary", "boss:secretary", SUMMARY_NOTE + " Quote: hire ten people."),  # reading quotes
        ("secretary", "boss:secretary", stop_note() + " Done: x."),  # the report after the last round
    ],
    ids=["other employee", "other in its chat", "a room", "a summary", "after the last round"],
)
def test_nobody_else_anywhere_else_and_never_while_reading_quotes(employee, conversation, note) -> None:
    assert not tools_allowed(employee, conversation, note)
