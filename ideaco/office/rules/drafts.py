"""What a draft must not be, whatever model wrote it: the filters a message passes before any gate.

A weak model (the embedded SmolLM2) copies the prompt's own instructions into the chat, leaves
template placeholders (`[insert name]`, `{company_name}`), writes debris (`}},{`, `aaaaaa`) or its
private thoughts, and runs a string into its length bound mid-sentence. Each filter is a pure
decision on the text (and what the thought itself said), tested on both sides of its threshold;
a refused draft is held with gate `filtered` and the filter's rule, logged and counted.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ideaco.cycle import TextRule
from ideaco.mind import recall, relationships, stamina, tasks  # their fixed wording is in the prompt too


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
# Template slots a weak model leaves. Square brackets and slot words are placeholders anywhere; a
# `{name}`, `{{ name }}` or `<NAME>` only in a message that does not talk about code (an engineer
# writing "the template renders {name}" or "set it to <API_KEY>" means the braces).
_PLACEHOLDERS = (
    re.compile(
        r"\[(?!task-\d+\]|mem-\d+\])[^\[\]\n]{0,40}\b(insert|your|name|company|here|placeholder|xxx?)\b[^\[\]\n]{0,40}\]",
        re.I,
    ),
    re.compile(r"\{[^{}\n]{0,40}\b(insert|your|here|placeholder)\b[^{}\n]{0,40}\}", re.I),
    re.compile(r"\[[a-z]+(?:_[a-z]+)+\]"),  # [company_name]
    re.compile(r"\[(?:x|n|\.\.\.|…)\]", re.I),  # [x], [...]
    re.compile(r"\[[a-z]+ ?\d+\]", re.I),  # [service1], [task 1], [Name2]
    re.compile(r"\(insert\b[^()\n]{0,40}\)", re.I),  # (insert text), (Insert name here)
)
# A template's generic one-word slots (`I will finish [task] by [time]`), lowercase or capitalised,
# alone or two joined (`[date and time]`). Not a tag in capitals (`[TASK]`, `[ERROR]`), a Markdown
# link (`[details](https://...)`), an index (`array[item]`) or a word outside the list (`[beta]`).
SLOT_WORDS = (
    "name target action topic task time date day person colleague project item reason detail details "
    "thing something someone placeholder location place venue event deadline description number "
    "amount recipient email link url address city"
).split()
_SLOT = "(?:" + "|".join(f"[{w[0]}{w[0].upper()}]{w[1:]}" for w in SLOT_WORDS) + ")"
_SLOTS_OUTSIDE_CODE_TALK = (
    re.compile(r"\{\{[^{}]{0,60}\}\}|\{[a-z]+(?:_[a-z]+)*\}"),  # {{ name }}, {name}, {company_name}
    re.compile(
        r"<(?:[A-Z]{2,}(?:_[A-Z]+)*|[a-z]+(?:_[a-z]+)+|[Yy]our [A-Za-z ]{1,30})>"
    ),  # <NAME>, <message_info>
    re.compile(rf"(?<![\w\]])\[{_SLOT}(?:(?: | and | or |/){_SLOT})?\](?![\w(\[])"),  # [topic], [date/time]
)
# A Markdown checkbox, `- [x] done` or `[ ] docs` at a line's start: a list item, not a slot or debris.
_CHECKBOX = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\[[ xX]\](?=[ \t]+\S)", re.M)
# Words that say a message is about code, markup or data: its braces and brackets are meant.
CODE_TALK = frozenset(
    "template templates f-string f-strings fstring format placeholder placeholders variable variables "
    "jinja string strings interpolation python javascript typescript js code regex json yaml html css "
    "tag tags element component key field fields param params parameter config syntax brace braces "
    "render renders header env api payload schema snippet function escape escaped newline".split()
)
# Spans that are quoted code or data, never the writer's own prose: fenced blocks, code spans,
# f-strings, real HTML elements (the placeholders and debris checks do not look inside them).
HTML_TAGS = (
    "a abbr article aside b blockquote body br button canvas code div em footer form h1 h2 h3 h4 h5 h6 "
    "head header hr html i iframe img input label li link main meta nav ol option p pre script section "
    "select small span strong style sub sup svg table tbody td template textarea th thead title tr u ul video"
).split()
_CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]+`", re.S)
_FSTRING = re.compile(r"""\b[fF](["'])(?:(?!\1).){0,400}\1""")
_TAG = re.compile(r"</?(?:" + "|".join(HTML_TAGS) + r")\b[^<>\n]{0,200}>", re.I)
_RUN = re.compile(r"([^\s.!?\-])\1{" + str(RUN - 1) + ",}")
_URL = re.compile(r"\b(?:https?://|www\.)\S*", re.I)
_DEBRIS = re.compile(r'[{}\[\]]\s*[,:]\s*[{}\[\]"\']|"\w*"\s*:\s*["\d\[{]|[{\[]\s*[}\]]|\}\s*\}|\]\s*\]')
_TEMPLATE_CODE = re.compile(r"\{\{[^{}\n]{0,60}\}\}|\{%[^{}\n]{0,60}%\}")
_ESCAPES = re.compile(r'\\n|\\"')  # a literal \n or \": debris, unless the message talks about code
_JSON = json.JSONDecoder()
_OPENINGS = re.compile(r"[{\[]")


def quoted_code(text: str) -> str:
    """The text with its code and data blanked: fenced blocks, code spans, f-strings, HTML elements
    and JSON values (an object or list of at least one item that parses), each as one space."""
    text = _TAG.sub(" ", _FSTRING.sub(" ", _CODE.sub(" ", text)))
    out, kept = [], 0  # text[:kept] is decided
    for opening in _OPENINGS.finditer(text):
        start = opening.start()
        if start < kept:
            continue  # inside a JSON value already blanked
        try:
            value, end = _JSON.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, (dict, list)) and value:
            out += [text[kept:start], " "]
            kept = end
    return "".join([*out, text[kept:]])


