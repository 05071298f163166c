"""What a character is, in any script, by its Unicode category (the `regex` package's `\\p{..}`).

The text rules judge letters, marks, digits, punctuation and symbols this way, never by ASCII
classes: a Hindi vowel sign is part of its word, `，。！？、（）` are punctuation, `。！？` end a
sentence, a one-character Chinese or Korean reply is a word, and a syllable repeated (`哈哈哈`) is
laughter as `haha` is.
"""

from __future__ import annotations

import unicodedata

import regex

# A word: two letters or more in a row (with their combining marks: `ครับ`), one letter with its
# marks (`हाँ`: a syllable), a letter and its number (`v1`, `Q3`, `x86`), or one ideograph, kana or
# Hangul syllable (`好`, `네`): those scripts write a whole word in one.
WORD = regex.compile(
    r"\p{L}\p{M}*(?:\p{L}\p{M}*)+|\p{L}\p{M}+|\p{L}\p{N}+|[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}]"
)
# Letters whose one character is a syllable or a word: five in a row are laughter or emphasis
# (`哈哈哈哈哈`, `ㅋㅋㅋㅋㅋ`), as `hahahaha` is, never a letter stuck in a run.
SYLLABIC = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Hangul}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}]")
# Where a sentence ends, in any script: `. ! ? …` before a space or the end (after closing quotes
# or brackets), and the ends that need no space after them: `。！？` (Chinese, Japanese), the
# half-width `｡`, the Devanagari danda `। ॥`, the Arabic `؟` and `۔`.
SENTENCE_END = regex.compile(
    r"[.!?…](?=[\"')\]»”’」』）]*\s|[\"')\]»”’」』）]*$)|[。！？｡।॥؟۔][\"')\]»”’」』）]*"
)
# Characters no one reads: controls (but tab and newline), format characters that reorder or hide
# text (the bidi embeddings, overrides and isolates), and the unassigned or private-use ones.
BIDI = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c")
_INVISIBLE = regex.compile(r"[\p{Cc}\p{Co}\p{Cn}\p{Cs}]")


def has_word(text: str) -> bool:
    return WORD.search(text) is not None


def word_count(text: str) -> int:
    return len(WORD.findall(text))


def emoji(c: str) -> bool:
    """An emoji's parts: the pictograph, a variation selector, a skin tone, the joiner, a keycap."""
    return (
        unicodedata.category(c) == "So"
        or 0xFE00 <= ord(c) <= 0xFE0F
        or 0x1F3FB <= ord(c) <= 0x1F3FF
        or ord(c) in (0x200D, 0x20E3)
    )


def only_emoji(text: str, most: int = 8) -> bool:
    chars = [c for c in text if not c.isspace()]
    return 0 < len(chars) <= most and all(emoji(c) for c in chars)


# Emoticons people type (`:)`, `;-)`, `xD`, `^^`, `T_T`, `<3`, `¯\_(ツ)_/¯`): a reply, and no symbols.
EMOTICON = regex.compile(
    r"(?<![\p{L}\p{N}])(?:[:;=8][-'^o]?[)(\]\[DPpO3/|*]|[xX][dD]|\^[_.-]?\^|[Tt]_[Tt]|-_-|<3|\\o/"
    r"|¯\\_\(ツ\)_/¯)(?![\p{L}\p{N}])"
)
# A reply of no word that people send: one letter (`k`), sentence punctuation alone (`?`, `...`,
# `？！`), emoticons, Thai laughter (`555`); not other digits or brackets (`18-09:56A`, `}]{[`).
_BARE_REPLY = regex.compile(r"\s*(?:\p{L}|[.!?…。！？]{1,3}|5{3,}\+?)\s*")


def bare_reply(text: str) -> bool:
    if EMOTICON.search(text):
        text = EMOTICON.sub("", text)
        if not text.strip():
            return True
    return _BARE_REPLY.fullmatch(text) is not None


# ASCII characters that are prose punctuation; any other ASCII one that is no letter or digit is a
# symbol (`# $ % ^ & * @ { } < > | \\ ~ = + _`). Outside ASCII, a symbol is a character of category S
# that is no emoji: the punctuation of other scripts (`，。、「」«»¿¡।`) is prose.
PROSE_ASCII = frozenset(".,!?'\"-:;()/")


def symbol(c: str) -> bool:
    if c.isascii():
        return not c.isalnum() and not c.isspace() and c not in PROSE_ASCII
    return unicodedata.category(c).startswith("S") and not emoji(c)


def count_symbols(text: str) -> int:
    """How many of the text's characters are symbols (`symbol`)."""
    return sum(1 for c in text if symbol(c))


def unreadable(text: str) -> str | None:
    """The first character no one reads (a control, a bidi override, a private-use code), named."""
    for c in text:
        if c in BIDI or (_INVISIBLE.match(c) and c not in "\t\n\r"):
            return f"U+{ord(c):04X}"
    return None
