"""The batteries (issue 36, item 10): ordinary office talk in many scripts passes every rule under
both settings, and what the embedded model really wrote is refused by the hygiene rules."""

from __future__ import annotations

from pathlib import Path

import pytest
import regex
import yaml

from ideaco.office.rules.text import FILTERS, GUARANTEE, HYGIENE, STANDARD, STRICT, check

HERE = Path(__file__).resolve().parent
GOOD = yaml.safe_load((HERE / "good_messages.yaml").read_text(encoding="utf-8"))
JUNK = yaml.safe_load((HERE / "junk_messages.yaml").read_text(encoding="utf-8"))
GOOD_TEXTS = [t for group in GOOD.values() for t in group]


def test_the_good_battery_is_big_and_wide_enough_to_mean_something() -> None:
    assert len(GOOD_TEXTS) >= 150
    assert len(GOOD["chinese"]) >= 40
    scripts = ("Han", "Hiragana", "Katakana", "Hangul", "Devanagari", "Thai", "Arabic", "Cyrillic", "Greek")
    for script in scripts:
        assert any(regex.search(rf"\p{{{script}}}", t) for t in GOOD_TEXTS), script
    assert any(regex.search(r"[éèàçüöäßñ¿¡«»„]", t) for t in GOOD_TEXTS)
    for seen in ("[P0]", "[WIP]", "**Done**", "https://", "`", "|---|", "1000000"):
        assert any(seen in t for t in GOOD_TEXTS), seen


@pytest.mark.parametrize("filters", FILTERS)
@pytest.mark.parametrize("text", GOOD_TEXTS)
def test_ordinary_talk_in_any_script_passes_every_rule(text: str, filters: str) -> None:
    assert check(text, filters=filters) is None


@pytest.mark.parametrize("text", JUNK["refused"])
def test_what_the_small_model_wrote_is_refused_by_hygiene_under_strict(text: str) -> None:
    verdict = check(text, filters=STRICT)
    assert verdict is not None and verdict.kind == HYGIENE, verdict


@pytest.mark.parametrize("text", JUNK["refused"])
def test_standard_shows_what_keeps_the_guarantees(text: str) -> None:
    assert check(text, filters=STANDARD) is None


def test_a_guarantee_holds_under_both_settings_and_says_so() -> None:
    for filters in FILTERS:
        for text in ("", "   ", "ok \u202e evil", "hi\x07"):
            verdict = check(text, filters=filters)
            assert verdict is not None and verdict.kind == GUARANTEE, (text, verdict)
