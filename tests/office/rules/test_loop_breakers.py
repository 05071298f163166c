"""Spec 2.3: duplicate, ring, pair streak, unanswered ceiling and superseded thoughts."""

from __future__ import annotations

import pytest

from ideaco.metrics.text import normalise as metric_normalise
from ideaco.office.rules import (
    LoopVerdict,
    RingVerdict,
    check_duplicate,
    check_ring,
    closes_ring,
    is_closed,
    loop_breakers,
    may_rethink,
    pair_streak,
    thought_superseded,
    unanswered_ceiling_reached,
)
from tests.office.rules.helpers import T0, US, History, secs


def build(*senders: str, start=T0, step: float = 1.0) -> History:
    h = History()
    for i, sender in enumerate(senders):
        h.post(sender, start + secs(i * step))
    return h


# --- duplicate -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("age", "sender", "text", "allowed"),
    [
        (secs(60), "alice", "Ship it.", True),  # exactly 60 s: left the window
        (secs(60) - US, "alice", "Ship it.", False),
        (secs(59.999), "alice", "Ship it.", False),
        (secs(0), "alice", "  ship   IT. ", False),  # case and spacing aside
        (secs(0), "alice", "Ship it!", False),  # punctuation aside (the metric's normalise, issue 21)
        (secs(0), "alice", "Ship it now.", True),  # different words
        (secs(0), "bob", "Ship it.", True),  # different sender
    ],
)
def test_duplicate_window_and_matching(history: History, age, sender, text, allowed) -> None:
    history.post("alice", T0 - age, "Ship it.")
    verdict = check_duplicate(history.messages, sender, text, T0)
    assert verdict.allowed is allowed
    assert verdict.reason == (None if allowed else "duplicate")
    if not allowed:
        assert "alice" in verdict.detail


def test_duplicate_sees_past_newer_messages(history: History) -> None:
    history.post("alice", T0 - secs(30), "Ship it.")
    history.post("bob", T0 - secs(20), "ok")
    history.post("alice", T0 - secs(10), "another thing")
    assert check_duplicate(history.messages, "alice", "ship it.", T0).reason == "duplicate"


@pytest.mark.parametrize(
    ("sender", "age", "text", "allowed"),
    [
        ("alice", 10, "  ship IT. ", False),  # her own words in another room, within the window
        ("alice", 70, "Ship it.", True),  # past the window
        ("bob", 10, "Ship it.", True),  # someone else's words elsewhere are not her duplicate
        ("alice", 10, "Ship it now.", True),  # other words
    ],
)
def test_duplicate_across_rooms(history: History, sender, age, text, allowed) -> None:
    other = History()
    other.post("alice", T0 - secs(age), "Ship it.")
    verdict = check_duplicate(history.messages, sender, text, T0, elsewhere=other.messages)
    assert verdict.allowed is allowed
    if not allowed:
        assert verdict.reason == "duplicate" and "already posted this text in api-design" in verdict.detail


# --- ring ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("senders", "candidate", "ring"),
    [
        (["a", "b", "c"], "a", True),
        (["x", "a", "b", "c"], "a", True),
        (["a", "b", "a"], "b", False),  # X,Y,X,Y: two speakers are not a ring
        (["a", "b", "a"], "a", False),
        (["a", "b", "b"], "a", False),
        (["b", "c"], "a", False),
        (["a", "b", "c"], "d", False),
        ([], "a", False),
    ],
)
def test_closes_ring_table(senders, candidate, ring) -> None:
    assert closes_ring(senders, candidate) is ring


@pytest.mark.parametrize(("first_age", "refused"), [(secs(120), False), (secs(120) - US, True)])
def test_ring_membership_window(history: History, first_age, refused) -> None:
    history.post("alice", T0 - first_age)
    history.post("bob", T0 - secs(60))
    history.post("charlie", T0 - secs(30))
    verdict = check_ring(history.messages, "alice", T0)
    if refused:
        assert verdict.reason == "ring" and not verdict.allowed
        assert verdict.closed_until == T0 + secs(300)
        assert "alice,bob,charlie,alice" in verdict.detail
    else:
        assert verdict == RingVerdict(True)


