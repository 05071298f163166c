"""What a tool's arguments may say where people read them (issue 29, item 3): pure rules.

A role, a department's mission, a department's, team's or room's name, a requirement's title and
a task's claim key are shown in every prompt of the people they concern, in `/who`, on the task
board and in the viewer. The embedded model filled them with debris: a mission "1", a role
`[china zekar 23, enamor]}},`, a claim key `104895763-boss.smithd.,-<span-style=`. Each is held to
the draft filters that fit it (`drafts.debris`: a template slot, no words, letter runs, markup)
and to a shape: a name or a role is a label of words, a mission or a title says something in
words, a claim key is a short slug. A refusal says why, for the secretary (or the model) to read
in its next thought; the run goes on.
"""

from __future__ import annotations

import re
from enum import Enum

from ideaco.office.rules import drafts


class Label(str, Enum):
    """What a text is, which decides its shape."""

    NAME = "name"  # a department's, a team's or a room's
    ROLE = "role"
    MISSION = "mission"
    TITLE = "description"  # a requirement's: its room is named after it


PROSE_WORDS = 1  # words of two letters or more a mission or a title needs (a lone "1" or "x" is none)
# A label's characters: letters and digits of any script, their marks, spaces, and the punctuation of
# names like "R&D", "C++ team", "QA/Test", "Dr. Ng's office", "API (v2)".
_LABEL = re.compile(r"^[\w\s&'’.,/+#()-]+$")
_LETTER = re.compile(r"[^\W\d_]")
_PROSE_WORD = re.compile(r"[^\W\d_]{2,}")
CLAIM_KEY_CHARS = 40
_CLAIM_KEY = re.compile(r"^[^\W_]+(?:[-_][^\W_]+)*$")
CLAIM_KEY_SHAPE = "a claim key is a short slug: words or digits joined by '-', like api-research"


def label_problem(kind: Label, text: str) -> str | None:
    """Why `text` cannot be this label (None: it can); a blank optional one is not asked about."""
    if kind in (Label.NAME, Label.ROLE):
        if not _LETTER.search(text):
            return f"a {kind.value} needs letters, not {text!r}"
        bad = next((c for c in text if c == "_" or not _LABEL.match(c)), None)
        if bad is not None:
            return f"a {kind.value} is words: {bad!r} has no place in one"
    elif len(_PROSE_WORD.findall(text)) < PROSE_WORDS:
        return f"a {kind.value} says something in words, not {text!r}"
    verdict = drafts.debris(text)
    if verdict is None or kind in (Label.NAME, Label.ROLE) and verdict.detail.startswith(_SHAPED):
        return None
    return f"not a {kind.value}: {verdict.detail}"


# What the label shape decides already for a name or a role: its letters and its characters (the
# symbol share of a short "R&D" or "C++ dev" is no debris).
_SHAPED = ("no word", "a fragment in brackets") + tuple(f"{n} symbols" for n in range(1, 100))


def claim_key_problem(key: str) -> str | None:
    """Why a claim key (as `tasks.normalize_claim_key` made it) is no short slug; None if it is."""
    if len(key) > CLAIM_KEY_CHARS or not _CLAIM_KEY.match(key) or not _LETTER.search(key):
        return CLAIM_KEY_SHAPE
    return None
