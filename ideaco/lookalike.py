"""When two names look alike: the confusable skeleton of Unicode TS #39, over Unicode's own table.

NFKC folds a full-width "ＢＯＳＳ" into "BOSS", but not another script's look-alikes: a Cyrillic
"Bоѕѕ" is no "Boss" to it. The skeleton maps each character to its prototype (о → o, ѕ → s,
I → l, 0 → O, m → rn, ... from `data/confusables.txt`), so two strings that look alike have the
same skeleton. The name gate (`bounds.check_person_name`, a hire's other names, a scenario's
names) compares names by `look`.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache
from importlib import resources


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


def look_alike(a: str, b: str) -> bool:
    """Whether two texts look the same to a reader, case aside."""
    return look(a) == look(b)