def test_boss_message_resets_the_ring() -> None:
    assert not check_ring(build("alice", "bob", "charlie").messages, "alice", T0 + secs(5)).allowed
    for senders in [("alice", "bob", "boss", "charlie"), ("alice", "boss", "bob", "charlie")]:
        assert check_ring(build(*senders).messages, "alice", T0 + secs(5)).allowed, senders


def test_system_messages_neither_count_nor_reset() -> None:
    h = build("alice", "system", "bob", "charlie")
    assert check_ring(h.messages, "alice", T0 + secs(5)).reason == "ring"


@pytest.mark.parametrize(("now_offset", "closed"), [(-US, True), (secs(0), False)])
def test_closure_lasts_exactly_five_minutes(now_offset, closed) -> None:
    ring = check_ring(build("alice", "bob", "charlie").messages, "alice", T0 + secs(3))
    until = ring.closed_until
    assert until == T0 + secs(3) + secs(300)
    now = until + now_offset
    assert is_closed(until, now) is closed


def test_boss_always_posts_and_reopens() -> None:
    assert check_ring(build("alice", "bob", "charlie").messages, "boss", T0 + secs(5)) == RingVerdict(True)
    assert check_ring(build("alice", "bob", "charlie").messages, "boss", T0 + secs(5)).allowed
    assert not is_closed(None, T0)


# --- pair streak ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("senders", "expected"),
    [
        (("alice", "bob", "alice", "bob"), ("alice", "bob")),
        (("bob", "alice", "bob", "alice"), ("bob", "alice")),
        (("alice", "bob", "alice"), None),  # only 3
        (("alice", "bob", "alice", "alice"), None),
        (("alice", "bob", "bob", "alice"), None),
        (("alice", "bob", "charlie", "bob"), None),  # three speakers
        (("charlie", "alice", "bob", "alice", "bob"), ("alice", "bob")),
        (("alice", "bob", "alice", "bob", "alice"), ("alice", "bob")),  # starter of the whole run
        (("alice", "bob", "boss", "alice", "bob"), None),
        (("alice", "bob", "alice", "bob", "boss"), None),
        (("alice", "bob", "system", "alice", "bob"), None),
        (("system", "alice", "bob", "alice", "bob"), ("alice", "bob")),
        (("boss", "alice", "bob", "alice", "bob"), ("alice", "bob")),
    ],
)
def test_pair_streak_table(senders, expected) -> None:
    assert pair_streak(build(*senders).messages) == expected


@pytest.mark.parametrize(("reset_offset", "expected"), [(secs(0), None), (-US, ("alice", "bob"))])
def test_pair_streak_task_op_reset_edge(reset_offset, expected) -> None:
    h = build("alice", "bob", "alice", "bob")
    # A task op at the first message's time removes it from the streak; 1 µs earlier does not.
    assert pair_streak(h.messages, since_reset=T0 + reset_offset) == expected


# --- unanswered ceiling -----------------------------------------------------------------------


@pytest.mark.parametrize(("count", "reached"), [(9, False), (10, True), (11, True)])
def test_ceiling_at_ten(count, reached) -> None:
    senders = [("alice", "bob", "charlie")[i % 3] for i in range(count)]
    assert unanswered_ceiling_reached(build("boss", *senders).messages) is reached


def test_ceiling_counts_since_boss_and_reset_and_only_agents() -> None:
    ten = ["alice", "bob"] * 5
    assert unanswered_ceiling_reached(build(*ten).messages)  # no boss ever: counts from the start
    assert not unanswered_ceiling_reached(build(*ten[:5], "boss", *ten[5:]).messages)
    assert not unanswered_ceiling_reached(build(*ten[:9], "system").messages)
    h = build(*ten)
    assert not unanswered_ceiling_reached(h.messages, since_reset=T0)  # first message not after
    assert unanswered_ceiling_reached(h.messages, since_reset=T0 - US)


