"""What a tool's arguments may say where people read them (issue 29, item 3), on both sides of each rule."""

from __future__ import annotations

import pytest

from ideaco.office.rules.labels import (
    CLAIM_KEY_CHARS,
    CLAIM_KEY_SHAPE,
    Label,
    claim_key_problem,
    label_problem,
)


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        (Label.ROLE, "Frontend engineer"),
        (Label.ROLE, "C++ dev"),  # a short label's symbols are no debris
        (Label.ROLE, "Ingénieur QA"),
        (Label.NAME, "R&D"),
        (Label.NAME, "QA"),
        (Label.NAME, "API (v2)"),
        (Label.NAME, "Отдел продаж"),
        (Label.MISSION, "Ship"),  # one word is a word
        (Label.MISSION, "Ship the new API by Friday"),
        (Label.TITLE, "Build the users API"),
        (Label.TITLE, "Fix bug 42"),
    ],
)
def test_a_label_of_words_passes(kind: Label, text: str) -> None:
    assert label_problem(kind, text) is None


@pytest.mark.parametrize(
    ("kind", "text", "why"),
    [
        (Label.ROLE, "[china zekar 23, enamor]}},", "a role is words: '[' has no place in one"),  # seen
        (Label.MISSION, "1", "a mission says something in words, not '1'"),  # seen
        (Label.NAME, "★★★", "a name needs letters"),
        (Label.NAME, "QA <span>", "'<' has no place"),
        (Label.NAME, "data_team", "'_' has no place"),
        (Label.ROLE, "aaaaaa", "not a role: a run of 'a'"),
        (Label.ROLE, "(insert role)", "not a role: placeholder '(insert role)'"),
        (Label.MISSION, "{mission}", "not a mission: placeholder '{mission}'"),
        (Label.MISSION, "Ship it {{ mission }} now", "not a mission: placeholder"),
        (Label.TITLE, "x", "a description says something in words, not 'x'"),
        (Label.TITLE, 'Refunds "}, {"', "not a description: markup debris"),
    ],
)
def test_debris_is_refused_with_a_reason(kind: Label, text: str, why: str) -> None:
    said = label_problem(kind, text)
    assert said is not None and why in said, said


@pytest.mark.parametrize("key", ["api-research", "q3", "sync_conflict", "審查-api", "a" * CLAIM_KEY_CHARS])
def test_a_short_slug_is_a_claim_key(key: str) -> None:
    assert claim_key_problem(key) is None


@pytest.mark.parametrize(
    "key",
    ["104895763-boss.smithd.,-<span-style=", "true},", "2026", "a" * (CLAIM_KEY_CHARS + 1), "api--x", "-api"],
)
def test_anything_else_is_no_claim_key(key: str) -> None:
    assert claim_key_problem(key) == CLAIM_KEY_SHAPE
