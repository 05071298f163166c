"""How a metric's value reads, with its unit: one formatting for `ideaco report`, the viewer and
a sweep (rates in %, simulated seconds in s, counts with thousands separators)."""

from __future__ import annotations

from typing import Any

PERCENT = ("speak_rate", "echo", "talk_reciprocity")


def is_percent(key: str) -> bool:
    """A share from 0 to 1, shown in %: every `*_rate`, every `silence_*`, and the named few."""
    return key.endswith("_rate") or key.startswith("silence_") or key in PERCENT


def value_text(key: str, value: Any) -> str:
    """A value as the report's tables show it: rates in %, seconds (`*_s`) in s, counts as they are."""
    if value is None:
        return "-"
    if is_percent(key):
        return f"{100 * value:.1f}%"
    if key.endswith("_s"):
        return f"{value:,.1f} s"
    if isinstance(value, float):
        return f"{value:,.2f}"
    return f"{value:,}"


def difference_text(key: str, value: Any) -> str:
    """B - A with its sign and unit: points of percentage for a rate, seconds, or a count."""
    if value is None:
        return "-"
    if value == 0:
        return "="
    if is_percent(key):
        return f"{100 * value:+.1f} pp"
    if key.endswith("_s"):
        return f"{value:+,.1f} s"
    if isinstance(value, float):
        return f"{value:+,.2f}"
    return f"{value:+,}"
