"""The office's pure decision rules: waking (spec 2.1), mentions, speech gates (2.2), loop breakers (2.3).

Every rule takes its inputs and `now` explicitly, draws randomness only from a passed
`random.Random`, and returns a value or a small frozen verdict: no clock, no I/O, no global state.
Also here: the numbers the rules take, gathered per office (`config.py`), and the per-person levers
(`levers.py`, with what they make of one employee). Imports only `core` of the office's stages.
"""

from __future__ import annotations

from ideaco.office.rules.gates import (
    DEFAULT_GATES,
    GateConfig,
    GateVerdict,
    KindGates,
    anti_spam_reopens_at,
    check_speech,
    check_timing,
    cooldown_reopens_at,
)
from ideaco.office.rules.loop_breakers import (
    LoopVerdict,
    RingVerdict,
    check_duplicate,
    check_ring,
    closes_ring,
    is_closed,
    may_rethink,
    owes_escalation,
    pair_streak,
    thought_superseded,
    unanswered_ceiling_reached,
)
from ideaco.office.rules.mentions import addressed_by_boss, mask_code, named_in, parse_mentions
from ideaco.office.rules.timers import (
    DEFAULT_TIMERS,
    TimerConfig,
    adaptive_delay,
    base_delay,
    mention_delay,
    nudge_delay,
    room_is_idle,
    should_think_idle,
    typing_pause,
)

__all__ = [
    "DEFAULT_GATES",
    "DEFAULT_TIMERS",
    "GateConfig",
    "GateVerdict",
    "KindGates",
    "RingVerdict",
    "TimerConfig",
    "LoopVerdict",
    "adaptive_delay",
    "addressed_by_boss",
    "anti_spam_reopens_at",
    "base_delay",
    "check_duplicate",
    "check_ring",
    "check_speech",
    "check_timing",
    "closes_ring",
    "cooldown_reopens_at",
    "is_closed",
    "mask_code",
    "may_rethink",
    "mention_delay",
    "nudge_delay",
    "owes_escalation",
    "pair_streak",
    "named_in",
    "parse_mentions",
    "room_is_idle",
    "should_think_idle",
    "thought_superseded",
    "typing_pause",
    "unanswered_ceiling_reached",
]
