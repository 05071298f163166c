"""Waking rules (spec 2.1): the adaptive delay, nudge/mention/typing delays and idle thinking.

Pure functions: every input, `now` and the random source are passed in. Each function that takes
an `rng` documents how many draws it consumes, because a replayed run stays identical only if the
same draws happen in the same order.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta

from ideaco.kinds import ConversationKind


@dataclass(frozen=True)
class TimerConfig:
    """The numbers of spec 2.1, in seconds; a scenario may override any of them."""

    min_s: float = 10.0
    max_s: float = 300.0
    jitter: float = 0.10
    nudge_min_s: float = 10.0
    nudge_max_s: float = 300.0
    mention_min_s: float = 1.0
    mention_max_s: float = 5.0
    typing_min_s: float = 5.0
    typing_max_s: float = 20.0
    idle_casual_after_s: float = 600.0
    idle_think_chance: float = 0.15


DEFAULT_TIMERS = TimerConfig()


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


def base_delay(interest: int, saturation: int, cfg: TimerConfig = DEFAULT_TIMERS) -> float:
    """Seconds until the next look before jitter: high interest looks soon, a saturated topic late.

    interest is clamped to 1..10 and saturation to 0..10, so a model's out-of-range number
    still yields a delay in [MIN, MAX].
    """
    interest_factor = (10 - _clamp(interest, 1, 10)) / 9
    saturation_factor = _clamp(saturation, 0, 10) / 10
    weight = 0.6 * interest_factor + 0.4 * saturation_factor
    return cfg.min_s + weight * (cfg.max_s - cfg.min_s)


def adaptive_delay(
    interest: int, saturation: int, rng: random.Random, cfg: TimerConfig = DEFAULT_TIMERS
) -> float:
    """The base delay with uniform ±jitter, clamped to [MIN, MAX]. Consumes one rng draw."""
    factor = rng.uniform(1 - cfg.jitter, 1 + cfg.jitter)
    return _clamp(base_delay(interest, saturation, cfg) * factor, cfg.min_s, cfg.max_s)


def nudge_delay(rng: random.Random, cfg: TimerConfig = DEFAULT_TIMERS) -> float:
    """Delay before a posted message nudges another member. Consumes one rng draw."""
    return rng.uniform(cfg.nudge_min_s, cfg.nudge_max_s)


def mention_delay(rng: random.Random, cfg: TimerConfig = DEFAULT_TIMERS) -> float:
    """Delay before a mention or a boss message wakes the addressed. Consumes one rng draw."""
    return rng.uniform(cfg.mention_min_s, cfg.mention_max_s)


def typing_pause(rng: random.Random, cfg: TimerConfig = DEFAULT_TIMERS) -> float:
    """The 'typing' pause before thinking; messages arriving in it join the batch. One rng draw."""
    return rng.uniform(cfg.typing_min_s, cfg.typing_max_s)


def room_is_idle(last_message_at: datetime | None, now: datetime, cfg: TimerConfig = DEFAULT_TIMERS) -> bool:
    """True when nothing was posted for at least idle_casual_after_s (or ever)."""
    if last_message_at is None:
        return True
    return now - last_message_at >= timedelta(seconds=cfg.idle_casual_after_s)


def should_think_idle(
    room_kind: ConversationKind | str,
    last_message_at: datetime | None,
    now: datetime,
    rng: random.Random,
    cfg: TimerConfig = DEFAULT_TIMERS,
) -> bool:
    """Whether an empty look in an idle casual room thinks anyway (trigger `idle`).

    Consumes exactly one rng draw when the room qualifies (casual and idle), and none otherwise:
    the caller's random stream, and so a replay, depends on this.
    """
    if ConversationKind(room_kind) is not ConversationKind.CASUAL:
        return False
    if not room_is_idle(last_message_at, now, cfg):
        return False
    return rng.random() < cfg.idle_think_chance
