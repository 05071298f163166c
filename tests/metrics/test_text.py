"""Repetition metrics (docs/evaluation.md): duplicates, near-duplicates, echo and words per message."""

from __future__ import annotations

from ideaco.metrics.text import char_grams, jaccard, normalise, repetition, words

AGENTS = {"ana", "ben"}


def msg(sender: str, text: str, conv: str = "room") -> dict:
    return {"sender": sender, "text": text, "conversation": conv, "at": "2026-01-05T09:00:00"}


def test_words_and_normal_form() -> None:
    assert words("Ship it, Ben! Don't wait… 2 days?") == ["ship", "it", "ben", "don't", "wait", "2", "days"]
    assert normalise("  On it,   BOSS. ") == "on it boss"


def test_jaccard_of_character_grams() -> None:
    assert jaccard(char_grams("on it boss ana"), char_grams("on it boss ana")) == 1.0
    assert 0.5 <= jaccard(char_grams("on it boss ana"), char_grams("on it boss dov")) < 1.0
    assert jaccard(char_grams("rest"), char_grams("graphql")) == 0.0
    assert char_grams("ok") == frozenset({"ok"}) and char_grams("") == frozenset()


def test_a_duplicate_is_the_same_words_in_the_room_or_ones_own_elsewhere() -> None:
    out = repetition(
        [
            msg("ana", "On it, boss."),
            msg("ben", "on it boss"),  # the same words: a duplicate, whoever says it
            msg("ana", "On it, boss.", conv="other"),  # her own words copied to another room: a duplicate
            msg("ben", "Ready when you are.", conv="other"),
            msg("ana", "ready when you are", conv="third"),  # someone else's words elsewhere: not compared
            msg("boss", "On it, boss."),  # the boss's lines are not counted
        ],
        AGENTS,
    )
    assert (out["agent_messages"], out["duplicates"], out["near_duplicates"]) == (5, 2, 0)
    assert out["duplicate_rate"] == round(2 / 5, 4)


def test_a_near_duplicate_shares_most_of_its_character_grams() -> None:
    out = repetition([msg("ana", "On it, boss. (Ana)"), msg("ben", "On it, boss. (Ben)")], AGENTS)
    assert (out["duplicates"], out["near_duplicates"]) == (0, 1)
    out = repetition([msg("ana", "REST, versioned endpoints."), msg("ben", "Lunch at noon?")], AGENTS)
    assert (out["duplicates"], out["near_duplicates"], out["near_duplicate_rate"]) == (0, 0, 0.0)


def test_echo_is_the_share_of_word_trigrams_someone_else_said_before() -> None:
    out = repetition(
        [
            msg("boss", "we ship on friday"),
            msg("ana", "yes we ship on friday for sure"),  # 5 trigrams, 2 of them the boss's
            msg("ana", "yes we ship again"),  # her own earlier words are not an echo
        ],
        AGENTS,
    )
    assert out["echo"] == round((2 / 5 + 0 / 2) / 2, 4)


def test_words_per_message_and_an_empty_run() -> None:
    out = repetition([msg("ana", "one two three"), msg("ben", "one")], AGENTS)
    assert out["words_per_message"] == {"mean": 2.0, "median": 2.0}
    empty = repetition([], AGENTS)
    assert empty["duplicate_rate"] is None and empty["echo"] is None
    assert empty["words_per_message"] == {"mean": None, "median": None}
