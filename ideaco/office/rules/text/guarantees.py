"""The guarantees: what no text a person reads may be, whatever model wrote it.

They refuse no ordinary text in any language: a text that is empty, holds characters no one reads
(controls, bidi overrides), posts the thought's own private inner text, or copies a run of the
words the engine itself wrote into that very prompt (its notes, headings, rules, the persona's
description; not what people wrote there, and not ordinary words that also appear in it).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from ideaco.cycle import TextRule
from ideaco.mind import tasks
from ideaco.mind.prompt import CUT, EngineText
from ideaco.office.rules.text.ids import name_ids
from ideaco.office.rules.text.script import unreadable
from ideaco.wording import words

SHINGLE = 6  # words in a row of the engine's text in the think's prompt that make an echo
THOUGHT_OVERLAP = 0.6  # share of a draft's words in the thought's own inner text (as a prefix run)


@lru_cache(maxsize=1024)  # a draft is read by three rules; most parts of a prompt come again
def text_words(text: str) -> tuple[str, ...]:
    """A text's words as the echo and leak rules compare them (`wording.words`, width and ligatures
    folded): quotes and punctuation around a word are not part of it."""
    return tuple(words(unicodedata.normalize("NFKC", text)))


def windows(found: Sequence[str], size: int = SHINGLE) -> list[tuple[str, ...]]:
    """Runs of `size` words in a row, in order."""
    return [tuple(found[i : i + size]) for i in range(len(found) - size + 1)]


def shingles(text: str, size: int = SHINGLE) -> frozenset[tuple[str, ...]]:
    return frozenset(windows(text_words(text), size))


# A value people wrote (a task's description, a memory) quoted whole, with any beside it: two words
# of a run however long it is, so that the engine's note around it is still its own words
# ("Your task '…' is done" is six) while the value's own words are its writer's.
VALUE = ("\x00", "\x00")
Values = Mapping[str, tuple[tuple[str, ...], ...]]  # first word -> the values starting with it, longest first


@dataclass(frozen=True)
class PromptRuns:
    """What the echo rule reads of one prompt: the engine's words, part by part, and the values
    people wrote in it. A run is the engine's if its words stand in a row in one part, and are not
    a run of what people wrote (`__contains__`): each draft's few runs are looked up in the text,
    rather than every run of a long prompt built as a set."""

    parts: str  # each part's words, " "-joined with a space either side, one part a line
    people: frozenset[tuple[str, ...]]  # the runs of what people wrote
    values: Values

    def __contains__(self, run: tuple[str, ...]) -> bool:
        return f" {' '.join(run)} " in self.parts and run not in self.people


def valued(found: Sequence[str], values: Values) -> list[str]:
    """Words with each value quoted whole as `VALUE` (values in a row as one)."""
    out: list[str] = []
    i = 0
    while i < len(found):
        value = next((v for v in values.get(found[i], ()) if tuple(found[i : i + len(v)]) == v), None)
        if value is None:
            out.append(found[i])
            i += 1
            continue
        if tuple(out[-2:]) != VALUE:
            out += VALUE
        i += len(value)
    return out


@lru_cache(maxsize=8)  # a think's drafts read the same prompt: its runs are found once
def engine_runs(prompt: EngineText) -> PromptRuns:
    """The runs of words the engine itself wrote into one prompt: runs of its text (none across a
    cut, where people's words were; the engine's ids left out, as a draft's are), a value people
    wrote counted as `VALUE`, less any run inside what people wrote (a value the prompt shows cut)."""
    index: dict[str, list[tuple[str, ...]]] = {}
    said = [text_words(p) for p in prompt.people]
    found = {w for w in said if w}
    for value in sorted(found, key=lambda v: (-len(v), v)):
        index.setdefault(value[0], []).append(value)
    values = {first: tuple(found) for first, found in index.items()}
    parts = "\n".join(
        f" {' '.join(valued(text_words(part), values))} " for part in name_ids(prompt.text, {}).split(CUT)
    )
    return PromptRuns(parts, frozenset(run for w in said for run in windows(w)), values)


# The engine's short notes on a task line, its urgency and what it asks (`tasks.URGENCY_HINT`:
# `overdue: needs immediate attention`): fewer words than a run, but the engine's own, so a copy of
# one the prompt shows is an echo (issue 37, item 10).
URGENCY_NOTES = tuple(text_words(f"{level} {hint}") for level, hint in tasks.URGENCY_HINT.items() if hint)


def engine_echo(text: str, prompt: EngineText | None) -> str | None:
    """The first run of `SHINGLE` words of the engine's own text in `prompt` that the text copies,
    or an urgency note of the prompt's."""
    if prompt is None:
        return None
    read = engine_runs(prompt)
    found = valued(text_words(text), read.values)
    for run in windows(found):
        if run in read:
            return " ".join(run).replace(" ".join(VALUE), "'…'")
    for note in URGENCY_NOTES:
        if note in windows(found, len(note)) and f" {' '.join(note)} " in read.parts:
            return " ".join(note)
    return None


def leaked(text: str, inner: str) -> bool:
    """Whether the text's first words are the thought's own inner text (a share `THOUGHT_OVERLAP`
    of the text's words, four at least)."""
    draft, thought = text_words(text), text_words(inner)
    if len(draft) < 4 or not thought:
        return False
    shared = 0
    for a, b in zip(draft, thought, strict=False):
        if a != b:
            break
        shared += 1
    return shared / len(draft) >= THOUGHT_OVERLAP


@dataclass(frozen=True)
class Broken:
    """Which guarantee a text breaks, and how."""

    rule: TextRule
    detail: str


def check(text: str, *, inner_thoughts: str = "", prompt: EngineText | None = None) -> Broken | None:
    """None when the text keeps every guarantee; else the first it breaks."""
    if not text.strip():
        return Broken(TextRule.EMPTY, "no text")
    hidden = unreadable(text)
    if hidden:
        return Broken(TextRule.UNREADABLE, f"a character no one reads ({hidden})")
    if inner_thoughts and leaked(text, inner_thoughts):
        return Broken(TextRule.LEAKED_THOUGHT, "the draft is the thought's own inner text")
    echo = engine_echo(text, prompt)
    if echo:
        return Broken(TextRule.PROMPT_ECHO, f"repeats the prompt: {echo!r}")
    return None
