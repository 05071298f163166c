"""Why a call changed nothing: the one `Refusal` every rule and tool returns, in words its caller reads."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Refusal:
    """Why a call changed nothing (the employee reads `reason` in its next thought); `cap` names the
    tool cap that refused it (`rules/toolcaps.py`: no_request, rounds, repeated, per_thought,
    per_hour), empty for any other refusal."""

    reason: str
    cap: str = ""
