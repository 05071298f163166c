"""Limits on what a user gives ideaco: durations, dates and names it can run with to the end.

Beyond these a run would not fail at the start but crash mid-way (a date past what `datetime`
holds) or print something it should not (a name that forges a transcript line), so a scenario,
a flag or a saved state outside them is refused in one line instead.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Collection
from datetime import datetime, timedelta
from typing import Annotated

from pydantic import AfterValidator, Field

from ideaco.errors import IdeacoError
from ideaco.ids import BOSS, ENGINE_PLACE, EVERYONE, ROLE_WORDS, SECRETARY, SYSTEM
from ideaco.lookalike import look

# Bounds that keep every date the engine computes (start + run + resumes + a chat's 10-year
# horizon) far inside what `datetime` can hold.
MAX_DURATION = timedelta(days=366)
FIRST_YEAR, LAST_YEAR = 1900, 2999
# A real-clock chat's --speed: from a thousandth of real time to an hour every 0.36 s (beyond,
# simulated time would outrun what `datetime` holds within a long session; inf overflowed at once).
MIN_SPEED, MAX_SPEED = 0.001, 10_000.0
RESERVED_IDS = frozenset({BOSS, SYSTEM, *EVERYONE})
# Ids nothing in a scenario may take: the boss's and the system's, the mention keywords, the secretary's.
TAKEN_IDS = RESERVED_IDS | {SECRETARY}
# Room and department ids end up inside conversation ids (`boss:x`, `dm:a:b`), so no ':' or spaces.
PLACE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# Marks the transcript and the prompts put around a speaker's name: "★ Boss", "⚑ ... escalates",
# "Name (BOSS)", "Name (you)", "Name:", "@Name", "* [09:00]" (an unread line), "[task-1]".
NAME_MARKS = frozenset("()[]{}<>*:@★⚑")
_WORD = re.compile(r"[^\W_]+")
# Bidirectional and line-breaking formatting characters: they let a name rearrange the transcript.
BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u2028\u2029")
# The joiners some scripts write inside a word: a Persian "علی‌رضا" (ZWNJ), a Sinhala "ශ්‍රී" (ZWJ),
# an emoji sequence "👩‍💻". Invisible, so taken only between two non-ASCII letters, marks or
# symbols, where they can neither split nor disguise a Latin word ("Bo<ZWJ>ss" is refused).
JOINERS = frozenset("\u200c\u200d")


def joined(text: str, i: int) -> bool:
    """Whether the joiner at `text[i]` sits between two non-ASCII letters, marks or symbols."""
    around = (text[i - 1] if i else "", text[i + 1] if i + 1 < len(text) else "")
    return all(c and not c.isascii() and unicodedata.category(c)[0] in "LMS" for c in around)


def bounded(value: object, seconds: float) -> timedelta:
    """`seconds` as a timedelta of at most MAX_DURATION; ValueError naming `value` otherwise."""
    if not math.isfinite(seconds) or seconds > MAX_DURATION.total_seconds():
        raise ValueError(f"{value!r} is longer than {MAX_DURATION.days} days")
    return timedelta(seconds=seconds)


def check_seconds(number: float) -> float:
    """A timer or gate setting: a finite number of seconds (or a count) from 0 to MAX_DURATION."""
    if not math.isfinite(number) or not 0 <= number <= MAX_DURATION.total_seconds():
        raise ValueError(f"{number!r} is out of range (0 to {MAX_DURATION.total_seconds():.0f})")
    return number


def check_name(value: str) -> str:
    """A display name shown in transcripts and prompts: one line, no control or bidi characters
    (a joiner inside a word of a script that writes one is no control character: `joined`)."""
    for i, ch in enumerate(value):
        if ch in JOINERS and joined(value, i):
            continue
        if ch in BIDI or not (ch.isprintable() or ch == " "):
            raise ValueError(f"{value!r} contains the control character U+{ord(ch):04X}")
    if value != value.strip():
        raise ValueError(f"{value!r} starts or ends with a space")
    return value


def one_paragraph(value: object) -> object:
    """Prose a tool is given (a mission, a requirement): its line breaks and tabs folded into
    spaces, then refused like a name if another control or bidi character is left."""
    if not isinstance(value, str):
        return value
    return check_name(" ".join(value.split()))


def check_person_name(value: str) -> str:
    """A person's name (an employee, a hire): a display name that reads as nobody else's role.

    Not a mention keyword or the secretary's name, no role word ("Boss (BOSS)", "System:"), none
    of the marks a transcript or a prompt puts around a speaker; compared as it looks, case aside
    (`lookalike.look`: a full-width "ＢＯＳＳ" and a Cyrillic "Bоѕѕ" are "boss").
    """
    check_name(value)
    looks = look(value)
    reserved = next((w for w in sorted(RESERVED_IDS) if looks == look(w)), None)
    if reserved is not None:
        keyword = " (it is a mention keyword)" if reserved in EVERYONE else ""
        raise ValueError(f"{value!r} is reserved{keyword}")
    if looks == look(SECRETARY):
        raise ValueError(f"{value!r} is the secretary's name")
    role = next((w for w in sorted(ROLE_WORDS) if look(w) in _WORD.findall(looks)), None)
    if role is not None:
        raise ValueError(f"{value!r} reads as someone else: {role!r} is the {role}'s title")
    folded = unicodedata.normalize("NFKC", value).casefold()
    mark = next((ch for ch in folded + looks if ch in NAME_MARKS), None)
    if mark is not None:
        raise ValueError(f"{value!r} contains {mark!r}, which marks a speaker in the transcript")
    return value


def reserved_id(value: str) -> bool:
    """Whether an id is one the boss, the system, a mention or the secretary takes, or one the
    engine makes or reads as an alias (req-N, boss-chat-X, dm-X, group-chat-X)."""
    return value.lower() in TAKEN_IDS or ENGINE_PLACE.match(value) is not None


def check_place_id(value: str) -> str:
    """A room's or a department's id: not a reserved one (`reserved_id`)."""
    if reserved_id(value):
        raise ValueError(f"{value!r} is reserved")
    return value


def check_new_id(value: str, taken: Collection[str], what: str) -> str:
    """An id the secretary (or the boss) makes for a new person or place: not reserved, not `taken`
    (the ids of the employees, conversations and departments there already are)."""
    if reserved_id(value):
        raise ValueError(f"{what} id {value!r} is reserved")
    if value in taken:
        raise ValueError(f"{what} id {value!r} is already taken")
    return value


def check_start(value: datetime) -> datetime:
    """A simulated start that leaves room for every date the engine computes after it."""
    if not FIRST_YEAR <= value.year <= LAST_YEAR:
        raise ValueError(f"{value.isoformat()} is out of range (years {FIRST_YEAR}-{LAST_YEAR})")
    return value


def check_clock(where: object, now: datetime, end_at: datetime | None) -> None:
    """A resumed run's clock (or its logs' last moment) and end: one line naming `where`
    (IdeacoError) if the engine could overflow computing from them."""
    try:
        check_start(now)
    except ValueError as exc:
        raise IdeacoError(f"{where}: office.now (or the logs' last time) {exc}") from None
    try:
        too_far = end_at is not None and end_at - now > MAX_DURATION
    except TypeError:  # one with a time zone, one without
        raise IdeacoError(f"{where}: office.end_at and office.now cannot be compared") from None
    if too_far and end_at is not None:
        raise IdeacoError(
            f"{where}: office.end_at {end_at.isoformat()} is more than {MAX_DURATION.days} days after office.now"
        )


# Text a user gives once and every prompt then carries: bounded, so that a 5 MB persona or
# mission cannot make every request 5 MB (issue 22). Names are one line of at most NAME_CHARS.
NAME_CHARS, PROSE_CHARS, LINE_CHARS = 80, 500, 2000

# The same checks as pydantic field types, for the scenario's and the personas' models.
Name = Annotated[str, Field(max_length=NAME_CHARS), AfterValidator(check_name)]
PersonName = Annotated[str, Field(max_length=NAME_CHARS), AfterValidator(check_person_name)]
Prose = Annotated[str, Field(max_length=PROSE_CHARS)]  # a mission, a persona's description
PlaceId = Annotated[str, Field(pattern=PLACE_ID.pattern), AfterValidator(check_place_id)]
Start = Annotated[datetime, AfterValidator(check_start)]
Seconds = Annotated[float, AfterValidator(check_seconds)]