def talks_code(text: str, prose: str | None = None) -> bool:
    """Whether a message is about code or markup: it quotes some (`prose`, its `quoted_code`,
    differs from it), or names it."""
    prose = quoted_code(text) if prose is None else prose
    return prose != text or any(w.strip(".,:;!?()") in CODE_TALK for w in text.casefold().split())


def _only_emoji(text: str) -> bool:
    chars = [c for c in text if not c.isspace()]
    return 0 < len(chars) <= 8 and all(_emoji(c) for c in chars)


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


# The prompt's own clock line, "It is Monday 09:37." (weekday, zero-padded time, full stop), copied.
_CLOCK_LINE = re.compile(r"\bIt is (?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day \d\d:\d\d\.(?!\d)")


def _echo(text: str, extra: Iterable[str]) -> str | None:
    clock = _CLOCK_LINE.search(text)
    if clock:
        return clock.group(0)
    folded = " ".join(_words(text))
    for signature in SIGNATURES:
        if re.search(rf"\b{signature}\b", folded):
            return signature
    runs = instruction_shingles() | frozenset().union(*(shingles(e) for e in extra))
    for run in shingles(text):
        if run in runs:
            return " ".join(run)
    return None


def _degenerate(text: str, prose: str, code_talk: bool) -> str | None:
    if not _WORD.search(_URL.sub(" ", text)):
        return None if _only_emoji(text) else "no word"
    text = _URL.sub(" ", prose)
    if code_talk:  # a template's own {{ expression }} or {% tag %}, named as such
        text = _TEMPLATE_CODE.sub(" ", text)
    stripped = "".join(text.split())
    symbols = sum(1 for c in stripped if not c.isalnum() and c not in ".,!?'’\"-:;()" and not _emoji(c))
    if stripped and symbols / len(stripped) > MAX_SYMBOLS:
        return f"{symbols} symbols in {len(stripped)} characters"
    run = _RUN.search(text)
    if run:
        return f"a run of {run.group(1)!r}"
    unit = re.search(r"(\S{1,3}?)\1{4,}", text)
    if unit and not unit.group(1).isalpha() and any(c.isalnum() for c in unit.group(1)):
        return f"{unit.group(1)!r} repeated"
    debris = _DEBRIS.search(text) or (None if code_talk else _ESCAPES.search(text))
    if debris:
        return f"markup debris {debris.group(0)!r}"
    if len(_WORD.findall(text)) < 2 and re.search(r"[\[\]{}<>]", text):
        return "a fragment in brackets"
    return None


def _emoji(c: str) -> bool:
    """An emoji's parts: the pictograph, a variation selector, a skin tone, the joiner."""
    return (
        unicodedata.category(c) == "So"
        or 0xFE00 <= ord(c) <= 0xFE0F
        or 0x1F3FB <= ord(c) <= 0x1F3FF
        or ord(c) == 0x200D
    )


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


def debris(text: str) -> TextVerdict | None:
    """The filters on the text alone: a template slot left unfilled, or no words, letter runs,
    markup or JSON debris (what a tool's arguments are held to as well: `rules/labels.py`)."""
    prose = quoted_code(text)
    code_talk = talks_code(text, prose)
    prose = _CHECKBOX.sub(" ", prose)
    for pattern in (*_PLACEHOLDERS, *(() if code_talk else _SLOTS_OUTSIDE_CODE_TALK)):
        found = pattern.search(prose)
        if found:
            return TextVerdict(TextRule.PLACEHOLDER, f"placeholder {found.group(0)[:40]!r}")
    why = _degenerate(text, prose, code_talk)
    return TextVerdict(TextRule.DEGENERATE, why) if why else None


def check_text(text: str, *, inner_thoughts: str = "", echoes: Iterable[str] = ()) -> TextVerdict | None:
    """None when the text may go out; else the first filter that refuses it.

    `echoes` are more fixed texts the prompt showed (the engine's notes): repeating them is an echo.
    """
    verdict = debris(text)
    if verdict is not None:
        return verdict
    if inner_thoughts and _leaked(text, inner_thoughts):
        return TextVerdict(TextRule.LEAKED_THOUGHT, "the draft is the thought's own inner text")
    echo = _echo(text, echoes)
    if echo:
        return TextVerdict(TextRule.PROMPT_ECHO, f"repeats the prompt: {echo!r}")
    return None


# An engine id as a model copies it from the prompt: in brackets, in parentheses or bare. A bare one
# stands alone (not `pre-task-3d`, `task-3_x`, `task-3.5`, `task-3@host`); a URL is left as it is.
_ID = r"((?:task|mem)-\d+)"
_IDS = re.compile(rf"{_URL.pattern}|\s?(?:\[{_ID}\]|\({_ID}\)|(?<![\w\-/.#@:=]){_ID}(?![\w\-/@]|\.\w))", re.I)


def name_ids(text: str, names: Mapping[str, str]) -> str:
    """A draft with the engine's ids read as what they name (issue 21): `[task-1]`, `(task-1)` or a
    bare `task-1` as the task's description in quotes; an id it cannot name (a memory's, another's
    task) left out. The prompt shows ids for the answer's ops; colleagues reading the chat know tasks
    by what they are."""

    def said(found: re.Match[str]) -> str:
        found_id = found.group(1) or found.group(2) or found.group(3)
        if not found_id:
            return found.group(0)  # a URL
        what = names.get(found_id.casefold())
        return f" '{what}'" if what else ""

    named = _IDS.sub(said, text)
    return named.strip() if named != text else text


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
