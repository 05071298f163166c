"""The secretary's tool caps (issue 22): each rule on both sides of its threshold."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

import pytest

from ideaco.office.rules.toolcaps import CAPS, HOUR, ToolCaps, call_key, is_last, recent, refuse, stop_note

NOW = datetime(2026, 1, 5, 10, 0, 0)
TINY = timedelta(microseconds=1)
KEY = call_key("hire_employee", {"name": "Ann"})


def check(tool="hire_employee", key=KEY, *, round_=0, refused=(), this=None, hour=(), caps=CAPS):
    return refuse(
        tool,
        key,
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
