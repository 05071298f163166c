"""When two names look alike: identity within a script, Unicode's confusable skeleton across scripts.

NFKC folds a full-width "ＢＯＳＳ" into "BOSS", but not another script's look-alikes: a Cyrillic
"Bоѕѕ" is no "Boss" to it. The skeleton of Unicode TS #39 maps each character to its prototype
(о → o, ѕ → s, I → l, 0 → O, m → rn, ... from `data/confusables.txt`), so two strings that look
alike have the same skeleton. But two ordinary names of one script may share a skeleton and still
be two names: "Amie" and "Arnie" (m → rn), "Al" and "AI". So:

- two names are the same name when they are equal case and width aside (`fold`: NFKC, case-folded,
  spaces collapsed);
- two names that each keep to one script, the same one, are otherwise two names (`look_alike`
  compares no skeletons then);
- a name that mixes scripts ("Bоѕѕ": Latin and Cyrillic), or two names of different scripts, are
  compared by skeleton (`look`): that is where a spoof hides.

Scripts are resolved as TS #39 does: Han with Hiragana and Katakana is one (Japanese), Han with
Hangul one (Korean), digits and punctuation belong to every script. Reserved words (the boss, the
system, the mention keywords) are compared by skeleton always (`bounds.check_person_name`).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from importlib import resources

import regex


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each confusable character -> its prototype (one or more characters)."""
    table: dict[str, str] = {}
    text = resources.files("ideaco").joinpath("data", "confusables.txt").read_text(encoding="utf-8")
    for line in text.splitlines():
        if line and not line.startswith("#"):
            source, prototype = line.split(";")
            table[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in prototype.split())
    return table


def skeleton(text: str) -> str:
    """TS #39's skeleton: the text in NFD, each character replaced by its prototype, NFD again."""
    table = _prototypes()
    mapped = "".join(table.get(c, c) for c in unicodedata.normalize("NFD", text))
    return unicodedata.normalize("NFD", mapped)


def look(text: str) -> str:
    """What a text looks like, case aside: the skeleton of its NFKC form, case-folded, then the
    skeleton again (so "Воѕѕ" in Cyrillic, "BOSS", "ｂｏｓｓ" and "boss" all look like "boss")."""
    return skeleton(skeleton(unicodedata.normalize("NFKC", text)).casefold())


def fold(text: str) -> str:
    """A name as it is, case and width aside: NFKC, case-folded, runs of spaces as one, without the
    invisible joiners (ZWJ, ZWNJ) a name may hold inside a word."""
    folded = unicodedata.normalize("NFKC", text).casefold().replace("\u200c", "").replace("\u200d", "")
    return " ".join(folded.split())


# The scripts names are written in (Unicode's Script_Extensions); a letter of none of them is
# placed by the first word of its Unicode name.
_SCRIPTS = (
    "Latin Greek Cyrillic Armenian Hebrew Arabic Syriac Thaana Nko Devanagari Bengali Gurmukhi Gujarati "
    "Oriya Tamil Telugu Kannada Malayalam Sinhala Thai Lao Tibetan Myanmar Georgian Hangul Ethiopic "
    "Cherokee Canadian_Aboriginal Ogham Runic Khmer Mongolian Hiragana Katakana Bopomofo Han Yi Coptic "
    "Tifinagh Javanese Balinese Sundanese Vai"
).split()
_SCRIPT = {name: regex.compile(rf"\p{{scx={name}}}") for name in _SCRIPTS}
# Scripts written together (TS #39's augmented script sets): Japanese, Korean, Chinese with Bopomofo.
_WRITTEN_WITH = {
    "Han": ("Jpan", "Kore", "Hanb"),
    "Hiragana": ("Jpan",),
    "Katakana": ("Jpan",),
    "Hangul": ("Kore",),
    "Bopomofo": ("Hanb",),
}


@lru_cache(maxsize=4096)
def _char_scripts(ch: str) -> frozenset[str] | None:
    """The (augmented) scripts a character belongs to; None for one of every script (a digit, a
    space, punctuation, a combining mark shared by scripts)."""
    found = {name for name, pattern in _SCRIPT.items() if pattern.match(ch)}
    if not found:
        if not unicodedata.category(ch).startswith("L"):
            return None
        found = {unicodedata.name(ch, "UNKNOWN").split()[0]}
    for name in list(found):
        found.update(_WRITTEN_WITH.get(name, ()))
    return frozenset(found)


def scripts(text: str) -> frozenset[str] | None:
    """The scripts every letter of `text` belongs to (TS #39's resolved script set): empty when it
    mixes scripts ("Bоѕѕ"), None when it has no letter of any script ("42")."""
    resolved: frozenset[str] | None = None
    for ch in unicodedata.normalize("NFKC", text):
        own = _char_scripts(ch)
        if own is not None:
            resolved = own if resolved is None else resolved & own
    return resolved


def look_alike(a: str, b: str) -> bool:
    """Whether two names would be taken for each other: the same name case and width aside, or,
    when either mixes scripts or they are of different scripts, the same skeleton."""
    if fold(a) == fold(b):
        return True
    sa, sb = scripts(a), scripts(b)
    if sa and sb and sa & sb:  # each of one script, the same one: two names
        return False
    return look(a) == look(b)


class Names:
    """Names seen so far, each with its owner, to find the one a new name would be taken for."""

    def __init__(self) -> None:
        self._by_fold: dict[str, str] = {}
        self._by_look: dict[str, list[tuple[str, str]]] = {}

    def alike(self, name: str) -> str | None:
        """The owner of a name seen that `name` would be taken for (`look_alike`), or None."""
        if (owner := self._by_fold.get(fold(name))) is not None:
            return owner
        return next((o for seen, o in self._by_look.get(look(name), ()) if look_alike(seen, name)), None)

    def add(self, name: str, owner: str) -> None:
        self._by_fold.setdefault(fold(name), owner)
        self._by_look.setdefault(look(name), []).append((name, owner))
