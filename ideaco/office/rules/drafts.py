"""What a draft must not be, whatever model wrote it: the filters a message passes before any gate.

A weak model (the embedded SmolLM2) copies the prompt's own instructions into the chat, leaves
template placeholders (`[insert name]`, `{company_name}`), writes debris (`}},{`, `aaaaaa`) or its
private thoughts, and runs a string into its length bound mid-sentence. Each filter is a pure
decision on the text (and what the thought itself said), tested on both sides of its threshold;
a refused draft is held with gate `filtered` and the filter's rule, logged and counted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from importlib import resources

from ideaco.mind import recall, relationships, stamina, tasks  # their fixed wording is in the prompt too


class TextRule(str, Enum):
    """Why a draft's text was refused (logged as `rule`, with gate `filtered`)."""

    PROMPT_ECHO = "prompt_echo"  # repeats the prompt's own instructions
    PLACEHOLDER = "placeholder"  # a template slot left unfilled: [insert name], {company}, <NAME>
    DEGENERATE = "degenerate"  # no words, letter runs, markup or JSON debris
    LEAKED_THOUGHT = "leaked_thought"  # the thought's private inner text, posted
    UNFINISHED = "unfinished"  # cut by its length bound with no sentence end to cut back to

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True)
class TextVerdict:
    rule: TextRule
    detail: str


SHINGLE = 5  # words in a row shared with the instructions that make an echo
# The answer format's own words, which a weak model copies into its message most often.
SIGNATURES = (
    "your private thoughts",
    "never shown",
    *(f.casefold() for f in ("innerThoughts", "topicSaturation", "interestLevel", "shouldSpeak")),
    *(f.casefold() for f in ("memorySummary", "memoryOps", "relationshipOps", "taskOps")),
)
MAX_SYMBOLS = 0.3  # symbols (not letters, digits or sentence punctuation) among the non-space characters
RUN = 5  # one character this many times in a row is a run (not . ! ? or -)
THOUGHT_OVERLAP = 0.6  # share of a draft's words in the thought's own inner text (as a prefix run)
SENTENCE_END = re.compile(r"[.!?…](?=[\"')\]»”’]*\s|[\"')\]»”’]*$)")
_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
_TOKENS = re.compile(r"[\w']+", re.UNICODE)
_PLACEHOLDERS = (
    re.compile(
        r"\[(?!task-\d+\]|mem-\d+\])[^\[\]\n]{0,40}\b(insert|your|name|company|here|placeholder|xxx?)\b[^\[\]\n]{0,40}\]",
        re.I,
    ),
    re.compile(r"\{[^{}\n]{0,40}\b(insert|your|name|company|here|placeholder)\b[^{}\n]{0,40}\}", re.I),
    re.compile(r"\[[a-z]+(?:_[a-z]+)+\]"),  # [company_name]
    re.compile(r"\{\{[^{}]{0,60}\}\}|\{[a-z]+(?:_[a-z]+)*\}"),  # {{ name }}, {name}, {company_name}
    re.compile(r"<[A-Za-z]+(?:_[A-Za-z]+)*>"),  # <NAME>, <message_info>
    re.compile(r"\[(?:x|n|\.\.\.|…)\]", re.I),  # [x], [...]
    re.compile(r"\[[a-z]+ ?\d+\]", re.I),  # [service1], [task 1], [Name2]
)
_RUN = re.compile(r"([^\s.!?\-])\1{" + str(RUN - 1) + ",}")
_URL = re.compile(r"\b(?:https?://|www\.)\S*", re.I)
_DEBRIS = re.compile(r'[{}\[\]]\s*[,:]\s*[{}\[\]"\']|"\s*:|[{\[]\s*[}\]]|\}\s*\}|\]\s*\]|\\n|\\"')


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _TOKENS.findall(unicodedata.normalize("NFKC", text))]


