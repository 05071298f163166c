"""When the model is behind the chat's clock (issue 29, item 7): one status line that says so.

On the real clock a think's answer is due `think_seconds` after it began; a model slower than
that at the chat's `--speed` lets simulated time run on while the boss's line waits. `behind`
finds the think furthest past its moment; `LagNotice` says so in one line once it is at least
`NOTICE_S` simulated seconds late, and again only after `REPEAT_S` more (nothing is said while
the model keeps up).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

NOTICE_S = 30.0  # simulated seconds past a think's moment before the chat says so
REPEAT_S = 120.0  # simulated seconds between two such lines


class Pending(Protocol):
    """A think under way, as `Office.thinking` holds it (a `ThinkContext`)."""

    employee: str
    at: datetime
    call: Any  # an asyncio future: done when the model answered


def behind(thinking: Iterable[Pending], now: datetime, think_seconds: float) -> tuple[str, float] | None:
    """The employee whose answer is latest past its moment, and by how many simulated seconds."""
    worst: tuple[str, float] | None = None
    for ctx in thinking:
        if ctx.call.done():
            continue
        late = (now - ctx.at).total_seconds() - think_seconds
        if late > 0 and (worst is None or late > worst[1]):
            worst = (ctx.employee, late)
    return worst


def _span(seconds: float) -> str:
    minutes, rest = divmod(int(seconds), 60)
    return f"{minutes} min {rest} s" if minutes else f"{rest} s"


@dataclass
class LagNotice:
    """Says when the model is behind, at most once every REPEAT_S simulated seconds."""

    speed: float
    said_at: datetime | None = None

    def line(
        self, thinking: Iterable[Pending], now: datetime, think_seconds: float, names: Mapping[str, str]
    ) -> str | None:
        late = behind(thinking, now, think_seconds)
        if late is None or late[1] < NOTICE_S:
            return None
        if self.said_at is not None and (now - self.said_at).total_seconds() < REPEAT_S:
            return None
        self.said_at = now
        who = names.get(late[0], late[0])
        return (
            f"(the model is behind: {who}'s answer is {_span(late[1])} late in simulated time; "
            f"the clock runs {self.speed:g}x real time, a lower --speed lets the model keep up)"
        )
