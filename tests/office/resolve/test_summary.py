"""summary.json's counts and its stop reason (spec 1.5), each number checked against a hand count.

Each test here was checked by a one-line change to office/resolve/summary.py that it catches (the
mutation named beside it); `python tests/mutation/run.py summary` runs them all.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from ideaco.office.resolve.summary import (
    CLOSED_EARLY,
    ENDED,
    add_session_calls,
    calls_line,
    calls_section,
    stop_reason,
    summarize,
)

T0 = datetime(2026, 1, 5, 9, 0)


def test_the_stop_reason_is_always_said():
    end = T0 + timedelta(hours=1)
    assert stop_reason("budget spent", T0, end) == "budget spent"
    assert stop_reason(None, end, end) == ENDED  # `now > end_at` instead of `>=`: CLOSED_EARLY
    assert stop_reason(None, end + timedelta(seconds=1), end) == ENDED
    assert stop_reason(None, end - timedelta(seconds=1), end) == CLOSED_EARLY
    assert stop_reason(None, T0, None) == ENDED  # no end of its own (a chat): it ended where it stopped


def _draft(gate: str | None, rule: str | None) -> dict:
    return {"step": "draft", "gate": gate, "rule": rule}


# Three employees' thoughts, each count different from every other, so a swapped key or an
# off-by-one shows: ana speaks twice and is silent once, ben is silent twice, cleo speaks once.
THOUGHTS = [
    {"employee": "ana", "spoke": True, "llm": {"calls": 2, "prompt_tokens": 100, "completion_tokens": 7}},
    {
        "employee": "ana",
        "spoke": False,
        "gate": "saturation",
        "llm": {"prompt_tokens": 50, "completion_tokens": 3, "cached_tokens": 40},
        "applied": {"steps": [_draft("loop_breaker", "duplicate"), _draft("cooldown", None)]},
    },
    {"employee": "ana", "spoke": True, "llm": {"prompt_tokens": 20, "completion_tokens": 1}},
    {"employee": "ben", "spoke": False, "gate": "saturation", "llm": None},
    {
        "employee": "ben",
        "spoke": False,
        "gate": "cooldown",
        "llm": {"prompt_tokens": 9, "completion_tokens": 4},
        "applied": {"steps": [_draft("loop_breaker", "duplicate"), _draft("filter", "placeholder")]},
    },
    {
        "employee": "secretary",  # not in `employees`: a row of its own all the same
        "spoke": True,
        "applied": {
            "steps": [
                {"step": "tool", "ok": True},
                {"step": "tool", "ok": False, "cap": "per_hour"},
                {"step": "tool", "ok": False},
                {"step": "tool", "ok": False, "cap": "per_hour"},
            ]
        },
    },
]
MESSAGES = [{"sender": s} for s in ("boss", "ana", "ana", "secretary", "ana", "boss", "cleo")]


def _summary() -> dict:
    return summarize(
        THOUGHTS,
        MESSAGES,
        employees=["ana", "ben", "cleo"],
        tasks={"open": 2, "done": 1},
        simulated_start=T0,
        simulated_now=T0 + timedelta(minutes=90),
        wall_time_s=12.3456,
        stop_reason="budget spent",
        errors={"timeout": 3},
    )


def _row(thoughts: int, spoke: int, silent: int, messages: int, prompt: int, completion: int) -> dict:
    return {
        "thoughts": thoughts,
        "spoke": spoke,
        "silent": silent,
        "messages": messages,
        "prompt_tokens": prompt,
        "completion_tokens": completion,
    }


def test_each_employees_row_is_its_own_hand_count():
    # swapping "spoke"/"silent" swaps ana's 2/1; `+= 1` as `+= 2` doubles every row;
    # prompt and completion tokens swapped, or summed from the wrong key, change ana's 170/11
    assert _summary()["by_employee"] == {
        "ana": _row(3, 2, 1, 3, 170, 11),
        "ben": _row(2, 0, 2, 0, 9, 4),
        "cleo": _row(0, 0, 0, 1, 0, 0),  # a message in the script, no thought
        "secretary": _row(1, 1, 0, 1, 0, 0),
    }


def test_the_totals_are_the_hand_counts():
    out = _summary()
    assert out["messages"] == 7
    assert out["messages_by_sender"] == {"boss": 2, "ana": 3, "secretary": 1, "cleo": 1}
    assert out["thoughts"] == 6
    assert out["silences_by_gate"] == {"saturation": 2, "cooldown": 1}
    # a draft held without a rule (the cooldown one) is not a refusal by rule
    assert out["drafts_refused_by_rule"] == {"filter:placeholder": 1, "loop_breaker:duplicate": 2}
    assert list(out["drafts_refused_by_rule"]) == ["filter:placeholder", "loop_breaker:duplicate"]
    assert out["tool_calls"] == {"made": 1, "refused": 3, "by_cap": {"per_hour": 2}}
    # a usage without "calls" is one call (`usage.get("calls", 1)` -> 0 makes it 2)
    assert out["llm"] == {"calls": 5, "prompt_tokens": 179, "completion_tokens": 15, "cached_tokens": 40}
    assert out["tasks_by_status"] == {"open": 2, "done": 1}
    assert out["errors_by_kind"] == {"timeout": 3}


def test_a_run_stopped_between_seconds_shows_whole_seconds():
    """A run stopped early (--max-calls) ended at 0:01:23.593227: the closing line printed that."""
    out = summarize(
        THOUGHTS,
        MESSAGES,
        employees=["ana", "ben", "cleo"],
        simulated_start=T0,
        simulated_now=T0 + timedelta(minutes=1, seconds=23, microseconds=593227),
        wall_time_s=1.0,
        stop_reason="max calls reached",
    )
    assert out["simulated_time"] == "0:01:23" and out["simulated_seconds"] == 83.593227


def test_the_times_and_the_reason():
    out = _summary()
    assert out["wall_time_s"] == 12.35
    assert out["simulated_time"] == "1:30:00"
    assert out["simulated_seconds"] == 5400.0
    assert out["simulated_start"] == "2026-01-05T09:00:00"
    assert out["simulated_end"] == "2026-01-05T10:30:00"
    assert out["stop_reason"] == "budget spent"


def test_an_empty_run_has_zeros_not_gaps():
    out = summarize(
        [], [], employees=["ana"], simulated_start=T0, simulated_now=T0, wall_time_s=0, stop_reason=None
    )
    assert out["by_employee"] == {"ana": _row(0, 0, 0, 0, 0, 0)}
    assert out["llm"] == {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "cached_tokens": 0}
    assert out["tool_calls"] == {"made": 0, "refused": 0, "by_cap": {}}
    assert (out["tasks_by_status"], out["errors_by_kind"], out["stop_reason"]) == ({}, {}, None)


FLIGHT = {"sent": 10, "tokens": 1000, "mean": 1.5, "peak": 3}
EARLY = {"started": 4, "used": 3, "dropped": 1, "dropped_calls": 2, "chained": 1}


def test_a_resumed_runs_calls_add_to_the_earlier_sessions():
    first = add_session_calls(None, FLIGHT, EARLY, 20.0)
    assert first == {
        "made": 10,
        "tokens_made": 1000,
        "early_started": 4,
        "early_used": 3,
        "early_dropped": 1,
        "early_dropped_calls": 2,
        "early_chained": 1,
        "busy_s": 30.0,
        "wall_s": 20.0,
        "peak": 3,
    }
    second = add_session_calls(first, {"sent": 5, "tokens": 200, "mean": 1.0, "peak": 2}, EARLY, 10.0)
    assert second["made"] == 15 and second["tokens_made"] == 1200
    assert second["early_started"] == 8 and second["early_dropped_calls"] == 4
    assert second["early_chained"] == 2
    assert second["busy_s"] == 40.0 and second["wall_s"] == 30.0
    assert second["peak"] == 3  # the highest of the sessions (min would say 2)
    assert add_session_calls(second, {"peak": 7}, {}, 0.0)["peak"] == 7


def test_the_calls_section_and_its_line():
    counts = add_session_calls(None, FLIGHT, EARLY, 20.0)
    llm = {"calls": 8, "prompt_tokens": 700, "completion_tokens": 60}
    calls = calls_section(counts, llm, speculate=2)
    assert calls == {
        "made": 10,
        "used": 8,
        "dropped": 2,
        "tokens_made": 1000,
        "tokens_used": 760,
        "tokens_unused": 240,
        "speculate": 2,
        "early": {"started": 4, "used": 3, "dropped": 1, "chained": 1},
        "in_flight": {"mean": 1.5, "peak": 3},
    }
    assert calls_line(calls) == (
        "model calls: 10 made, 8 used (3 of them started early), 2 started early and dropped "
        "(240 tokens used by no thought); 1.5 in flight on average, 3 at most"
    )


def test_the_calls_section_never_says_negative_or_divides_by_zero():
    calls = calls_section({}, {"calls": 1, "prompt_tokens": 5, "completion_tokens": 5}, speculate=0)
    # a killed session counted nothing: what its thoughts used is the least it made (not -10 unused)
    assert (calls["made"], calls["tokens_made"], calls["tokens_unused"]) == (1, 10, 0)
    assert calls["in_flight"] == {"mean": 0.0, "peak": 0}
    assert calls_line(calls) == "model calls: 1 made, 1 used; 0.0 in flight on average, 0 at most"
    nothing_dropped = dict(calls, early={"started": 2, "used": 2, "dropped": 0})
    assert calls_line(nothing_dropped) == (
        "model calls: 1 made, 1 used (2 of them started early); 0.0 in flight on average, 0 at most"
    )


def test_missing_counts_are_zero_and_the_mean_is_rounded_to_two_places():
    # each `.get(key, 0)` of these as `.get(key, 1)` (tests/mutation/run.py summary) says 1
    nothing = add_session_calls(None, {}, {}, 0.0)
    assert {k: v for k, v in nothing.items() if k not in ("busy_s", "wall_s")} == {
        "made": 0,
        "tokens_made": 0,
        "early_started": 0,
        "early_used": 0,
        "early_dropped": 0,
        "early_dropped_calls": 0,
        "early_chained": 0,
        "peak": 0,
    }
    calls = calls_section({"busy_s": 1 / 3 * 0.5, "wall_s": 0.5}, {}, speculate=0)
    assert (calls["made"], calls["used"], calls["tokens_made"], calls["tokens_used"]) == (0, 0, 0, 0)
    assert calls["in_flight"]["mean"] == 0.33  # a wall under a second still divides (`wall > 1`: 0.0)
