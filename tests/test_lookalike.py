"""When two names would be taken for each other (issue 36, item 7): the same name case and width aside
(NFKC), and a skeleton only across scripts or in a name that mixes them; on both sides, in several scripts."""

from __future__ import annotations

import pytest

from ideaco.lookalike import Names, fold, look_alike, scripts


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Amie", "Arnie"),  # m and rn share a skeleton (TS #39): two Latin names
        ("Al", "AI"),
        ("Rn", "M"),
        ("Zoë", "Zoe"),
        ("张伟", "章伟"),
        ("張偉", "张伟"),  # traditional and simplified: other characters
        ("さくら", "サクラ"),  # hiragana and katakana are one script for a name (Japanese)
        ("Дмитрий", "Дмитрии"),
        ("प्रिया", "प्रिय"),  # the vowel sign makes another name
        ("สมชาย", "สมชัย"),
    ],
)
def test_two_names_of_one_script_are_two_names(a, b):
    assert not look_alike(a, b)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Ann", "ANN"),
        ("Ａｍｉｅ", "Amie"),  # full width: NFKC
        ("Mary  Jane", "mary jane"),
        ("B\u043e\u0455\u0455", "Boss"),  # Latin B, Cyrillic о and ѕ: mixed scripts, compared by skeleton
        ("\u0412\u043e\u0455\u0455", "Boss"),  # all Cyrillic against Latin: two scripts
        ("\u0410mie", "Arnie"),  # mixed: the skeleton's m -> rn holds here
        ("ΑΙ", "AI"),  # Greek capitals against Latin
    ],
)
def test_the_same_name_or_a_spoof_across_scripts_looks_alike(a, b):
    assert look_alike(a, b)


def test_fold_is_nfkc_case_and_spaces():
    assert fold(" Ｚｈａｎｇ  Wei ") == "zhang wei"
    assert fold("ᴮᵒˢˢ") == "boss"


@pytest.mark.parametrize(
    ("name", "resolved"),
    [
        ("Amie", {"Latin"}),
        ("佐藤 さくら", {"Jpan"}),  # Han with hiragana: Japanese
        ("김 民準", {"Kore"}),  # Hangul with Han: Korean
        ("B\u043e\u0455\u0455", set()),  # mixed
        ("42", None),  # no letter of any script
    ],
)
def test_a_names_scripts_resolve_as_ts39_says(name, resolved):
    found = scripts(name)
    assert (found if found is None else set(found) & {"Latin", "Jpan", "Kore"} or set(found)) == resolved


def test_names_finds_the_one_a_new_name_would_be_taken_for():
    names = Names()
    names.add("Amie", "amie")
    names.add("张伟", "zhangwei")
    assert names.alike("Arnie") is None
    assert names.alike("ａｍｉｅ") == "amie"
    assert names.alike("\u0410rnie") == "amie"  # a Cyrillic А: mixed, and its skeleton is Amie's
    assert names.alike("章伟") is None


def test_a_script_outside_the_table_is_named_by_its_characters_names() -> None:
    """Tagalog and Buhid letters are in no pattern of the table: each is its own script (the first
    word of its Unicode name), so one name in Tagalog is one script and a mix of the two is mixed."""
    from ideaco.lookalike import scripts

    assert scripts("\u1700\u170a") == frozenset({"TAGALOG"})
    assert scripts("\u1700\u1740") == frozenset()
