"""Characters judged by Unicode category (office/rules/text/script.py), in several scripts."""

from __future__ import annotations

import pytest

from ideaco.office.rules.text import script
from ideaco.office.rules.text.hygiene import finish


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("好", True),  # one ideograph is a word
        ("네", True),  # one Hangul syllable
        ("は", True),
        ("ok", True),
        ("हाँ", True),  # a letter and its vowel sign and nasal mark
        ("ครับ", True),
        ("да", True),
        ("k", False),  # one Latin letter is no word
        ("5", False),
        ("18-09:56A", False),
        ("}]{[", False),
        ("ा", False),  # a vowel sign alone
    ],
)
def test_a_word_in_any_script(text: str, word: bool) -> None:
    assert script.has_word(text) is word


@pytest.mark.parametrize(
    ("c", "is_symbol"),
    [
        ("，", False),
        ("。", False),
        ("！", False),
        ("、", False),
        ("（", False),
        ("「", False),
        ("।", False),
        ("؟", False),
        ("«", False),
        ("¿", False),
        ("ा", False),  # a Devanagari vowel sign is part of its word
        ("👍", False),  # an emoji is no symbol
        (".", False),
        ("/", False),
        ("$", True),
        ("#", True),
        ("{", True),
        ("€", True),
        ("→", True),
        ("～", True),
    ],
)
def test_punctuation_of_every_script_is_prose_and_symbols_are_symbols(c: str, is_symbol: bool) -> None:
    assert script.symbol(c) is is_symbol


@pytest.mark.parametrize(
    ("text", "hidden"),
    [
        ("plain text", None),
        ("tab\tand\nnewline", None),
        ("👨\u200d👩\u200d👧 family", None),  # the zero-width joiner of an emoji
        ("مرحبا بالعالم", None),  # right-to-left text needs no control
        ("abc\u202edcba", "U+202E"),  # a right-to-left override
        ("abc\u2066x\u2069", "U+2066"),  # an isolate
        ("bell\x07", "U+0007"),
        ("private \ue000 use", "U+E000"),
    ],
)
def test_characters_no_one_reads(text: str, hidden: str | None) -> None:
    assert script.unreadable(text) == hidden


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("第一句话。第二句话还没有写完", "第一句话。"),  # 。 needs no space after it
        ("好的！那就这样定了？然后我们", "好的！那就这样定了？"),
        ("पहला वाक्य। दूसरा अधूरा", "पहला वाक्य।"),  # the danda
        ("هل انتهيت؟ ثم", "هل انتهيت؟"),
        ("「了解です。」それから", "「了解です。」"),  # the closing bracket goes with its sentence
        ("First one. Second one is cu", "First one."),
        ("Version 2.4.1 is out and", None),  # a dot inside a number ends nothing
        ("没有句号的一句话没有写完", None),
    ],
)
def test_sentence_ends_in_every_script(text: str, kept: str | None) -> None:
    assert finish(text, len(text)) == kept


def test_a_long_chinese_draft_is_cut_back_to_its_last_sentence_not_refused() -> None:
    draft = ("我们今天完成了同步模块的测试，发现了三个问题。" * 12)[:239] + "然"
    assert len(draft) == 240
    kept = finish(draft, 240)
    assert kept is not None and kept.endswith("。") and len(kept) < 240
