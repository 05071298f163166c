"""Bounded tool chains for the secretary (issue 22): pure rules, `now` passed in.

Each tool result owes the secretary a think in which the tools are offered again; a model that
keeps calling them once made 551 hires from one "hire one engineer". So a boss request allows
`rounds` tool rounds (IdeaCo's "Step n/max"): the think that reads the boss's line is round 0,
each report it is owed the next; the report after the last round is offered no tools and says so.
Within a request a call refused once is not tried again with the same arguments. Tools with a
cost (a hire thinks, a requirement makes its lead think, a summary is a think) have a cap per
thought and per simulated hour. The boss's own commands are the boss's: no cap applies to them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Any

from ideaco.ids import SECRETARY, boss_conversation_id
from ideaco.kinds import ToolName
from ideaco.office.core.refusal import Refusal

HOUR = timedelta(hours=1)


@dataclass(frozen=True)
class ToolCaps:
    """The numbers: tool rounds per boss request, and per-thought and per-hour caps by tool."""

    rounds: int = 3
    per_thought: Mapping[str, int] = field(
        default_factory=lambda: MappingProxyType(
            {
                ToolName.HIRE_EMPLOYEE: 2,
                ToolName.ASSIGN_REQUIREMENT: 2,
                ToolName.SUMMARIZE: 1,
                ToolName.CREATE_TEAM: 2,
            }
        )
    )
    per_hour: Mapping[str, int] = field(
        default_factory=lambda: MappingProxyType(
            {
                ToolName.HIRE_EMPLOYEE: 10,
                ToolName.ASSIGN_REQUIREMENT: 10,
                ToolName.SUMMARIZE: 6,
                ToolName.CREATE_TEAM: 10,
            }
        )
    )

    def costly(self, tool: str) -> bool:
        """Whether calls of `tool` count against the caps (what they start costs model calls)."""
        return tool in self.per_hour or tool in self.per_thought


CAPS = ToolCaps()


def call_key(tool: str, args: Mapping[str, Any]) -> str:
    """A short, stable name for one call: the tool and its arguments (the same call, the same key)."""
    text = json.dumps([tool, args], sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:12]  # noqa: S324 - a name, not a secret


def recent(log: Iterable[tuple[str, datetime]], now: datetime) -> list[tuple[str, datetime]]:
    """The counted calls of the last hour: younger than an hour (at exactly an hour one has left)."""
    return [(tool, at) for tool, at in log if now - at < HOUR]


def refuse(
    tool: str,
    key: str,
    *,
    round_: int,
    refused_before: Iterable[str],
    this_thought: Mapping[str, int],
    last_hour: Iterable[tuple[str, datetime]],
    now: datetime,
    caps: ToolCaps = CAPS,
    asked: bool = True,
) -> Refusal | None:
    """The cap a call runs into, or None if it may be made (`asked` False: no line of the boss's asks)."""
    if not asked:
        return Refusal("no line of the boss's asks for it: tools answer the boss's requests", "no_request")
    if round_ >= caps.rounds:
        return Refusal(
            f"{caps.rounds} of {caps.rounds} tool steps are used for this request: "
            "no more tools until the boss writes again",
            "rounds",
        )
    if key in set(refused_before):
        return Refusal(
            "refused before with the same arguments for this request: do not call it again", "repeated"
        )
    limit = caps.per_thought.get(tool)
    if limit is not None and this_thought.get(tool, 0) >= limit:
        return Refusal(f"at most {limit} {tool} call(s) in one thought", "per_thought")
    limit = caps.per_hour.get(tool)
    if limit is not None:
        times = sorted(at for name, at in recent(last_hour, now) if name == tool)
        if len(times) >= limit:
            again = times[len(times) - limit] + HOUR
            return Refusal(
                f"at most {limit} {tool} calls an hour; the next one at {again:%H:%M:%S}", "per_hour"
            )
    return None


def stop_note(caps: ToolCaps = CAPS) -> str:
    """What the report after the last tool round reads: it is offered no tools."""
    return f"You have used all {caps.rounds} tool steps for this request (step {caps.rounds}/{caps.rounds}): no tools now."


def is_last(note: str, caps: ToolCaps = CAPS) -> bool:
    """Whether a think's note is the report after the last round (it is offered no tools)."""
    return note.startswith(stop_note(caps))


# A think that reads colleagues' words quoted for a summary runs without the tools, so nothing
# quoted there can become an order (only the boss gives orders, spec 2.3).
SUMMARY_NOTE = "The boss wants a summary."


def tools_allowed(employee: str, conversation: str, note: str) -> bool:
    """The organization tools: the secretary's, in its boss chat, never while reading quotes."""
    return (
        employee == SECRETARY
        and conversation == boss_conversation_id(SECRETARY)
        and not note.startswith(SUMMARY_NOTE)
        and not is_last(note)  # the report after a request's last tool round
    )
