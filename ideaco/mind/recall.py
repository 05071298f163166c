"""What an employee is shown of its memory in a prompt (spec 2.4): the items that matter most now.

Pure: handed `now` and the text being read. Scores importance, recency and relevance; the
prompt's block lists the chosen items with their ids, so the model can update or delete them.
"""

from __future__ import annotations

import math
import re
from datetime import datetime

from ideaco.mind.memory import DEFAULT_CONFIG, Memory, MemoryConfig, MemoryItem, _id_number

STOPWORDS = frozenset(
    "the and for are but not you your with this that was were have has had from they them their "
    "what when where which who will would can could should about into just than then there these "
    "those our out all any its also been did does how why she her his him one very".split()
)


def words(text: str) -> set[str]:
    """Content words: lowercased, at least 3 characters, not a stopword."""
    return {w for w in re.findall(r"\w+", text.casefold()) if len(w) >= 3 and w not in STOPWORDS}


def score(item: MemoryItem, now: datetime, read: set[str], half_life_days: float) -> float:
    """importance/10 + 0.5 ** (days since updated_at / half-life) + share of the item's words in `read`."""
    age_days = max(0.0, (now - item.updated_at).total_seconds() / 86400)
    recency = math.pow(0.5, age_days / half_life_days)
    own = words(item.content)
    relevance = len(own & read) / len(own) if own else 0.0
    return item.importance / 10 + recency + relevance


def recall(
    memory: Memory, now: datetime, text: str, cfg: MemoryConfig = DEFAULT_CONFIG
) -> tuple[list[MemoryItem], list[MemoryItem]]:
    """The long-term and short-term items that matter most now, best first.

    score = importance/10                       (0.1 .. 1)
          + 0.5 ** (age_days / half_life)       (recency on updated_at; half-life 7 days long-term,
                                                 1 day short-term)
          + |item words & text words| / |item words|   (relevance to what is being read; words are
                                                 lowercased, >= 3 chars, minus stopwords)
    Ties go to the lower id number. Expired items are never recalled.
    """
    read = words(text)

    def best(items: list[MemoryItem], half_life: float, limit: int) -> list[MemoryItem]:
        live = [m for m in items if not m.expired(now)]
        live.sort(key=lambda m: (-score(m, now, read, half_life), _id_number(m.id)))
        return live[:limit]

    return (
        best(memory.long_term, cfg.long_half_life_days, cfg.prompt_long),
        best(memory.short_term, cfg.short_half_life_days, cfg.prompt_short),
    )


def _line(item: MemoryItem, limit: int) -> str:
    content = " ".join(item.content.split())
    if len(content) > limit:
        content = content[: limit - 1] + "…"
    return f"[{item.id}] ({item.category}, {item.importance}) {content}"


MEMORIES_HEADING = "## Your memories (ids let you update or delete them)"


def memory_block(long: list[MemoryItem], short: list[MemoryItem], cfg: MemoryConfig = DEFAULT_CONFIG) -> str:
    """The prompt's memory section: one line per item, long-term then short-term; '' when empty."""
    if not long and not short:
        return ""
    lines = [MEMORIES_HEADING]
    if long:
        lines.append("Long-term:")
        lines += [_line(m, cfg.prompt_item_chars) for m in long]
    if short:
        lines.append("Short-term:")
        lines += [_line(m, cfg.prompt_item_chars) for m in short]
    return "\n".join(lines)
