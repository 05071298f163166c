"""Names that hold a joiner inside a word (issue 36, item 5): Persian's ZWNJ, Sinhala's ZWJ, an
emoji sequence pass the name gate; a joiner that could split or disguise a Latin word does not."""

from __future__ import annotations

import pytest

from ideaco.bounds import check_name, check_person_name
from ideaco.lookalike import fold, look_alike


@pytest.mark.parametrize("name", ["علی‌رضا", "ශ්‍රී", "👩‍💻 Dev", "नमस्\u200dते"])
def test_a_joiner_inside_a_word_of_its_script_is_part_of_the_name(name):
    assert check_name(name) == name


@pytest.mark.parametrize("name", ["Bo\u200dss", "\u200dAli", "Ali\u200c", "علی\u200c ", "a\u200bb"])
def test_a_joiner_beside_latin_letters_a_space_or_an_end_is_a_control_character(name):
    with pytest.raises(ValueError, match="control character"):
        check_name(name)


def test_a_name_with_or_without_its_joiner_is_the_same_name():
    assert fold("علی‌رضا") == fold("علیرضا")
    assert look_alike("علی‌رضا", "علیرضا")
    with pytest.raises(ValueError, match="control character"):
        check_person_name("Bo\u200dss")