@lru_cache(maxsize=1)
def instruction_shingles() -> frozenset[tuple[str, ...]]:
    """5-word runs of the prompt's own fixed wording: its templates (template code removed) and notes."""
    texts = [
        resources.files("ideaco.mind").joinpath("templates", name).read_text(encoding="utf-8")
        for name in ("system.j2", "conversation.j2", "tools.j2", "answer.j2", "answer_compact.j2")
    ]
    texts += [stamina.YELLOW_NOTE, stamina.RED_NOTE, tasks.NO_TASKS_LINE, *tasks.TASKS_HEADER]
    texts += [
        tasks.RESOLVE_HINT.format(example="task"),
        recall.MEMORIES_HEADING,
        relationships.IMPRESSIONS_HEADING,
    ]
    return shingles(re.sub(r"\{[{%#].*?[}%#]\}", " ", "\n".join(texts), flags=re.S))


def shingles(text: str, size: int = SHINGLE) -> frozenset[tuple[str, ...]]:
    words = _words(text)
    return frozenset(tuple(words[i : i + size]) for i in range(len(words) - size + 1))


def _echo(text: str, extra: Iterable[str]) -> str | None:
    folded = " ".join(_words(text))
    for signature in SIGNATURES:
        if re.search(rf"\b{signature}\b", folded):
            return signature
    runs = instruction_shingles() | frozenset().union(*(shingles(e) for e in extra))
    for run in shingles(text):
        if run in runs:
            return " ".join(run)
    return None


def _degenerate(text: str) -> str | None:
    stripped = "".join(text.split())
    if not _WORD.search(_URL.sub(" ", text)):
        return "no word"
    symbols = sum(1 for c in stripped if not c.isalnum() and c not in ".,!?'’\"-:;()")
    if stripped and symbols / len(stripped) > MAX_SYMBOLS:
        return f"{symbols} symbols in {len(stripped)} characters"
    run = _RUN.search(text)
    if run:
        return f"a run of {run.group(1)!r}"
    unit = re.search(r"(\S{1,3}?)\1{4,}", text)
    if unit and not unit.group(1).isalpha() and any(c.isalnum() for c in unit.group(1)):
        return f"{unit.group(1)!r} repeated"
    debris = _DEBRIS.search(text)
    if debris:
        return f"markup debris {debris.group(0)!r}"
    if len(_WORD.findall(text)) < 2 and re.search(r"[\[\]{}<>]", text):
        return "a fragment in brackets"
    return None


def _leaked(text: str, inner: str) -> bool:
    draft, thought = _words(text), _words(inner)
    if len(draft) < 4 or not thought:
        return False
    shared = 0
    for a, b in zip(draft, thought, strict=False):
        if a != b:
            break
        shared += 1
    return shared / len(draft) >= THOUGHT_OVERLAP


def check_text(text: str, *, inner_thoughts: str = "", echoes: Iterable[str] = ()) -> TextVerdict | None:
    """None when the text may go out; else the first filter that refuses it.

    `echoes` are more fixed texts the prompt showed (the engine's notes): repeating them is an echo.
    """
    for pattern in _PLACEHOLDERS:
        found = pattern.search(text)
        if found:
            return TextVerdict(TextRule.PLACEHOLDER, f"placeholder {found.group(0)[:40]!r}")
    why = _degenerate(text)
    if why:
        return TextVerdict(TextRule.DEGENERATE, why)
    if inner_thoughts and _leaked(text, inner_thoughts):
        return TextVerdict(TextRule.LEAKED_THOUGHT, "the draft is the thought's own inner text")
    echo = _echo(text, echoes)
    if echo:
        return TextVerdict(TextRule.PROMPT_ECHO, f"repeats the prompt: {echo!r}")
    return None


def finish(text: str, bound: int) -> str | None:
    """A draft that ran into its length bound, cut back to its last sentence end (None: there is none).

    A draft that stopped short of its bound (or went past it: no bound held it) ended where its
    writer ended it, and is kept whole.
    """
    if not bound - 1 <= len(text) <= bound:
        return text.strip()
    text = text.strip()
    ends = [m.end() for m in SENTENCE_END.finditer(text)]
    return text[: ends[-1]].strip() if ends else None
