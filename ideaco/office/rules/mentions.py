"""@-mention routing (spec 2.1, 2.2), after OpenMausBot's shared mention-boundary rules.

One set of rules decides who a message addresses, so what the log shows as a mention and who is
actually woken never diverge:
- an `@` counts only at the start of the text or after a non-word character other than `/`
  (`alice@example.com` is an address, `https://x.org/@bob` a URL path, `(@Bob)` a mention);
- the name or id after it matches case-insensitively, longest first (`@Bobby` is Bobby, not Bob),
  and must not run on into a word character (`@Bobby` never means Bob);
- `@all` / `@everyone` expand to the conversation's members;
- anything inside inline code or a fenced code block is an example, not an address;
- so is anything quoted: a block-quote line (`> ...`) or text in quotation marks on one line
  ("...", '...', “...”, 「...」), as in OpenMausBot's maskQuotedAndCode (reference 004);
  an apostrophe inside a word (`@Bob's`) opens no quote;
- text and names are compared in Unicode NFC form.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import regex

from ideaco.ids import BOSS, EVERYONE

_ALL = "\0all"  # sentinel target: can never clash with an employee id
_TICKS = re.compile(r"`+")


def _is_word(ch: str) -> bool:
    # Combining marks continue a name too: "@Jose\u0301" is not "@Jose".
    return ch.isalnum() or ch == "_" or unicodedata.category(ch).startswith("M")


def _at_boundary(text: str, at: int) -> bool:
    if at == 0:
        return True
    before = text[at - 1]
    return not _is_word(before) and before != "/"


def mask_code(text: str) -> str:
    """The text with inline code spans and fenced blocks blanked out (same length).

    A run of N backticks is closed by the next run of exactly N; an unclosed run of 3 or more
    at the start of a line is a fence that runs to the end, as in Markdown.
    """
    out = list(text)
    pos = 0
    while (opening := _TICKS.search(text, pos)) is not None:
        run = opening.group()
        closing = re.compile(rf"(?<!`){run}(?!`)").search(text, opening.end())
        if closing is not None:
            end = closing.end()
        elif len(run) >= 3 and not text[text.rfind("\n", 0, opening.start()) + 1 : opening.start()].strip():
            end = len(text)
        else:
            pos = opening.end()
            continue
        out[opening.start() : end] = " " * (end - opening.start())
        pos = end
    return "".join(out)


# Quotation marks on one line: ASCII quotes open only where no word runs into them and close only
# where none runs on, so apostrophes ("don't", "@Bob's") quote nothing.
_QUOTED = re.compile(r"(?<!\w)\"[^\"\n]*\"(?!\w)|(?<!\w)'[^'\n]*'(?!\w)|“[^”\n]*”|「[^」\n]*」")
_BLOCK_QUOTE = re.compile(r"^[ \t]*>.*$", re.MULTILINE)


def mask_quoted(text: str) -> str:
    """The text with block-quote lines and quoted passages blanked out (same length)."""
    for pattern in (_BLOCK_QUOTE, _QUOTED):
        text = pattern.sub(lambda m: " " * len(m.group()), text)
    return text


def _prepare(text: str) -> str:
    # NFC so that "Zoe" + combining accent is the same name as a precomposed "Zoë".
    return mask_code(unicodedata.normalize("NFC", text))


class _Roster:
    """What matching against one roster (id -> name) needs, built once for it: the @-mention
    candidates longest first, and the words and phrases that name each employee."""

    def __init__(self, people: Mapping[str, str]) -> None:
        pairs: list[tuple[int, int, str, str]] = [(len(w), 0, w, _ALL) for w in EVERYONE]
        self.words: dict[str, set[str]] = {}  # a single word (casefolded) -> who it names
        self.phrases: list[tuple[re.Pattern[str], str]] = []  # names with spaces or punctuation
        for emp_id, name in people.items():
            name = unicodedata.normalize("NFC", name.strip())
            for word in {name, emp_id}:
                if word:
                    pairs.append((len(word), 1, word, emp_id))
            for word in {w.casefold() for w in (emp_id, name, name.split(" ")[0]) if w}:
                if _WORD.fullmatch(word):
                    self.words.setdefault(word, set()).add(emp_id)
                else:
                    self.phrases.append((re.compile(rf"(?<![\w]){re.escape(word)}(?![\w])"), emp_id))
        pairs.sort(key=lambda p: (-p[0], p[1]))
        self.candidates = [(word, target) for _, _, word, target in pairs]


_WORD = re.compile(r"\w+")
_ROSTERS: list[tuple[dict[str, str], _Roster]] = []  # the last few staff lists, most recent first


def _roster(people: Mapping[str, str]) -> _Roster:
    """The roster of `people`, built again only when the staff list changes: callers hand over
    equal mappings (the office's, a scratch copy's) message after message, and comparing two
    dicts costs far less than building a roster for a thousand people."""
    for i, (known, roster) in enumerate(_ROSTERS):
        if known is people or known == people:
            if i:
                _ROSTERS.insert(0, _ROSTERS.pop(i))
            return roster
    roster = _Roster(people)
    _ROSTERS.insert(0, (dict(people), roster))
    del _ROSTERS[4:]
    return roster


def _candidates(people: Mapping[str, str]) -> list[tuple[str, str]]:
    """(word, target) pairs, longest word first; @all/@everyone win ties with a same-named person."""
    return _roster(people).candidates


def _scan(text: str, candidates: Sequence[tuple[str, str]]) -> Iterator[str]:
    """Targets of the @-mentions in text, in order of appearance (with repeats)."""
    folded = [(word, word.casefold(), target) for word, target in candidates]
    pos = 0
    while (at := text.find("@", pos)) != -1:
        pos = at + 1
        if not _at_boundary(text, at):
            continue
        for word, key, target in folded:
            end = at + 1 + len(word)
            # Compare the same number of original characters: casefold may change the length.
            if text[at + 1 : end].casefold() != key:
                continue
            if end < len(text) and _is_word(text[end]):
                continue
            yield target
            pos = end
            break


def parse_mentions(
    text: str,
    people: Mapping[str, str],
    members: Sequence[str],
    sender: str | None = None,
) -> tuple[str, ...]:
    """Employee ids the text @-mentions, in order of first appearance, unique, without the sender.

    people maps employee id -> display name (names may hold spaces); a mention may use either.
    `@all` / `@everyone` expand to members. Anyone named is returned, member or not: the caller
    decides what a mention of an outsider means.
    """
    found: dict[str, None] = {}
    for target in _scan(mask_quoted(_prepare(text)), _candidates(people)):
        for emp_id in members if target == _ALL else (target,):
            if emp_id != sender:
                found.setdefault(emp_id, None)
    return tuple(found)


def addressed_by_boss(text: str, people: Mapping[str, str], members: Sequence[str]) -> tuple[str, ...]:
    """Who a boss message addresses: those it @-mentions, else every member (spec 2.1).

    The addressed count as mentioned for the speech gates (2.2).
    """
    named = parse_mentions(text, people, members, sender=BOSS)
    return named if named else tuple(m for m in dict.fromkeys(members) if m != BOSS)


@dataclass(frozen=True)
class NearMiss:
    """An `@` that names nobody but touches a name: `written` (`@张伟你好`) is `before` (words of a
    script written without spaces run into the `@`: `你好@张伟`), the `@` and `name` as the text spells
    it (`张伟`), and `rest` (`你好`), the letters that run on after it."""

    written: str
    name: str
    rest: str
    before: str = ""

    @property
    def suggestion(self) -> str:
        """The line's words as a mention: `@张伟 你好`, `你好 @张伟`."""
        return " ".join(part for part in (self.before, f"@{self.name}", self.rest) if part)

    @property
    def hint(self) -> str:
        """What the boss is told, in one line."""
        return f"{self.written} names nobody here; write {self.suggestion}"


