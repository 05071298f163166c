"""What a tool's arguments may say where people read them (issues 29 and 36), on both sides of each rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from ideaco.office.rules.labels import (
    CLAIM_KEY_CHARS,
    CLAIM_KEY_SHAPE,
    Label,
    claim_key_problem,
    debris,
    label_problem,
)

DATA = Path(__file__).parent / "data"


def _battery(name: str) -> list[tuple[str, ...]]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [tuple(line.split("\t")) for line in lines if line.strip() and not line.startswith("#")]


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
        # Issue 36, item 5: the punctuation names carry, in every script, and combining marks.
        (Label.NAME, "研发中心（上海）"),
        (Label.NAME, "デザイン・チーム"),
        (Label.NAME, "Customer Success | EMEA"),
        (Label.NAME, "Growth: EMEA"),
        (Label.NAME, "Platform (Ops)"),  # a drafts rule read "(Ops)" as a placeholder
        (Label.ROLE, "高级工程师（后端）"),
        (Label.ROLE, "Sr. Engineer – Backend"),
        (Label.ROLE, "वरिष्ठ इंजीनियर"),  # Devanagari vowel signs and virama: marks, part of the word
        (Label.ROLE, "วิศวกรซอฟต์แวร์"),  # Thai vowel and tone marks
        (Label.NAME, "개발 본부"),
        (Label.MISSION, "修"),  # one Han character is a word
        (Label.MISSION, "ग्राहकों को खुश रखना"),
        (Label.TITLE, "[P0] Checkout is failing"),  # a bracketed tag is no box
        (Label.TITLE, "GET /api/v2/users/{id} returns 404"),  # a path's {id} is no template slot
        (Label.TITLE, "Write the T&Cs: updated per legal's notes"),
        (Label.NAME, '"Moonshot" team'),  # quotes in pairs
        (Label.ROLE, "Engineer @ Google"),  # an @ before a space is no mention
        (Label.NAME, "Sales → Ops"),
        (Label.NAME, "ශ්‍රී ලංකා කණ්ඩායම"),  # Sinhala: a ZWJ inside the word
        (Label.NAME, "تیم فروش‌ویژه"),  # Persian: a ZWNJ inside the word
        (Label.NAME, "👩‍💻 Dev team"),  # an emoji sequence
        (Label.ROLE, "aaaaa"),  # five of a letter: no run yet (six is)
        (Label.TITLE, "Rename the <I/O> module"),  # no HTML element
        (Label.TITLE, "Shift a << 2 in the parser"),  # doubled angle brackets between spaces
        (Label.TITLE, "p99 < 200 ms"),
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
        (Label.NAME, "研发中心［上海］", "'[' has no place"),  # full-width brackets: NFKC folds them
        (Label.NAME, "チーム{x}", "'{' has no place"),
        (Label.ROLE, 'Dev "lead', "'\"' has no place"),  # a quote alone
        (Label.ROLE, 'Dev "a": 1', "'\"' has no place"),  # a quote against a colon: JSON
        (Label.ROLE, "Dev@ops", "'@' has no place"),  # an @ before a word reads as a mention
        (Label.NAME, "Bo\u200dss", "'\\u200d' has no place"),  # a joiner inside a Latin word
        (Label.NAME, "A > B", "'>' has no place"),
        (Label.NAME, "x = y", "'=' has no place"),
        (Label.ROLE, "aaaaaa", "not a role: a run of 'a'"),
        (Label.ROLE, "(insert role)", "not a role: placeholder '(insert role)'"),
        (Label.MISSION, "{mission}", "not a mission: placeholder '{mission}'"),
        (Label.MISSION, "Ship it {{ mission }} now", "not a mission: placeholder"),
        (Label.MISSION, "项目 {目标}", "not a mission: placeholder '{目标}'"),
        (Label.TITLE, "x", "a description says something in words, not 'x'"),
        (Label.TITLE, "Ж", "a description says something in words"),  # one Cyrillic letter is no word
        (Label.TITLE, 'Refunds "}, {"', "not a description: bracket or JSON debris"),
        (Label.TITLE, '{"a": 1} migrate', "bracket or JSON debris '{\"'"),
        (Label.TITLE, "Refunds }},{ now", "bracket or JSON debris"),
        (Label.TITLE, "[x] ship it", "bracket or JSON debris '[x]'"),
        (Label.TITLE, "用户登录 }]{[", "bracket or JSON debris"),
        (Label.TITLE, "Fix the page <span style=", "markup '<span'"),
        (Label.TITLE, "Fix &lt;b&gt; tags", "markup '&lt;'"),
        (Label.TITLE, "what you found or did}}}.", "bracket or JSON debris"),
        (Label.TITLE, "Fix login }", "unbalanced"),
        (Label.TITLE, "Create a task with TaskOps (<<*>>)", "bracket or JSON debris '<<*'"),  # seen
        (Label.TITLE, "task123<<<I'm glad", "bracket or JSON debris '<<<'"),  # seen
        (Label.TITLE, "Отчёт\u202e за квартал", "U+202E"),
        (Label.MISSION, "ทำให้ลูกค้า\x07พอใจ", "U+0007"),
    ],
)
def test_debris_is_refused_with_a_reason(kind: Label, text: str, why: str) -> None:
    said = label_problem(kind, text)
    assert said is not None and why in said, said


def test_every_legitimate_label_of_the_battery_is_a_label() -> None:
    rows = [(kind, text) for kind, text in _battery("labels_legit.tsv")]
    assert len(rows) >= 110
    kinds = {"name": Label.NAME, "role": Label.ROLE, "mission": Label.MISSION, "description": Label.TITLE}
    refused = [
        (text, why)
        for kind, text in rows
        if kind in kinds and (why := label_problem(kinds[kind], text)) is not None
    ]
    assert refused == []


@pytest.mark.parametrize(
    "text",
    [
        "Ship it",
        "上线新版本",
        "ユーザーに届ける",
        "고객을 행복하게",
        "Продавать больше",
        "ग्राहक सेवा",
        "ทีมพัฒนา",
    ],
)
def test_prose_in_any_script_carries_no_debris(text: str) -> None:
    assert debris(text) is None
    assert debris(text + " }},{") is not None


@pytest.mark.parametrize(
    "key",
    [
        "api-research",
        "q3",
        "sync_conflict",
        "審查-api",
        "a" * CLAIM_KEY_CHARS,
        "用" * CLAIM_KEY_CHARS,  # characters, not bytes
        "c++-migration",  # issue 36: claim keys take '+' and '.'
        "v2.0-release",
        "c#-client",
        "node.js-upgrade",
        "用户-登录",
        "लॉगिन-पेज",  # Devanagari marks
        "หน้า-ชำระเงิน",
        "отчет-q3",
        "bug#42",
        "デザイン・レビュー",
        "c++/rust-bridge",
        "boss's-ask",
    ],
)
def test_a_short_slug_is_a_claim_key(key: str) -> None:
    assert claim_key_problem(key) is None


@pytest.mark.parametrize(
    "key",
    [
        "104895763-boss.smithd.,-<span-style=",
        "true},",
        "2026",
        "a" * (CLAIM_KEY_CHARS + 1),
        "用" * (CLAIM_KEY_CHARS + 1),
        "api--x",
        "-api",
        "v2.-release",
        ".api",
        "api.",
        "+api",
        "用户{登录}",
        "a//b",
        "api/",
        "'api",
        "api,x",
    ],
)
def test_anything_else_is_no_claim_key(key: str) -> None:
    assert claim_key_problem(key) == CLAIM_KEY_SHAPE


def test_every_debris_of_the_battery_is_refused() -> None:
    kinds = {"name": Label.NAME, "role": Label.ROLE, "mission": Label.MISSION, "description": Label.TITLE}
    rows = _battery("labels_debris.tsv")
    assert len(rows) >= 30
    passed = [text for kind, text in rows if label_problem(kinds[kind], text) is None]
    assert passed == []
