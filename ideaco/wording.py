"""What makes two texts the same words, defined once: the loop breaker refuses a duplicate by it, the
`duplicate_rate` metric counts duplicates by it (issue 21), and a memory that says what another
says updates it (`mind/memory.py`)."""

from __future__ import annotations

import functools

import regex

# Letters and digits of any script, each with the marks that combine with it (a Devanagari vowel
# sign stays in its word); an apostrophe inside a word is kept. A mark after no letter (an emoji's
# variation selector) is no word.
_WORD = regex.compile(r"(?:[\p{L}\p{N}]\p{M}*)+(?:['’](?:[\p{L}\p{N}]\p{M}*)+)*")


def words(text: str) -> list[str]:
    """The words of a text, lower-cased (letters and digits with their marks; an apostrophe inside
    a word is kept)."""
    return _WORD.findall(text.lower())


@functools.lru_cache(maxsize=8192)  # a memory's add compares with every memory held, most unchanged
def normalise(text: str) -> str:
    """Lower case, punctuation gone, single spaces: two texts equal here are duplicates. A text with
    no word (an emoji, a "?") is itself, spaces collapsed: "👍" is not "🎉"."""
    return " ".join(words(text)) or " ".join(text.split()).casefold()