# Scripts written without spaces between words: there a letter before an `@` is the end of the word
# before, not the user part of an address (`你好@张伟`); in any other script (`bob@alice.com`) it is.
_UNSPACED = regex.compile(r"[\p{Han}\p{Hiragana}\p{Katakana}\p{Thai}\p{Lao}\p{Khmer}\p{Myanmar}]")


def _unspaced_before(text: str, at: int) -> int:
    """Where the run of letters of a script without spaces that ends at `at` begins (`at`: none)."""
    start = at
    while start > 0 and (_UNSPACED.match(text[start - 1]) or unicodedata.category(text[start - 1]) == "Mn"):
        start -= 1
    while start < at and not _UNSPACED.match(text[start]):  # a run begins with a letter, not a mark
        start += 1
    return start


def near_misses(text: str, people: Mapping[str, str]) -> tuple[NearMiss, ...]:
    """Each `@` that mentions nobody by the boundary rules but touches someone's name or id: the
    name runs on into a letter, mark, digit or `_` (`@张伟你好`; the longest such name), or a word
    of a script written without spaces runs into the `@` (`你好@张伟`).

    Code and quoted text are skipped, as `parse_mentions` skips them; `@all`/`@everyone` running on
    (`@allhands`) is an ordinary word, a name whose last letter takes a combining mark is another
    name, and a Latin word before an `@` (`bob@alice.com`) an address: none is a near-miss.
    """
    prepared = _prepare(text)  # same length as the NFC text, so positions carry over
    masked = mask_quoted(prepared)
    candidates = [(word, word.casefold(), target) for word, target in _candidates(people)]
    found: list[NearMiss] = []
    pos = 0
    while (at := masked.find("@", pos)) != -1:
        pos = at + 1
        start = at if _at_boundary(masked, at) else _unspaced_before(masked, at)
        if start == at and not _at_boundary(masked, at):
            continue
        miss: tuple[int, int] | None = None  # where the name ends, and the word that runs on from it
        for word, key, target in candidates:
            end = at + 1 + len(word)
            if masked[at + 1 : end].casefold() != key:
                continue
            if end >= len(masked) or not _is_word(masked[end]):
                miss = (end, end) if start < at else None  # a whole name: a mention, unless run into
                break
            # A mark after the name changes the name's own last letter (`@Jose\u0301` is José): no run-on.
            if miss is None and target != _ALL and not unicodedata.category(masked[end]).startswith("M"):
                stop = end
                while stop < len(masked) and _is_word(masked[stop]):
                    stop += 1
                miss = (end, stop)
        if miss is not None:
            end, stop = miss
            found.append(
                NearMiss(prepared[start:stop], prepared[at + 1 : end], prepared[end:stop], prepared[start:at])
            )
            pos = stop
    return tuple(found)


def named_in(text: str, people: Mapping[str, str]) -> set[str]:
    """Employee ids a text names, with or without `@`: their id, full name or first name as a whole word."""
    folded = _prepare(text).casefold()
    roster = _roster(people)
    found: set[str] = set()
    for word in _WORD.findall(folded):
        found |= roster.words.get(word, set())
    for pattern, emp_id in roster.phrases:
        if emp_id not in found and pattern.search(folded):
            found.add(emp_id)
    return found
