"""The boss's own commands, decided on a scratch copy like a think: an organization tool (`/hire`,
`/dismiss`, ...) and the sign-off a `/approve req-<n>` line asks for. Each returns its outcome and
its steps as values; `resolve/apply.py` lands them and logs them in changes.jsonl.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ideaco.office.core.refusal import Refusal
from ideaco.office.core.state import OfficeState
from ideaco.office.core.steps import OweStep, Step
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.tools import requirements
from ideaco.office.decide.tools.org import ToolContext, ToolResult, run_tool


def tool(
    state: OfficeState, company: str, name: str, args: dict[str, Any], now: datetime, stamina: bool
) -> tuple[ToolResult, list[Step]]:
    """An organization tool the boss called directly: its outcome and the steps it takes (none if refused)."""
    scratch = Scratch(state)
    outcome = run_tool(scratch, name, args, ToolContext(company, now, stamina))
    steps: list[Step] = scratch.take(now)
    steps += [OweStep(employee, owed) for employee, owed in outcome.owed]
    return outcome, steps


def approval(state: OfficeState, text: str, now: datetime) -> tuple[str, list[Step]] | None:
    """The requirement a boss line `/approve req-<n>` signs off and the steps that approve it
    (none if it is not waiting for the boss); None for any other line."""
    room = requirements.approval(text)
    if room is None:
        return None
    scratch = Scratch(state)
    outcome = requirements.sign_off(scratch, room, "approve", "", now)
    return room, [] if isinstance(outcome, Refusal) else scratch.take(now)
