"""`usage_totals`: the one count of model use over logged thoughts (summary.json, report, metrics, resume)."""

from __future__ import annotations

from datetime import datetime

from ideaco.analysis import _activity
from ideaco.office.core.stats import RunStats
from ideaco.office.resolve.summary import summarize
from ideaco.store.usage import usage_of, usage_totals

THOUGHTS = [
    {
        "employee": "a",
        "llm": {"calls": 2, "prompt_tokens": 100, "completion_tokens": 20, "cached_tokens": 64},
    },
    {"employee": "a", "llm": {"prompt_tokens": 50, "completion_tokens": 5}},  # older: no count, no cache
    {"employee": "b", "llm": None},  # no call made (a look that failed before the model, a budget stop)
    {"employee": "b"},
]


def test_a_record_without_a_call_count_is_one_call_and_one_without_llm_none():
    assert usage_of(THOUGHTS[1]) == {
        "calls": 1,
        "prompt_tokens": 50,
        "completion_tokens": 5,
        "cached_tokens": 0,
    }
    assert usage_of(THOUGHTS[2]) == usage_of(THOUGHTS[3]) == dict.fromkeys(usage_of(THOUGHTS[2]), 0)


def test_totals_sum_every_record_and_tokens_are_prompt_plus_completion():
    assert usage_totals(THOUGHTS) == {
        "calls": 3,
        "prompt_tokens": 150,
        "completion_tokens": 25,
        "cached_tokens": 64,
        "tokens": 175,
    }
    assert usage_totals([])["tokens"] == 0


def test_summary_json_and_the_report_count_the_same():
    at = datetime(2026, 3, 2, 9, 0)
    summary = summarize(
        THOUGHTS,
        [],
        employees=["a", "b"],
        simulated_start=at,
        simulated_now=at,
        wall_time_s=0.0,
        stop_reason=None,
    )
    report = _activity(THOUGHTS, [])
    totals = usage_totals(THOUGHTS)
    assert summary["llm"] == {
        k: totals[k] for k in ("calls", "prompt_tokens", "completion_tokens", "cached_tokens")
    }
    assert {k: report[k] for k in totals} == totals
    assert summary["by_employee"]["a"]["prompt_tokens"] == 150


def test_the_live_count_agrees_with_the_logs():
    stats = RunStats()
    for record in THOUGHTS:
        stats.count(record)
    totals = usage_totals(THOUGHTS)
    assert stats.llm_calls == totals["calls"]


def test_an_older_state_with_token_counts_still_reads() -> None:
    """state.json kept unread token counts in its stats before (issue 27 item 5): a resume reads past them."""
    stats = RunStats.from_dict({"thoughts": 3, "llm_calls": 4, "prompt_tokens": 900, "cached_tokens": 10})
    assert (stats.thoughts, stats.llm_calls) == (3, 4) and "prompt_tokens" not in stats.to_dict()
