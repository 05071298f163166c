"""One policy for every text a person reads (issue 36): posts and DMs, document versions, review
notes and rebuttals, task descriptions and results, tool arguments.

Two kinds of rules, kept apart: the GUARANTEES (`guarantees.py`) hold for every model and refuse no
ordinary text in any language; SMALL-MODEL HYGIENE (`hygiene.py`) refuses what a weak model leaves
(markup debris, placeholders, degenerate runs, answer-format words, unfinished lines) and is on
under `--filters strict`, the default for the embedded model (`standard`: guarantees only, the
default for an endpoint). A verdict names its rule and its kind; docs/posting.md has one row a rule.
"""

from __future__ import annotations

from ideaco.office.rules.text.code import quoted_code, talks_code
from ideaco.office.rules.text.hygiene import finish
from ideaco.office.rules.text.ids import name_ids
from ideaco.office.rules.text.policy import (
    FILTERS,
    GUARANTEE,
    HYGIENE,
    STANDARD,
    STRICT,
    TextVerdict,
    check,
    default_filters,
    problem,
    problem_for,
)

__all__ = [
    "FILTERS",
    "GUARANTEE",
    "HYGIENE",
    "STANDARD",
    "STRICT",
    "TextVerdict",
    "check",
    "default_filters",
    "finish",
    "name_ids",
    "problem",
    "problem_for",
    "quoted_code",
    "talks_code",
]
