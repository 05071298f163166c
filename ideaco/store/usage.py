"""The one count of model use over logged thoughts: summary.json, `report`, the metrics and a
resume's budget all count with it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

USAGE_KEYS = ("calls", "prompt_tokens", "completion_tokens", "cached_tokens")


def usage_of(record: dict[str, Any]) -> dict[str, int]:
    """A logged thought's model use (its `llm`): calls (1 in a record older than the count) and
    tokens; zeros for a thought that made no call."""
    llm = record.get("llm") or {}
    if not llm:
        return dict.fromkeys(USAGE_KEYS, 0)
    return {"calls": llm.get("calls", 1), **{k: llm.get(k, 0) for k in USAGE_KEYS[1:]}}


def usage_totals(thoughts: Iterable[dict[str, Any]]) -> dict[str, int]:
    """The model use of logged thoughts, summed (`usage_of`), with `tokens`: prompt + completion.
    summary.json, `report`, the metrics and a resume's budget all count with this."""
    totals = dict.fromkeys(USAGE_KEYS, 0)
    for record in thoughts:
        for key, n in usage_of(record).items():
            totals[key] += n
    return totals | {"tokens": totals["prompt_tokens"] + totals["completion_tokens"]}


def restored_calls(saved_office: Mapping[str, Any], used: int) -> int:
    """The calls a resumed run's budget starts from: those its logged thoughts used, or, when more,
    those its earlier sessions made (state.json's `calls.made`: early calls dropped count too)."""
    calls = saved_office.get("calls")
    made = calls.get("made") if isinstance(calls, Mapping) else None
    return max(used, made) if isinstance(made, int) and not isinstance(made, bool) else used
