"""What a tool's arguments may say where people read them (issues 29 and 36): pure rules.

A role, a department's mission, a department's, team's or room's name, a requirement's title and
a task's claim key are shown in every prompt of the people they concern, in `/who`, on the task
board and in the viewer. The embedded model filled them with debris: a mission "1", a role
`[china zekar 23, enamor]}},`, a claim key `104895763-boss.smithd.,-<span-style=`. A capable model
and a person name things in any script, with the punctuation names carry: `研发中心（上海）`,
`デザイン・チーム`, `Sr. Engineer – Backend`, `Customer Success | EMEA`, `c++-migration`.

Characters are judged by Unicode category (`regex`'s `\\p{L}` letters, `\\p{M}` marks, `\\p{N}`
digits, `\\p{P}` punctuation): a Hindi vowel sign or a Thai tone mark is part of its word, `（）、・`
are punctuation. What is refused is only what no name holds: markup, control and bidi characters,
bracket and JSON debris (`}},{`, `[x]`, `<span`, `{"a":`), template slots and letter runs. The
rule is this module's own (`debris`), not the drafts' (a message is held to other rules). A
refusal says why, for the secretary (or the model) to read in its next thought; the run goes on.
"""

from __future__ import annotations

import unicodedata
from enum import Enum

import regex

from ideaco.bounds import BIDI, JOINERS, joined
from ideaco.office.rules.text import script


class Label(str, Enum):
    """What a text is, which decides its shape."""

    NAME = "name"  # a department's, a team's or a room's
    ROLE = "role"
    MISSION = "mission"
    TITLE = "description"  # a requirement's: its room is named after it


_LETTER = regex.compile(r"\p{L}")
# A word of prose: two letters (with their marks) or more, or one letter of a script written without
# spaces between words, where one character is a word ("修", "好": `script.SYLLABIC`). A lone "1"
# or "x" is none.
_PROSE_WORD = regex.compile(r"[\p{L}\p{M}]{2,}|" + script.SYLLABIC.pattern)
# What a name or a role holds: letters, marks, digits, spaces, punctuation of any script (`（）·、・
# &—–:!.'#/,-` among them) and symbols (`+ | → °`, currencies, emoji)...
_LABEL_CHAR = regex.compile(r"[\p{L}\p{M}\p{N}\p{Zs}\p{P}\p{S}]")
# ... but not markup, the brackets of code and JSON or ASCII operators (in their full-width forms
# too: the text is read after NFKC), nor the marks a transcript puts around a speaker. A `"` is
# taken in pairs ("Moonshot" team), never against a `:` or a `,` ("a": 1); an `@` only before a
# space (Engineer @ Google: no mention).
DEBRIS_CHARS = frozenset("[]{}<>\\`_*=^~★⚑")
_QUOTE_DEBRIS = regex.compile(r'"\s*[:,]|@(?!\s)')
# A letter six times or more in a row: `aaaaaa`, `hhhhhhhh` (no word of any script runs so).
_RUN = regex.compile(r"(\p{L})\1{5,}")
# Template slots and the words of a form left unfilled: `{mission}`, `{{ x }}`, `(insert role)`,
# `[your name]`. A `{id}` inside a path (`/users/{id}`) is no slot.
_SLOT = regex.compile(
    r"\{\{.*?\}\}|\{%|(?<![\p{L}\p{N}/$_.])\{\s*[\p{L}_][\p{L}\p{N}_ ]*\s*\}"
    r"|[\[(<]\s*(?:insert|your|enter|add)\b[^\])>]*[\])>]",
    regex.IGNORECASE,
)
# Markup: an HTML tag or comment, an HTML entity.
_MARKUP = regex.compile(
    r"<\s*/?\s*(?:span|div|p|br|a|b|i|u|img|script|style|table|tr|td|th|html|body|head|meta|iframe|font"
    r"|ul|ol|li|h[1-6]|em|strong|sup|sub)(?=\s|>|/>|$)|<!--|&(?:lt|gt|amp|quot|nbsp|#\d+);",
    regex.IGNORECASE,
)
# JSON and bracket debris: braces doubled or joined (`}}`, `},{`, `}]`), a quote against a brace or
# a bracket (`{"`, `"]`), an empty or ticked box (`[ ]`, `[x]`), doubled angle brackets on a word.
_JSON = regex.compile(
    r"[}\]]\s*[,]?\s*[{\[]|[{\[]\s*[{\[]|[}\]]\s*[}\]]|[{\[]\s*\"|\"\s*[}\]]|\[[ xX]?\]"
    r"|<<<|>>>|<<\S|\S>>"  # angle brackets doubled against a word: task123<<<I'm, (<<*>>), glad>>My
)
_PAIRS = {"}": "{", "]": "["}


