"""The README's glossary: the words ideaco prints that a newcomer cannot guess, one line each."""

from __future__ import annotations

import re
from pathlib import Path

from ideaco.cycle import Gate, Trigger

ROOT = Path(__file__).resolve().parents[1]
# Printed by a run, inspect, report or the chat, and explained nowhere else in the README.
PRINTED = (
    "affinity",
    "cache slot",
    "claim key",
    "comfort",
    "compact wire",
    "Flow-of-Thought",
    "gate",
    Trigger.NUDGE.value,
    "owed",
    Gate.SUPERSEDED.value,
)


def glossary() -> list[tuple[str, str]]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Glossary\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^- \*\*(.+?)\*\*: (.+)$", section, re.MULTILINE)


def test_the_glossary_explains_each_printed_word_in_one_line_in_alphabetical_order() -> None:
    entries = glossary()
    words = [word for word, _ in entries]
    assert set(PRINTED) <= set(words)
    assert words == sorted(words, key=str.lower)
    assert all(len(text.split()) >= 8 for _, text in entries)  # a sentence, not a synonym


def test_the_links_to_the_glossary_land_on_it() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(#glossary)" in readme and readme.count("\n## Glossary\n") == 1
