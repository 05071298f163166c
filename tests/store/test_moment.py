"""`parse_moment`: the one reader of a moment a user names (`inspect --since`, `interview --at`)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from ideaco.store.runlog import parse_moment

DAY = date(2026, 3, 2)


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("09:30", datetime(2026, 3, 2, 9, 30)),
        (" 9:05:07 ", datetime(2026, 3, 2, 9, 5, 7)),
        ("23:59:59", datetime(2026, 3, 2, 23, 59, 59)),
        ("2026-03-03T08:00", datetime(2026, 3, 3, 8, 0)),
        ("2026-03-03T08:00:00+02:00", datetime(2026, 3, 3, 8, 0)),  # the zone is dropped, not converted
    ],
)
def test_a_clock_time_is_on_the_first_day_and_an_iso_moment_is_itself(text, moment):
    assert parse_moment(text, DAY) == moment


@pytest.mark.parametrize("text", ["24:00", "9:60", "930", "9h30", "tomorrow", "", "09:30:61"])
def test_anything_else_is_a_value_error(text):
    with pytest.raises(ValueError):
        parse_moment(text, DAY)