def _balanced(text: str) -> bool:
    """Whether `{}` and `[]` open before they close and nest (`}]{[` does not)."""
    stack: list[str] = []
    for ch in text:
        if ch in "{[":
            stack.append(ch)
        elif ch in _PAIRS:
            if not stack or stack.pop() != _PAIRS[ch]:
                return False
    return not stack


def debris(text: str) -> str | None:
    """What in `text` no label holds, said in a few words; None when there is nothing.

    Control and bidi characters, a template slot or an unfilled form's words, markup, JSON or
    bracket debris, unbalanced braces, a letter run. Judged on the NFKC form, so a full-width
    `｛` is a `{`.
    """
    folded = unicodedata.normalize("NFKC", text)
    bad = next((c for c in folded if c in BIDI or unicodedata.category(c) in ("Cc", "Cs", "Co")), None)
    if bad is not None:
        return f"the control character U+{ord(bad):04X}"
    for pattern, what in ((_SLOT, "placeholder"), (_MARKUP, "markup"), (_JSON, "bracket or JSON debris")):
        if (found := pattern.search(folded)) is not None:
            return f"{what} {found.group(0)!r}"
    if not _balanced(folded):
        return "bracket or JSON debris (unbalanced braces)"
    if (run := _RUN.search(folded)) is not None:
        return f"a run of {run.group(1)!r}"
    return None


def label_problem(kind: Label, text: str) -> str | None:
    """Why `text` cannot be this label (None: it can); a blank optional one is not asked about."""
    folded = unicodedata.normalize("NFKC", text)
    if kind in (Label.NAME, Label.ROLE):
        if not _LETTER.search(folded):
            return f"a {kind.value} needs letters, not {text!r}"
        bad = next(
            (
                c
                for i, c in enumerate(folded)
                if c in DEBRIS_CHARS or not _LABEL_CHAR.match(c) and not (c in JOINERS and joined(folded, i))
            ),
            None,
        )
        if bad is None and (found := _QUOTE_DEBRIS.search(folded)) is not None:
            bad = found.group(0)[0]
        elif bad is None and folded.count('"') % 2:
            bad = '"'
        if bad is not None:
            return f"a {kind.value} is words: {bad!r} has no place in one"
    elif not _PROSE_WORD.search(folded):
        return f"a {kind.value} says something in words, not {text!r}"
    why = debris(text)
    return None if why is None else f"not a {kind.value}: {why}"


CLAIM_KEY_CHARS = 40
# Words of any script (letters, marks, digits), joined by '-', '_', '.', '/' or a middle dot; a word
# may hold '+', '#' or an apostrophe after a letter (c++-migration, c#-client, bug#42, v2.0-release,
# 用户-登录, デザイン・レビュー, c++/rust-bridge, boss's-ask).
_KEY_WORD = r"[\p{L}\p{M}\p{N}]+(?:[+#'’]+[\p{L}\p{M}\p{N}]*)*"
_CLAIM_KEY = regex.compile(rf"^{_KEY_WORD}(?:[-_./・·]{_KEY_WORD})*$")
CLAIM_KEY_SHAPE = (
    "a claim key is a short slug: words or digits joined by '-' (or '.', '_'), "
    "like api-research or v2.0-release"
)


def claim_key_problem(key: str) -> str | None:
    """Why a claim key (as `tasks.normalize_claim_key` made it) is no short slug; None if it is."""
    if len(key) > CLAIM_KEY_CHARS or not _CLAIM_KEY.match(key) or not _LETTER.search(key):
        return CLAIM_KEY_SHAPE
    return None
