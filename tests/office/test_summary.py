"""summary.json's counts and its stop reason (spec 1.5)."""

from __future__ import annotations

from datetime import datetime, timedelta

from ideaco.office.summary import CLOSED_EARLY, ENDED, stop_reason, summarize

T0 = datetime(2026, 1, 5, 9, 0)


def test_the_stop_reason_is_always_said():
    end = T0 + timedelta(hours=1)
    assert stop_reason("budget spent", T0, end) == "budget spent"
    assert stop_reason(None, end, end) == ENDED
    assert stop_reason(None, end - timedelta(seconds=1), end) == CLOSED_EARLY
    assert stop_reason(None, T0, None) == ENDED  # no end of its own (a chat): it ended where it stopped


def test_rows_for_the_employees_and_totals_that_add_up():
    thoughts = [
        {"employee": "ana", "spoke": True, "llm": {"prompt_tokens": 10, "completion_tokens": 2}},
        {"employee": "ben", "spoke": False, "gate": "saturation", "llm": None},
    ]
    messages = [{"sender": "boss"}, {"sender": "ana"}]
    out = summarize(
        thoughts,
        messages,
        employees=["ana", "ben"],
        simulated_start=T0,
        simulated_now=T0,
        wall_time_s=1.0,
        stop_reason=None,
    )
    assert set(out["by_employee"]) == {"ana", "ben"}
    assert sum(r["thoughts"] for r in out["by_employee"].values()) == out["thoughts"]
