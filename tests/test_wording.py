"""What makes two texts the same words (`ideaco/wording.py`), in several scripts, both sides (issue
37, item 11: its own tests killed 6 of 12 mutants)."""

from __future__ import annotations

import pytest

from ideaco.wording import normalise, words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ship it, NOW!", ["ship", "it", "now"]),
        ("It's Bob’s turn", ["it's", "bob’s", "turn"]),  # an apostrophe inside a word is kept
        ("'quoted'", ["quoted"]),  # not at its edges
        ("v2.0 release", ["v2", "0", "release"]),
        ("नमस्ते दुनिया", ["नमस्ते", "दुनिया"]),  # vowel signs and virama stay in their word
        ("สวัสดีครับ", ["สวัสดีครับ"]),
        ("Привет, МИР", ["привет", "мир"]),
        ("好的，收到！", ["好的", "收到"]),
        ("👍🏽 ok", ["ok"]),  # an emoji and its modifier are no word
        ("\u0301e", ["e"]),  # a mark after no letter is no word
    ],
)
def test_words_are_letters_and_digits_of_any_script_with_their_marks(text: str, expected: list[str]) -> None:
    assert words(text) == expected


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Done!", "done"),
        ("  LGTM,   ship   it ", "lgtm ship it"),
        ("好的，收到！", "好的 收到"),
        ("Café", "CAFÉ"),
    ],
)
def test_texts_with_the_same_words_are_the_same(a: str, b: str) -> None:
    assert normalise(a) == normalise(b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("👍", "🎉"),  # no word: each is itself
        ("ship it", "ship it now"),
        ("it's", "its"),
        ("好的", "好"),
    ],
)
def test_different_words_are_different(a: str, b: str) -> None:
    assert normalise(a) != normalise(b)


def test_a_text_without_words_keeps_its_characters_spaces_collapsed() -> None:
    assert normalise("  👍   👍 ") == "👍 👍"
    assert normalise("?!") == "?!"
    assert normalise("ÅÅ") == normalise("åå") == "åå"
