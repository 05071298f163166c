"""The text rules under their first name, kept while callers move to `office/rules/text/` (issue 36):
`check_text` is the strict policy (guarantees and small-model hygiene) on a draft, `debris` the
hygiene rules on the text alone (`rules/labels.py` reads it until its labels have their own rules).
"""

from __future__ import annotations

from ideaco.cycle import TextRule
from ideaco.mind.prompt import EngineText
from ideaco.office.rules.text import STRICT, TextVerdict, check, finish, name_ids, quoted_code, talks_code
from ideaco.office.rules.text.guarantees import SHINGLE, THOUGHT_OVERLAP, engine_runs, shingles
from ideaco.office.rules.text.hygiene import (
    ANSWER_WORDS,
    FIXED_SHINGLE,
    MAX_SYMBOLS,
    RUN,
    SIGNATURES,
    SLOT_WORDS,
    instruction_shingles,
)
from ideaco.office.rules.text.hygiene import debris as _debris
from ideaco.office.rules.text.script import SENTENCE_END

__all__ = [
    "ANSWER_WORDS",
    "FIXED_SHINGLE",
    "MAX_SYMBOLS",
    "RUN",
    "SENTENCE_END",
    "SHINGLE",
    "SIGNATURES",
    "SLOT_WORDS",
    "THOUGHT_OVERLAP",
    "TextRule",
    "TextVerdict",
    "check_text",
    "debris",
    "engine_runs",
    "finish",
    "instruction_shingles",
    "name_ids",
    "quoted_code",
    "shingles",
    "talks_code",
]


def check_text(
    text: str, *, inner_thoughts: str = "", prompt: EngineText | None = None
) -> TextVerdict | None:
    """None when the text may go out under `strict`; else the first rule that refuses it."""
    return check(text, filters=STRICT, inner_thoughts=inner_thoughts, prompt=prompt)


def debris(text: str) -> TextVerdict | None:
    """The hygiene rules on the text alone: a template slot left unfilled, or no words, letter runs,
    markup or JSON debris."""
    unfit = _debris(text)
    return TextVerdict(unfit.rule, unfit.detail) if unfit is not None else None