# --- superseded thoughts ----------------------------------------------------------------------


def test_superseded_by_what_others_posted_meanwhile_not_by_ones_own() -> None:
    m = build("bob", "charlie", "alice", "alice", "bob").messages
    assert thought_superseded(m[2:], "alice") == (m[4],)
    assert thought_superseded(m[2:4], "alice") == ()
    assert thought_superseded([], "alice") == ()
    assert thought_superseded(m, "alice") == (m[0], m[1], m[4])


def test_at_most_one_rethink() -> None:
    assert may_rethink(0) and not may_rethink(1) and not may_rethink(2)
    assert may_rethink(1, max_rethinks=2)


# --- every rule from an empty state -----------------------------------------------------------


def test_every_rule_is_reachable_from_an_empty_state(history: History) -> None:
    """Start with nothing and post as the engine would, until each rule has refused once."""
    msgs = history.messages
    now = T0
    assert check_duplicate(msgs, "alice", "hi", now) == LoopVerdict(True)
    assert check_ring(msgs, "alice", now) == RingVerdict(True)
    assert pair_streak(msgs) is None and not unanswered_ceiling_reached(msgs)
    assert thought_superseded([], "alice") == ()

    history.post("alice", now, "REST, clearly.")
    read_upto = len(msgs)
    now += secs(10)
    assert check_duplicate(msgs, "alice", "rest, clearly.", now).reason == "duplicate"

    history.post("bob", now, "GraphQL.")
    assert thought_superseded(msgs[read_upto:], "alice") == (msgs[-1],)
    now += secs(10)
    history.post("alice", now, "REST is simpler.")
    now += secs(10)
    history.post("bob", now, "GraphQL is flexible.")
    assert pair_streak(msgs) == ("alice", "bob")

    now += secs(10)
    history.post("charlie", now, "Why not both?")
    assert check_ring(msgs, "bob", now + secs(10)).allowed  # alice,bob,charlie,bob is not X,Y,Z,X
    ring = check_ring(msgs, "alice", now + secs(10))
    assert ring.reason == "ring"
    assert is_closed(ring.closed_until, now + secs(20))  # the room stays closed to dave too

    for i in range(5):  # refused posts were not recorded; accepted ones keep coming
        now = ring.closed_until + secs(i)
        history.post(("dave", "erin")[i % 2], now)
    assert len([m for m in msgs if m.from_agent]) == 10
    assert unanswered_ceiling_reached(msgs)
    assert pair_streak(msgs) == ("dave", "erin")

    history.post("boss", now + secs(1), "Enough, decide by noon.")
    assert not unanswered_ceiling_reached(msgs) and pair_streak(msgs) is None
    assert check_ring(msgs, "boss", now + secs(1)).allowed


def test_the_ceiling_owes_one_escalation_a_stretch() -> None:
    from ideaco.office.rules import owes_escalation

    assert owes_escalation(None, None)  # never escalated
    assert owes_escalation(None, T0)
    assert not owes_escalation(T0, None)  # escalated, and no boss line or task op since
    assert not owes_escalation(T0, T0)  # the reset is no later than the escalation
    assert owes_escalation(T0, T0 + US)  # the boss wrote (or a task op happened) after it


def test_the_loop_breaker_and_the_metric_call_the_same_texts_duplicates() -> None:
    """Issue 21: the breaker ignored case and spacing only, the metric punctuation too."""
    assert loop_breakers.normalise is metric_normalise
    assert metric_normalise("Working on it.") == metric_normalise("working   on it!")
    assert metric_normalise("👍") != metric_normalise("🎉")
