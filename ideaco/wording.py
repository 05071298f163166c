"""What makes two texts the same words, defined once: the loop breaker refuses a duplicate by it and
the `duplicate_rate` metric counts duplicates by it (issue 21)."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def words(text: str) -> list[str]:
    """The words of a text, lower-cased (letters and digits; an apostrophe inside a word is kept)."""
    return _WORD.findall(text.lower())


def normalise(text: str) -> str:
    """Lower case, punctuation gone, single spaces: two texts equal here are duplicates. A text with
    no word (an emoji, a "?") is itself, spaces collapsed: "👍" is not "🎉"."""
    return " ".join(words(text)) or " ".join(text.split()).casefold()
