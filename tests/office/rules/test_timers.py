"""Spec 2.1: the adaptive delay and the other waking delays."""

from __future__ import annotations

import random

import pytest

from ideaco.kinds import ConversationKind
from ideaco.office.rules import (
    TimerConfig,
    adaptive_delay,
    base_delay,
    mention_delay,
    nudge_delay,
    should_think_idle,
    typing_pause,
)
from tests.office.rules.helpers import T0, US, secs


@pytest.mark.parametrize(
    ("interest", "saturation", "expected"),
    [
        (10, 0, 10.0),  # critical and fresh: look again at MIN
        (1, 10, 300.0),  # not my area and exhausted: MAX
        (1, 0, 10.0 + 0.6 * 290),  # 184
        (10, 10, 10.0 + 0.4 * 290),  # 126
        (5, 5, 10.0 + (0.6 * 5 / 9 + 0.4 * 0.5) * 290),
        (7, 3, 10.0 + (0.6 * 3 / 9 + 0.4 * 0.3) * 290),
        (0, 0, 184.0),  # interest clamped up to 1
        (11, 0, 10.0),  # interest clamped down to 10
        (10, -3, 10.0),  # saturation clamped up to 0
        (1, 12, 300.0),  # saturation clamped down to 10
    ],
)
def test_base_delay_golden_table(interest: int, saturation: int, expected: float) -> None:
    assert base_delay(interest, saturation) == pytest.approx(expected)


def test_base_delay_follows_configured_bounds() -> None:
    cfg = TimerConfig(min_s=20.0, max_s=120.0)
    assert base_delay(10, 0, cfg) == pytest.approx(20.0)
    assert base_delay(1, 10, cfg) == pytest.approx(120.0)


@pytest.mark.parametrize(("interest", "saturation"), [(10, 0), (1, 10), (5, 5), (1, 0), (10, 10)])
def test_adaptive_delay_jitters_within_ten_percent_and_clamps(interest: int, saturation: int) -> None:
    base = base_delay(interest, saturation)
    delays = [adaptive_delay(interest, saturation, random.Random(seed)) for seed in range(400)]
    assert all(10.0 <= d <= 300.0 for d in delays)
    assert all(max(10.0, base * 0.9) <= d <= min(300.0, base * 1.1) for d in delays)
    # The jitter really spreads (both directions unless a bound clamps that side).
    if base * 0.9 >= 10.0:
        assert min(delays) < base * 0.92
    else:
        assert min(delays) == 10.0
    if base * 1.1 <= 300.0:
        assert max(delays) > base * 1.08
    else:
        assert max(delays) == 300.0


def test_adaptive_delay_is_deterministic_per_seed_and_uses_one_draw() -> None:
    a, b = random.Random(7), random.Random(7)
    assert adaptive_delay(5, 5, a) == adaptive_delay(5, 5, b)
    b.random()
    a.random()
    assert a.random() == b.random()
    c, d = random.Random(9), random.Random(9)
    adaptive_delay(3, 4, c)
    d.random()
    assert c.random() == d.random()


@pytest.mark.parametrize(
    ("draw", "low", "high"),
    [(nudge_delay, 10.0, 300.0), (mention_delay, 1.0, 5.0), (typing_pause, 5.0, 20.0)],
)
def test_other_delays_stay_in_their_ranges(draw, low: float, high: float) -> None:
    values = [draw(random.Random(seed)) for seed in range(300)]
    assert all(low <= v <= high for v in values)
    span = high - low
    assert min(values) < low + 0.05 * span and max(values) > high - 0.05 * span


@pytest.mark.parametrize(
    ("kind", "last_at", "qualifies"),
    [
        (ConversationKind.CASUAL, None, True),  # never a message: idle
        (ConversationKind.CASUAL, T0 - secs(600), True),  # exactly 10 min: idle
        (ConversationKind.CASUAL, T0 - secs(600) + US, False),  # 1 µs short
        (ConversationKind.CASUAL, T0 - secs(3600), True),
        (ConversationKind.WORK, None, False),
        (ConversationKind.WORK, T0 - secs(3600), False),
        (ConversationKind.DM, T0 - secs(3600), False),
        (ConversationKind.BOSS, None, False),
        ("casual", T0 - secs(601), True),  # the plain string value works too
    ],
)
def test_idle_thinking_only_in_idle_casual_rooms(kind, last_at, qualifies: bool) -> None:
    always = TimerConfig(idle_think_chance=1.0)
    assert should_think_idle(kind, last_at, T0, random.Random(1), always) is qualifies


@pytest.mark.parametrize(("draw", "thinks"), [(0.1499, True), (0.15, False), (0.0, True), (0.9, False)])
def test_idle_thinking_chance_is_fifteen_percent(draw: float, thinks: bool) -> None:
    class Fixed(random.Random):
        def random(self) -> float:
            return draw

    assert should_think_idle(ConversationKind.CASUAL, None, T0, Fixed()) is thinks


def test_idle_thinking_draws_once_only_when_the_room_qualifies() -> None:
    for kind, last_at, draws in [
        (ConversationKind.CASUAL, None, 1),
        (ConversationKind.CASUAL, T0 - secs(599), 0),
        (ConversationKind.WORK, None, 0),
    ]:
        used, fresh = random.Random(3), random.Random(3)
        should_think_idle(kind, last_at, T0, used)
        for _ in range(draws):
            fresh.random()
        assert used.random() == fresh.random(), (kind, last_at)


def test_idle_thinking_rate_over_many_looks() -> None:
    rng = random.Random(2026)
    hits = sum(should_think_idle(ConversationKind.CASUAL, None, T0, rng) for _ in range(4000))
    assert 0.12 < hits / 4000 < 0.18
