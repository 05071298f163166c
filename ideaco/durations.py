"""Durations and script times as a scenario writes them: "2h", "30m", "1h30m", "HH:MM"."""

from __future__ import annotations

import re
from datetime import timedelta

from ideaco.bounds import bounded

_DURATION = re.compile(
    r"^(?:(\d+(?:\.\d+)?)d)?(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m)?(?:(\d+(?:\.\d+)?)s)?$"
)
_CLOCK = re.compile(r"^(\d+):([0-5]\d)(?::([0-5]\d))?$")


def parse_duration(value: str | int | float | timedelta) -> timedelta:
    """Parse "2h", "30m", "90s", "1h30m", "1.5h", "1d" (or seconds) into a timedelta of at most 366 days."""
    if isinstance(value, timedelta):
        return bounded(value, value.total_seconds())
    if isinstance(value, bool):
        raise ValueError(f"{value!r} is not a duration (use e.g. 2h, 30m, 1h30m)")
    if isinstance(value, (int, float)):
        if value < 0:
            raise ValueError(f"{value!r} is negative")
        return bounded(value, float(value))
    text = str(value).strip().lower().replace(" ", "")
    match = _DURATION.match(text)
    if not text or not match or not any(match.groups()):
        raise ValueError(f"{value!r} is not a duration (use e.g. 2h, 30m, 90s, 1h30m)")
    d, h, m, s = (float(g) if g else 0.0 for g in match.groups())
    return bounded(value, d * 86400 + h * 3600 + m * 60 + s)


def parse_offset(value: str | int | float | timedelta) -> timedelta:
    """Parse a script time: "HH:MM" or "HH:MM:SS" after the start, or a duration like "1h30m"."""
    if isinstance(value, str):
        match = _CLOCK.match(value.strip())
        if match:
            h, m, s = match.groups()
            return bounded(value, int(h) * 3600 + int(m) * 60 + int(s or 0))
    try:
        return parse_duration(value)
    except ValueError as exc:
        if "longer than" in str(exc):
            raise
        raise ValueError(f"{value!r} is not a time (use HH:MM from the start, or e.g. 1h30m)") from None


def format_duration(td: timedelta) -> str:
    """The inverse of `parse_duration`: "1h30m", "45s", "0s"."""
    total = td.total_seconds()
    hours, rest = divmod(total, 3600)
    minutes, seconds = divmod(rest, 60)
    parts = [f"{int(hours)}h" if hours else "", f"{int(minutes)}m" if minutes else ""]
    if seconds:
        parts.append(f"{seconds:g}s")
    return "".join(parts) or "0s"
