"""Stamina (spec 2.6): events, clamping, comfort, zones, recovery, escalation, notes, round trip."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest

from ideaco.mind.stamina import (
    EVENTS,
    HOUR,
    PER_HOUR,
    REFLECTION_QUESTIONS,
    Stamina,
    affinity_event,
    apply,
    comfort,
    counts,
    mark_active,
    may_claim,
    prompt_note,
    recover,
    review_rejected,
    should_escalate,
    zone,
)

T0 = datetime(2026, 1, 5, 9, 0, 0)
MID = Stamina(patience=50, fatigue=50, stress=50)


def values(st: Stamina) -> tuple[float, float, float]:
    return (st.patience, st.fatigue, st.stress)


def test_starts_rested():
    st = Stamina()
    assert values(st) == (100, 0, 0) and st.last_active_at is None
    assert zone(st) == "green"


def test_events_table_is_the_spec():
    assert EVENTS == {
        "llm_call": (0, 2, 0),
        "task_assigned": (10, 0, 0),
        "task_complete": (20, -15, -15),
        "task_fail": (-10, 10, 25),
        "chat_positive": (5, -3, -5),
        "chat_negative": (-8, 3, 10),
        "repetition": (-15, 10, 10),
        "review_passed": (15, -10, -20),
        "review_rejected_1": (-5, 5, 10),
        "review_rejected_2": (-15, 10, 20),
        "review_rejected_3": (-30, 15, 30),
    }


def test_a_rejection_stings_more_each_round():
    assert [review_rejected(n) for n in (1, 2, 3, 4, 9)] == [
        "review_rejected_1",
        "review_rejected_2",
        "review_rejected_3",
        "review_rejected_3",
        "review_rejected_3",
    ]


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        ("llm_call", (50, 52, 50)),
        ("task_assigned", (60, 50, 50)),
        ("task_complete", (70, 35, 35)),
        ("task_fail", (40, 60, 75)),
        ("chat_positive", (55, 47, 45)),
        ("chat_negative", (42, 53, 60)),
        ("repetition", (35, 60, 60)),
    ],
)
def test_each_event_applies_its_deltas_to_a_new_object(event, expected):
    after = apply(MID, event)
    assert values(after) == expected
    assert values(MID) == (50, 50, 50)  # frozen: the input is untouched


def test_unknown_event_is_an_error():
    with pytest.raises(ValueError, match="coffee"):
        apply(MID, "coffee")


def test_values_clamp_at_0_and_100():
    st = Stamina()
    st = apply(st, "task_complete")  # patience 120 -> 100, fatigue/stress -15 -> 0
    assert values(st) == (100, 0, 0)
    for _ in range(10):
        st = apply(st, "task_fail")
    assert values(st) == (0, 100, 100)
    assert Stamina(patience=-5, fatigue=130, stress=101).to_dict()["patience"] == 0
    assert values(Stamina(patience=-5, fatigue=130, stress=101)) == (0, 100, 100)


@pytest.mark.parametrize(
    ("patience", "fatigue", "stress", "expected"),
    [
        (100, 0, 0, 100),
        (100, 100, 0, 60),
        (100, 0, 100, 40),
        (100, 100, 100, 0),
        (50, 50, 50, 0),
        (80, 10, 20, 80 - 4 - 12),
        (90, 25, 25, 65),
        (10, 50, 50, 0),  # would be -40: clamped
        (0, 0, 0, 0),
    ],
)
def test_comfort_golden_table(patience, fatigue, stress, expected):
    assert comfort(Stamina(patience=patience, fatigue=fatigue, stress=stress)) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("patience", "expected"),
    [
        (100, "green"),
        (70.0001, "green"),
        (70, "yellow"),
        (55, "yellow"),
        (40, "yellow"),
        (39.9999, "red"),
        (0, "red"),
    ],
)
def test_zones_on_both_sides_of_40_and_70(patience, expected):
    assert zone(Stamina(patience=patience)) == expected


@pytest.mark.parametrize(("patience", "escalate"), [(29.99, True), (30, False), (0, True), (100, False)])
def test_escalates_under_30(patience, escalate):
    assert should_escalate(Stamina(patience=patience)) is escalate


@pytest.mark.parametrize(
    ("hours", "expected"),
    [
        (0, (50, 50, 50)),
        (0.5, (52.5, 47.5, 47.5)),
        (1, (55, 45, 45)),
        (3, (65, 35, 35)),
        (20, (100, 0, 0)),  # clamped
    ],
)
def test_recovery_per_idle_hour_pro_rata(hours, expected):
    st = Stamina(patience=50, fatigue=50, stress=50, last_active_at=T0)
    now = T0 + timedelta(hours=hours)
    after = recover(st, now)
    assert values(after) == pytest.approx(expected)
    assert after.last_active_at == now


def test_recovery_counts_from_the_last_activity_only_once():
    st = Stamina(patience=50, fatigue=50, stress=50, last_active_at=T0)
    once = recover(st, T0 + timedelta(hours=1))
    again = recover(once, T0 + timedelta(hours=1))
    assert values(again) == values(once)


def test_no_recovery_without_a_last_activity_or_with_the_clock_behind():
    fresh = recover(MID, T0)
    assert values(fresh) == (50, 50, 50) and fresh.last_active_at == T0
    st = Stamina(patience=50, last_active_at=T0)
    behind = recover(st, T0 - timedelta(hours=1))
    assert behind.patience == 50 and behind.last_active_at == T0


def test_mark_active_restarts_idle_time():
    st = mark_active(Stamina(patience=50, last_active_at=T0), T0 + timedelta(hours=2))
    assert st.patience == 50 and st.last_active_at == T0 + timedelta(hours=2)
    assert recover(st, T0 + timedelta(hours=3)).patience == 55


@pytest.mark.parametrize(
    ("change", "event"),
    [(6, "chat_positive"), (5, None), (0, None), (-5, None), (-6, "chat_negative"), (15, "chat_positive")],
)
def test_affinity_changes_over_5_are_chat_events(change, event):
    assert affinity_event(change) == event


def test_prompt_note_per_zone():
    assert prompt_note(Stamina()) == ""
    yellow = prompt_note(Stamina(patience=60))
    assert "tired" in yellow and "finishing tasks" in yellow
    assert not any(q in yellow for q in REFLECTION_QUESTIONS)
    red = prompt_note(Stamina(patience=20))
    assert REFLECTION_QUESTIONS == (
        "What have I been doing that is not working?",
        "Why?",
        "What completely different approach should I try?",
        "Should I escalate?",
    )
    for q in REFLECTION_QUESTIONS:
        assert q in red


@pytest.mark.parametrize(
    "st",
    [
        Stamina(),
        Stamina(
            patience=52.5, fatigue=47.123456789, stress=0.1, last_active_at=T0 + timedelta(microseconds=7)
        ),
    ],
)
def test_round_trip_through_json(st):
    d = st.to_dict()
    again = Stamina.from_dict(json.loads(json.dumps(d)))
    assert again == st
    assert again.to_dict() == d


def test_to_dict_shows_comfort_and_zone_that_from_dict_ignores():
    d = Stamina(patience=60, fatigue=10, stress=10).to_dict()
    assert d["comfort"] == pytest.approx(50) and d["zone"] == "yellow"
    d |= {"comfort": 99, "zone": "green"}
    st = Stamina.from_dict(d)
    assert comfort(st) == pytest.approx(50) and zone(st) == "yellow"


@pytest.mark.parametrize(("patience", "allowed"), [(40.0, True), (39.99, False), (100.0, True), (0.0, False)])
def test_only_the_red_zone_may_not_claim_more_work(patience: float, allowed: bool) -> None:
    assert may_claim(Stamina(patience=patience, fatigue=0.0, stress=0.0)) is allowed


# --- the hourly bounds (spec 2.6: chat_negative and repetition count at most twice an hour) --------


def test_the_hourly_bounds_are_the_spec() -> None:
    assert PER_HOUR == {"chat_negative": 2, "repetition": 2} and HOUR == timedelta(hours=1)


@pytest.mark.parametrize("event", ["chat_negative", "repetition"])
def test_an_hourly_event_counts_twice_then_not_until_the_first_leaves_the_hour(event: str) -> None:
    other = ({"chat_negative", "repetition"} - {event}).pop()  # bounded too: its count is its own
    st = apply(apply(MID, other, T0), other, T0)
    assert counts(st, event, T0) and not counts(st, other, T0)
    st = apply(apply(st, event, T0), event, T0 + timedelta(minutes=10))
    twice = st
    assert twice.patience == MID.patience + 2 * EVENTS[other][0] + 2 * EVENTS[event][0]
    for at, changes in [
        (T0 + timedelta(minutes=59, seconds=59), False),  # both still within the hour
        (T0 + timedelta(hours=1), True),  # at exactly an hour the first has left it
    ]:
        assert counts(twice, event, at) is changes
        after = apply(twice, event, at)
        assert (after.patience != twice.patience) is changes
        assert (after.fatigue != twice.fatigue) is changes
    # The window keeps only the hour before `now`, so a later event's count is its own.
    later = apply(twice, event, T0 + timedelta(hours=1))
    assert [e for e, _ in later.recent].count(event) == 2
    assert [e for e, _ in later.recent].count(other) == 0  # they left the hour with the first


def test_without_a_moment_every_event_counts_and_nothing_is_remembered() -> None:
    st = MID
    for _ in range(3):
        st = apply(st, "repetition")
    assert st.patience == MID.patience + 3 * EVENTS["repetition"][0] and st.recent == ()


def test_an_event_without_a_bound_always_counts_and_is_not_remembered() -> None:
    st = apply(apply(MID, "chat_positive", T0), "chat_positive", T0)
    assert st.recent == () and counts(st, "chat_positive", T0) and not counts(st, "no_such_event", T0)


def test_a_saved_stamina_without_recent_events_reads_as_none() -> None:
    d = MID.to_dict()
    d.pop("recent", None)
    assert Stamina.from_dict(d).recent == ()


def test_recovery_at_the_moment_of_the_last_activity_changes_nothing() -> None:
    st = mark_active(MID, T0)
    assert recover(st, T0) == st
