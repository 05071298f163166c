"""What agent messages say, as numbers: duplicates, near-duplicates, echo, words (docs/evaluation.md).

Pure functions over message records (`{at, conversation, sender, text}`), compared within one
conversation (and, for duplicates, with the sender's own messages in other rooms), in the order the
messages were posted.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable, Sequence
from typing import Any

from ideaco.wording import normalise, words  # the metrics' words are the loop breaker's

WINDOW = 50  # earlier agent messages of the conversation a message is compared with
NEAR = 0.5  # Jaccard similarity of character 4-grams at or above which two texts are near-duplicates
CHAR_N = 4
WORD_N = 3  # echo: word 3-grams


def char_grams(text: str, n: int = CHAR_N) -> frozenset[str]:
    """The character n-grams of a normalised text (the text itself when shorter than n)."""
    if len(text) <= n:
        return frozenset([text]) if text else frozenset()
    return frozenset(text[i : i + n] for i in range(len(text) - n + 1))


def word_grams(tokens: Sequence[str], n: int = WORD_N) -> set[tuple[str, ...]]:
    return {tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1)}


def jaccard(a: frozenset[str] | set[Any], b: frozenset[str] | set[Any]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


def repetition(messages: Iterable[dict[str, Any]], agents: set[str]) -> dict[str, Any]:
    """Duplicate, near-duplicate and echo rates of the agents' messages, and their words.

    - duplicate: its normalised text equals one of the WINDOW earlier agent messages of the conversation,
      or one of the sender's own WINDOW earlier messages in another room (a cross-room copy, which
      the loop breaker refuses too);
    - near-duplicate: not a duplicate, and its character 4-grams have a Jaccard similarity >= NEAR
      with one of those;
    - echo: the share of its word 3-grams already said by someone else (the boss included) earlier
      in the conversation (messages of three words or more).
    """
    earlier: dict[str, list[tuple[str, frozenset[str]]]] = {}
    own: dict[str, list[tuple[str, str]]] = {}  # sender -> (room, normalised text) of their last WINDOW
    said: dict[str, dict[tuple[str, ...], set[str]]] = {}  # conversation -> 3-gram -> who said it
    count = duplicates = near = 0
    echoes: list[float] = []
    lengths: list[int] = []
    for m in messages:
        conv, sender, tokens = m["conversation"], m["sender"], words(m.get("text") or "")
        grams = word_grams(tokens)
        seen = said.setdefault(conv, {})
        if sender in agents:
            count += 1
            lengths.append(len(tokens))
            text = normalise(m.get("text") or "")  # what the loop breaker compares
            shingles = char_grams(text)
            window = earlier.setdefault(conv, [])
            mine = own.setdefault(sender, [])
            if any(text == other for other, _ in window) or any(text == other for _, other in mine):
                duplicates += 1
            elif any(jaccard(shingles, other) >= NEAR for _, other in window):
                near += 1
            window.append((text, shingles))
            del window[:-WINDOW]
            mine.append((conv, text))
            del mine[:-WINDOW]
            if grams:
                echoes.append(sum(1 for g in grams if seen.get(g, set()) - {sender}) / len(grams))
        for g in grams:
            seen.setdefault(g, set()).add(sender)
    return {
        "agent_messages": count,
        "duplicates": duplicates,
        "near_duplicates": near,
        "duplicate_rate": _rate(duplicates, count),
        "near_duplicate_rate": _rate(near, count),
        "echo": round(statistics.fmean(echoes), 4) if echoes else None,
        "words_per_message": {
            "mean": round(statistics.fmean(lengths), 2) if lengths else None,
            "median": statistics.median(lengths) if lengths else None,
        },
    }


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None
