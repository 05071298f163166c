"""People, not prompts (issue 13): each lever on both sides of its thresholds and at its bounds."""

from __future__ import annotations

import random

import pytest

from ideaco.office.rules import GateConfig, TimerConfig, levers
from ideaco.office.rules.levers import DEFAULT_LEVERS, NEUTRAL


def persona(**tendencies: float) -> dict:
    return {"tendencies": tendencies}


def test_a_tendency_not_stated_is_the_middle_and_out_of_range_ones_are_clamped() -> None:
    assert levers.tendency({}, "talkativeness") == 0.5
    assert levers.tendency(persona(claims_tasks=0.9), "talkativeness") == 0.5
    assert levers.tendency(persona(talkativeness=1.7), "talkativeness") == 1.0
    assert levers.tendency(persona(talkativeness=-1), "talkativeness") == 0.0


# --------------------------------------------------------------------------- cadence


@pytest.mark.parametrize(
    ("talk", "zone", "expected"),
    [
        (0.0, "green", 2.0),
        (0.5, "green", 1.0),  # the spec's own delays
        (1.0, "green", 0.5),
        (0.95, "green", 2**-0.9),  # chatterbox: 0.536
        (0.2, "green", 2**0.6),  # shy introvert: 1.516
        (0.5, "yellow", 1.25),
        (0.5, "red", 2.0),
        (1.0, "red", 1.0),
        (0.0, "red", 4.0),
        (2.0, "green", 0.5),  # bounded: never faster than half the spec's delays
        (-1.0, "green", 2.0),  # ... nor slower than twice, before the zone
    ],
)
def test_pace_by_talkativeness_and_zone(talk: float, zone: str, expected: float) -> None:
    assert levers.pace(talk, zone) == pytest.approx(expected)


def test_red_looks_at_least_one_and_a_half_times_as_far_apart_as_green_at_any_talkativeness() -> None:
    for talk in (0.0, 0.2, 0.5, 0.95, 1.0):
        assert levers.pace(talk, "red") >= 1.5 * levers.pace(talk, "green")
        assert levers.pace(talk, "green") < levers.pace(talk, "yellow") < levers.pace(talk, "red")


def test_look_timers_scale_the_look_and_nudge_bounds_only() -> None:
    base = TimerConfig()
    slow = levers.look_timers(base, 2.0)
    assert (slow.min_s, slow.max_s, slow.nudge_min_s, slow.nudge_max_s) == (20.0, 600.0, 20.0, 600.0)
    assert (slow.mention_min_s, slow.mention_max_s) == (base.mention_min_s, base.mention_max_s)
    assert (slow.typing_min_s, slow.idle_casual_after_s) == (base.typing_min_s, base.idle_casual_after_s)
    assert levers.look_timers(base, 1.0) == base


@pytest.mark.parametrize(
    ("talk", "zone", "expected"),
    [
        (0.5, "green", 0.15),
        (0.95, "green", 0.285),
        (0.2, "yellow", 0.06),
        (0.95, "red", 0.0),  # a red-zone employee takes no idle casual thinks
        (0.0, "green", 0.0),
    ],
)
def test_idle_chance(talk: float, zone: str, expected: float) -> None:
    assert levers.idle_chance(talk, zone, 0.15) == pytest.approx(expected)


def test_idle_chance_is_at_most_certain_and_neutral_levers_keep_red_idle_thinks() -> None:
    assert levers.idle_chance(1.0, "green", 0.8) == 1.0
    assert levers.idle_chance(0.5, "red", 0.15, NEUTRAL) == pytest.approx(0.15)


# --------------------------------------------------------------------------- speech


@pytest.mark.parametrize(
    ("talk", "expected"),
    [(0.0, 2.0), (0.5, 1.0), (1.0, 0.5), (0.95, 2**-0.9), (0.2, 2**0.6), (0.75, 2**-0.5)],
)
def test_speech_factor(talk: float, expected: float) -> None:
    assert levers.speech_factor(talk) == pytest.approx(expected)


def test_person_gates_scale_cooldowns_and_windows_not_counts_or_saturation() -> None:
    base = GateConfig()
    chatty = levers.person_gates(base, 0.5)
    assert chatty.work.cooldown_s == pytest.approx(30.0) and chatty.work.window_s == pytest.approx(150.0)
    assert chatty.dm.cooldown_s == pytest.approx(10.0) and chatty.boss.window_s == pytest.approx(150.0)
    assert chatty.work.max_posts == base.work.max_posts
    assert chatty.saturation_silence_at == base.saturation_silence_at
    shy = levers.person_gates(base, 2.0)
    assert shy.casual.window_s == pytest.approx(1200.0) and shy.casual.cooldown_s == pytest.approx(60.0)
    assert levers.person_gates(base, 1.0) == base


