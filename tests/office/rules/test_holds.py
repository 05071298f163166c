"""Holds (issue 13): which boss lines are orders, and the one note a released employee reads."""

from __future__ import annotations

import pytest

from ideaco.office.rules.holds import CONTINUE, STOP, Arrived, Order, batch_note, boss_order, order_text

WORDS = ["Alice", "alice", "Mary Ann", "mary"]


@pytest.mark.parametrize(
    ("text", "order"),
    [
        ("@Alice stop", Order(STOP)),
        ("@alice stop: too chatty", Order(STOP, "too chatty")),
        ("@Alice, stop.", Order(STOP)),
        ("@Mary Ann stop - quiet please", Order(STOP, "quiet please")),
        ("@Alice @Mary Ann stop", Order(STOP)),
        ("@all stop!", Order(STOP)),
        ("@Alice STOP!!! now", Order(STOP, "now")),
        ("@Alice continue", Order(CONTINUE)),
        ("@Alice continue, thanks", Order(CONTINUE)),
        ("@Alice continue!", Order(CONTINUE)),
        # Sentences, not orders:
        ("@Alice stop worrying about the deadline", None),
        ("@Alice continue with the plan", None),
        ("hey @Alice stop", None),
        ("@Alicex stop", None),
        ("@Alice", None),
        ("stop", None),
        ("@Bob stop", None),  # Bob is not among the named
    ],
)
def test_a_boss_order_is_the_whole_message(text: str, order: Order | None) -> None:
    assert boss_order(text, WORDS) == order


def test_a_reason_is_bounded() -> None:
    order = boss_order("@Alice stop: " + "x" * 500, WORDS)
    assert order is not None and len(order.reason) == 200


def test_order_text_round_trips() -> None:
    assert boss_order(order_text("Alice", STOP, "too chatty"), WORDS) == Order(STOP, "too chatty")
    assert boss_order(order_text("Mary Ann", STOP), WORDS) == Order(STOP)
    assert boss_order(order_text("Alice", CONTINUE), WORDS) == Order(CONTINUE)


def test_the_batch_note_names_what_arrived_while_held() -> None:
    note = batch_note(
        [
            Arrived("API design", "work", ("Bob", "the boss"), 2, from_boss=True),
            Arrived("Alice & Carol", "dm", ("Carol",), 1),
            Arrived("Boss and Alice", "boss", ("the boss",), 3, from_boss=True),
        ],
        "09:10",
    )
    assert note.startswith("You were on hold since 09:10. While you were away: ")
    assert "Bob, the boss mentioned you in API design (2 messages)" in note
    assert "Carol wrote to you privately;" in note
    assert "the boss wrote to you in your boss chat (3 messages)" in note


def test_the_batch_note_says_when_nothing_came() -> None:
    assert batch_note([], "09:10") == "You were on hold since 09:10; nothing was addressed to you meanwhile."
