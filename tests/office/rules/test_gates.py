"""Spec 2.2: saturation, anti-spam and cooldown gates, each on both sides of its window."""

from __future__ import annotations

import pytest

from ideaco.kinds import ConversationKind
from ideaco.office.rules import (
    DEFAULT_GATES,
    GateConfig,
    GateVerdict,
    KindGates,
    check_speech,
)
from tests.office.rules.helpers import T0, US, secs

WORK, CASUAL, DM, BOSS = (
    ConversationKind.WORK,
    ConversationKind.CASUAL,
    ConversationKind.DM,
    ConversationKind.BOSS,
)

# kind, max posts in window, window (s), cooldown (s): the table of spec 2.2.
TABLE = [(WORK, 2, 300, 60), (CASUAL, 4, 600, 30), (DM, 4, 300, 20), (BOSS, 6, 300, 10)]


@pytest.mark.parametrize(("kind", "max_posts", "window", "cooldown"), TABLE)
def test_default_table(kind, max_posts: int, window: float, cooldown: float) -> None:
    assert DEFAULT_GATES.for_kind(kind) == KindGates(max_posts, window, cooldown)
    assert DEFAULT_GATES.for_kind(kind.value) == KindGates(max_posts, window, cooldown)


def test_empty_state_allows() -> None:
    for kind, *_ in TABLE:
        assert check_speech(kind, [], saturation=1, mentioned=False, now=T0) == GateVerdict(True)


@pytest.mark.parametrize(("kind", "max_posts", "window", "cooldown"), TABLE)
@pytest.mark.parametrize(("oldest_age", "held"), [(0, False), (-1, True)], ids=["at_W", "W_minus_1us"])
def test_anti_spam_window_edges(kind, max_posts, window, cooldown, oldest_age, held) -> None:
    # max_posts posts: the oldest exactly W old (left the window) or 1 µs younger (still in it);
    # the others exactly `cooldown` old so the cooldown gate is open.
    oldest = T0 - secs(window) - oldest_age * US
    posts = [oldest] + [T0 - secs(cooldown)] * (max_posts - 1)
    verdict = check_speech(kind, posts, saturation=1, mentioned=False, now=T0)
    if held:
        assert verdict == GateVerdict(False, "anti_spam", oldest + secs(window))
        assert verdict.reopens_at == T0 + US
    else:
        assert verdict == GateVerdict(True)


@pytest.mark.parametrize(("kind", "max_posts", "window", "cooldown"), TABLE)
def test_anti_spam_one_under_the_limit_allows(kind, max_posts, window, cooldown) -> None:
    posts = [T0 - secs(cooldown)] * (max_posts - 1)
    assert check_speech(kind, posts, 1, False, T0).allowed


@pytest.mark.parametrize(("kind", "max_posts", "window", "cooldown"), TABLE)
@pytest.mark.parametrize(("age_offset", "held"), [(0, False), (-1, True)], ids=["at_cooldown", "minus_1us"])
def test_cooldown_edges(kind, max_posts, window, cooldown, age_offset, held) -> None:
    last = T0 - secs(cooldown) - age_offset * US
    verdict = check_speech(kind, [T0 - secs(window), last], saturation=1, mentioned=False, now=T0)
    if held:
        assert verdict == GateVerdict(False, "cooldown", last + secs(cooldown))
        assert verdict.reopens_at == T0 + US
    else:
        assert verdict == GateVerdict(True)


@pytest.mark.parametrize(
    ("saturation", "mentioned", "expected"),
    [
        (6, False, GateVerdict(True)),
        (7, False, GateVerdict(False, "saturation", None)),
        (10, False, GateVerdict(False, "saturation", None)),
        (7, True, GateVerdict(True)),
        (10, True, GateVerdict(True)),
    ],
)
@pytest.mark.parametrize("kind", [WORK, CASUAL, DM, BOSS])
def test_saturation_silences_unless_mentioned(kind, saturation, mentioned, expected) -> None:
    assert check_speech(kind, [], saturation, mentioned, T0) == expected


def test_order_saturation_then_anti_spam_then_cooldown() -> None:
    spammed = [T0 - secs(61), T0 - secs(1)]  # 2 in 5 min and 1 s ago: both anti-spam and cooldown
    assert check_speech(WORK, spammed, 9, False, T0).gate == "saturation"
    assert check_speech(WORK, spammed, 1, False, T0).gate == "anti_spam"
    assert check_speech(WORK, spammed[1:], 1, False, T0).gate == "cooldown"


def test_mention_lifts_only_saturation() -> None:
    spammed = [T0 - secs(61), T0 - secs(1)]
    verdict = check_speech(WORK, spammed, 9, True, T0)
    assert verdict == GateVerdict(False, "anti_spam", T0 - secs(61) + secs(300))
    assert check_speech(WORK, spammed[1:], 9, True, T0) == GateVerdict(False, "cooldown", T0 + secs(59))


def test_anti_spam_reopens_when_enough_posts_leave() -> None:
    # Three posts over a limit of two (e.g. after a config change): two must leave.
    posts = [T0 - secs(10), T0 - secs(30), T0 - secs(20)]
    verdict = check_speech(WORK, posts, 1, False, T0)
    assert verdict.gate == "anti_spam"
    assert verdict.reopens_at == T0 - secs(20) + secs(300)
    assert check_speech(WORK, posts, 1, False, verdict.reopens_at).allowed
    assert check_speech(WORK, posts, 1, False, verdict.reopens_at - US).gate == "anti_spam"


def test_reopened_cooldown_allows_exactly_then() -> None:
    verdict = check_speech(DM, [T0 - secs(5)], 1, False, T0)
    assert verdict.reopens_at == T0 + secs(15)
    assert check_speech(DM, [T0 - secs(5)], 1, False, verdict.reopens_at).allowed


def test_gates_build_up_from_an_empty_state() -> None:
    """Every gate is reachable by posting from nothing, as the engine would."""
    posts: list = []
    now = T0
    assert check_speech(WORK, posts, 1, False, now).allowed
    posts.append(now)
    assert check_speech(WORK, posts, 1, False, now + secs(30)).gate == "cooldown"
    now += secs(60)
    assert check_speech(WORK, posts, 1, False, now).allowed
    posts.append(now)
    now += secs(60)
    assert check_speech(WORK, posts, 1, False, now).gate == "anti_spam"
    assert check_speech(WORK, posts, 8, False, now).gate == "saturation"
    assert check_speech(WORK, posts, 1, False, T0 + secs(300)).allowed


def test_config_override() -> None:
    cfg = GateConfig(work=KindGates(max_posts=1, window_s=30, cooldown_s=5), saturation_silence_at=9)
    assert check_speech(WORK, [T0 - secs(29)], 8, False, T0, cfg).gate == "anti_spam"
    assert check_speech(WORK, [T0 - secs(30)], 8, False, T0, cfg).allowed
    assert check_speech(WORK, [], 9, False, T0, cfg).gate == "saturation"
    # Other kinds keep their defaults.
    assert cfg.for_kind(CASUAL) == DEFAULT_GATES.casual