@pytest.mark.parametrize(
    ("bias", "threshold"),
    [
        (0.0, 1),
        (0.07, 1),  # 0.49 rounds down: nothing is held
        (0.0715, 2),  # 0.5005 rounds up
        (0.05, 1),  # chatterbox
        (0.25, 3),  # warm-hearted
        (0.5, 5),  # old hand
        (0.75, 6),  # shy introvert
        (0.9, 7),  # zen slacker: only "my domain" and up is said
        (1.0, 8),
    ],
)
def test_silence_threshold(bias: float, threshold: int) -> None:
    assert levers.silence_threshold(bias) == threshold


def test_a_draft_under_the_threshold_is_held_unless_addressed() -> None:
    assert levers.holds_silence(5, 6, addressed=False)
    assert not levers.holds_silence(6, 6, addressed=False)  # at the threshold it is said
    assert not levers.holds_silence(5, 6, addressed=True)  # asked: answered
    assert not levers.holds_silence(1, levers.silence_threshold(0.9, NEUTRAL), addressed=False)


# --------------------------------------------------------------------------- tasks


@pytest.mark.parametrize(
    ("keen", "dibs"), [(1.0, 0.0), (0.95, 12.0), (0.5, 120.0), (0.1, 216.0), (0.0, 240.0)]
)
def test_dibs_after(keen: float, dibs: float) -> None:
    assert levers.dibs_after(keen) == pytest.approx(dibs)
    assert levers.dibs_after(keen, NEUTRAL) == 0.0


def test_claim_delay_puts_the_keen_first_whatever_the_draw() -> None:
    timers = TimerConfig()
    keenest = max(levers.claim_delay(0.95, random.Random(s), timers) for s in range(200))
    next_keen = min(levers.claim_delay(0.7, random.Random(s), timers) for s in range(200))
    assert keenest < next_keen  # 0.05 x 240 + 5 = 17 < 0.3 x 240 + 1 = 73
    assert 1.0 <= levers.claim_delay(1.0, random.Random(1), timers) <= 5.0
    assert levers.claim_delay(0.0, random.Random(1), timers) >= 241.0
    rng, same = random.Random(3), random.Random(3)
    levers.claim_delay(0.5, rng, timers)
    same.random()
    assert rng.getstate() == same.getstate()  # one draw


# --------------------------------------------------------------------------- relationships


@pytest.mark.parametrize(
    ("affinity", "weight"), [(1, 0.51), (20, 0.7), (50, 1.0), (80, 1.3), (100, 1.5), (150, 1.5)]
)
def test_pull_of_an_unread_message(affinity: float, weight: float) -> None:
    assert levers.pull(affinity) == pytest.approx(weight)
    assert levers.pull(affinity, NEUTRAL) == 1.0


@pytest.mark.parametrize(("affinity", "factor"), [(1, 1.49), (50, 1.0), (100, 0.5), (-5, 1.49)])
def test_dm_reply_factor(affinity: float, factor: float) -> None:
    assert levers.dm_reply_factor(affinity) == pytest.approx(factor)
    assert levers.dm_reply_factor(affinity, NEUTRAL) == 1.0


@pytest.mark.parametrize(
    ("a_of_b", "b_of_a", "is_strained"),
    [(19.9, 80, True), (80, 19, True), (20, 20, False), (50, 50, False), (20, 19.99, True)],
)
def test_a_strained_pair_is_one_where_either_rates_the_other_under_20(
    a_of_b: float, b_of_a: float, is_strained: bool
) -> None:
    assert levers.strained(a_of_b, b_of_a) is is_strained
    assert not levers.strained(1, 1, NEUTRAL)


def test_neutral_levers_change_nothing() -> None:
    assert levers.pace(0.0, "red", NEUTRAL) == 1.0
    assert levers.speech_factor(1.0, NEUTRAL) == 1.0
    assert levers.claim_delay(0.0, random.Random(1), TimerConfig(), NEUTRAL) <= 5.0
    assert DEFAULT_LEVERS != NEUTRAL


def test_the_archetype_table_in_docs_mind_md_is_what_the_levers_give() -> None:
    from pathlib import Path

    from ideaco.persona import ARCHETYPES, load_archetype

    doc = (Path(__file__).resolve().parents[3] / "docs" / "mind.md").read_text(encoding="utf-8")
    rows = {
        line.split(" | ")[0].removeprefix("| "): line for line in doc.splitlines() if line.startswith("| ")
    }
    for archetype in ARCHETYPES:
        t = load_archetype(archetype).tendencies
        cells = [
            archetype,
            f"{t.talkativeness:g}",
            f"{levers.pace(t.talkativeness, 'green'):.2f}",
            f"{levers.idle_chance(t.talkativeness, 'green', 0.15) * 100:.1f}%",
            f"{t.silence_bias:g}",
            f"{levers.silence_threshold(t.silence_bias)}",
            f"{t.claims_tasks:g}",
            f"{levers.dibs_after(t.claims_tasks):.0f} s",
        ]
        assert rows[archetype].startswith("| " + " | ".join(cells) + " |"), archetype
