"""What a draft must not be, whatever model wrote it: the filters a message passes before any gate.

A weak model (the embedded SmolLM2) copies the engine's words from its prompt into the chat (its
instructions, a note, a heading), leaves template placeholders (`[insert name]`, `{firstName}`),
writes debris (`}},{`, `</span}`, `aaaaaa`) or its private thoughts, and runs a string into its
length bound mid-sentence. Each filter is a pure decision on the text (and what the thought itself
said, and what the engine wrote into its prompt), tested on both sides of its threshold; a refused
draft is held with gate `filtered` and the filter's rule, logged and counted.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from ideaco.cycle import TextRule
from ideaco.mind import recall, relationships, stamina, tasks  # their fixed wording is in the prompt too
from ideaco.mind.prompt import CUT, EngineText
from ideaco.wording import words


@dataclass(frozen=True)
class TextVerdict:
    rule: TextRule
    detail: str


SHINGLE = 6  # words in a row of the engine's text in the think's prompt that make an echo
# ... and of the prompt's fixed wording, the same in every prompt: its answer format's example
# values are five words ("what you found or did"), which the embedded model posts word for word.
FIXED_SHINGLE = 5
# The answer format's own words, which a weak model copies into its message most often.
SIGNATURES = (
    "your private thoughts",
    "never shown",
    *(f.casefold() for f in ("innerThoughts", "topicSaturation", "interestLevel", "shouldSpeak")),
    *(f.casefold() for f in ("memorySummary", "memoryOps", "relationshipOps", "taskOps")),
    "what you say here",  # the compact answer format's `say`, which SmolLM2 posts as it is
)
# The answer format's words as a weak model rewrites them: a field split into words (`task Op`,
# `memory ops`), an example value with its pronoun or tense changed (`What I found or did`, the
# resolve hint's `what you found or did`) or words put in (`What you say on this message here`,
# the compact format's `what you say here`), an impression as the prompt lists it after a number
# (`... are 56 — fantasy`, from `affinity 56 — fantasy`).
_REWORDED = (
    re.compile(r"\b(?:task|memory|relationship)[ _-]?ops?\b", re.I),
    re.compile(r"\bwhat (?:you|i|we|they) (?:found|find|finds) or (?:did|do|does)\b", re.I),
    re.compile(r"\bwhat (?:you|i|we) say\b(?:\W+\w+){1,3}?\W+here\b", re.I),
    re.compile(r"(?<![\w.,:/-])(?:100|[1-9]?\d) — (?:\w+\W*){1,2}$"),
)
# How the prompt names a speaker, which a weak model copies as the start of its message: the boss's
# mark `Boss (BOSS):`, and a person with its id, `Lena (lena)` (members, impressions).
_SPEAKER_MARK = re.compile(r"\(BOSS\)|\b([A-Z][a-z]+) \((?:id )?([a-z][a-z0-9_-]*)\)")
# The answer format's words as a slot in brackets or parentheses: its fields, the memory categories,
# the kinds of id, the roles (`[taskop]`, `[mem-id]`, `(context)`, `[context_2]`, `[Boss]`), with a
# kind or a number after it (`[context_type: 5]`).
ANSWER_WORDS = (
    "think say speak sat interest taskop taskops memop memops memoryop memoryops op ops "
    "preference fact instruction context relationship experience decision "
    "mem-id memid task-id taskid claimkey claim-key boss you"
).split()
_ANSWER_SLOT = re.compile(
    r"[\[(]\s*(?:" + "|".join(re.escape(w) for w in ANSWER_WORDS) + r")(?:[-_ ]?(?:id|\d+|type|key))?"
    r"(?:\s*:\s*\d+)?\s*[\])]",
    re.I,
)
# A tag the writer started and never closed, at the very end (`<li class=`): what is left when a
# weak model's markup runs into its length bound.
_OPEN_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?$")
MAX_SYMBOLS = 0.3  # symbols (not letters, digits or sentence punctuation) among the non-space characters
RUN = 5  # one character this many times in a row is a run (not . ! ? or -)
THOUGHT_OVERLAP = 0.6  # share of a draft's words in the thought's own inner text (as a prefix run)
SENTENCE_END = re.compile(r"[.!?…](?=[\"')\]»”’]*\s|[\"')\]»”’]*$)")
_WORD = re.compile(r"[^\W\d_]{2,}", re.UNICODE)
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
# A variable's name as a slot: camelCase (`dateTime`, `userId`: a hump after at least two small
# letters, so `iPhone`, `eBay`, `iOS`, `macOS` are no slot) or snake_case (`user_name`, `FIRST_NAME`).
_IDENT = r"(?:[a-z]{2,}(?:[A-Z][a-z]+)+|[a-z]+(?:_[a-z]+)+|[A-Z]+(?:_[A-Z]+)+)"
_SLOTS_OUTSIDE_CODE_TALK = (
    re.compile(rf"\{{\{{[^{{}}]{{0,60}}\}}\}}|\{{(?:[a-z]+|{_IDENT})\}}"),  # {{ name }}, {name}, {firstName}
    re.compile(
        rf"<(?:[A-Z]{{2,}}(?:_[A-Z]+)*|{_IDENT}|[Yy]our [A-Za-z ]{{1,30}})>"
    ),  # <NAME>, <message_info>, <firstName>
    re.compile(rf"(?<![\w\]])\[{_SLOT}(?:(?: | and | or |/){_SLOT})?\](?![\w(\[])"),  # [topic], [date/time]
    re.compile(
        rf"(?<![\w\]])\[{_IDENT}\](?![\w(\[])"
    ),  # [dateTime], [FIRST_NAME]; not an index, items[userId]
    _ANSWER_SLOT,  # [taskop], [mem-id], (context)
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
# Elements that have no closing tag: `</br>` is no HTML but debris (`_MARKUP`), not quoted code.
VOID_TAGS = "area base br col embed hr img input link meta source track wbr".split()
_TAG = re.compile(
    r"<(?:" + "|".join(HTML_TAGS) + r")\b[^<>\n]{0,200}>"
    r"|</(?!(?:" + "|".join(VOID_TAGS) + r")\b)(?:" + "|".join(HTML_TAGS) + r")\b[^<>\n]{0,200}>",
    re.I,
)
_RUN = re.compile(r"([^\s.!?\-])\1{" + str(RUN - 1) + ",}")
_URL = re.compile(r"\b(?:https?://|www\.)\S*", re.I)
_DEBRIS = re.compile(r'[{}\[\]]\s*[,:]\s*[{}\[\]"\']|"\w*"\s*:\s*["\d\[{]|[{\[]\s*[}\]]|\}\s*\}|\]\s*\]')
# Markup a weak model leaves in prose: a tag closed by another bracket (`</big}`, `</span]`) or by
# two (`</truccion>>`: no language closes a tag that way; C++'s `vector<int>>` opens none); and,
# in a message that does not talk about code, a void element's closing tag (`</br>`) or an HTML
# entity, whole or cut short (`&amp;`, `&#34;`, `&right:`).
_BROKEN_TAG = re.compile(r"</?[A-Za-z][\w-]*[}\]]|</[A-Za-z][\w-]*[)]|</[A-Za-z][\w-]*>>")
_MARKUP = re.compile(r"</(?:" + "|".join(VOID_TAGS) + r")\s*>|&(?:#\d+|#x[0-9a-f]+|[a-z]{2,})[;:]", re.I)
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
    """A text's words as the echo and leak rules compare them (`wording.words`, width and ligatures
    folded): quotes and punctuation around a word are not part of it."""
    return words(unicodedata.normalize("NFKC", text))


@lru_cache(maxsize=1)
def instruction_shingles() -> frozenset[tuple[str, ...]]:
    """Runs of the prompt's own fixed wording: its templates (template code removed) and notes."""
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
    return shingles(re.sub(r"\{[{%#].*?[}%#]\}", " ", "\n".join(texts), flags=re.S), FIXED_SHINGLE)


def _windows(found: list[str], size: int = SHINGLE) -> list[tuple[str, ...]]:
    """Runs of `size` words in a row, in order."""
    return [tuple(found[i : i + size]) for i in range(len(found) - size + 1)]


def shingles(text: str, size: int = SHINGLE) -> frozenset[tuple[str, ...]]:
    return frozenset(_windows(_words(text), size))


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


def _valued(found: Sequence[str], values: Values) -> list[str]:
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


@lru_cache(maxsize=512)  # most parts of a prompt (its fixed wording, a room's lines) come again
def _part_words(part: str) -> tuple[str, ...]:
    return tuple(_words(part))


@lru_cache(maxsize=8)  # a think's drafts read the same prompt: its runs are found once
def engine_runs(prompt: EngineText) -> PromptRuns:
    """The runs of words the engine itself wrote into one prompt: runs of its text (none across a
    cut, where people's words were; the engine's ids left out, as a draft's are), a value people
    wrote counted as `VALUE`, less any run inside what people wrote (a value the prompt shows cut)."""
    index: dict[str, list[tuple[str, ...]]] = {}
    for value in sorted({w for p in prompt.people if (w := tuple(_words(p)))}, key=lambda v: (-len(v), v)):
        index.setdefault(value[0], []).append(value)
    values = {first: tuple(found) for first, found in index.items()}
    parts = "\n".join(
        f" {' '.join(_valued(_part_words(part), values))} " for part in name_ids(prompt.text, {}).split(CUT)
    )
    return PromptRuns(parts, frozenset().union(*(shingles(p) for p in prompt.people)), values)


# The prompt's own clock line, "It is Monday 09:37." (weekday, zero-padded time, full stop), copied.
_CLOCK_LINE = re.compile(r"\bIt is (?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day \d\d:\d\d\.(?!\d)")


def _echo(text: str, prompt: EngineText | None) -> str | None:
    clock = _CLOCK_LINE.search(text)
    if clock:
        return clock.group(0)
    for mark in _SPEAKER_MARK.finditer(text):
        if mark.group(1) is None or mark.group(1).lower() == mark.group(2):
            return mark.group(0)
    for reworded in _REWORDED:
        hit = reworded.search(text)
        if hit:
            return hit.group(0).strip()
    found = _words(text)
    folded = " ".join(found)
    for signature in SIGNATURES:
        if re.search(rf"\b{signature}\b", folded):
            return signature
    fixed = instruction_shingles()
    for run in _windows(found, FIXED_SHINGLE):
        if run in fixed:
            return " ".join(run)
    if prompt is None:
        return None
    read = engine_runs(prompt)
    for run in _windows(_valued(found, read.values)):
        if run in read:
            return " ".join(run).replace(" ".join(VALUE), "'…'")
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
    left_open = _OPEN_TAG.search(prose.rstrip())
    if left_open:
        return f"markup left open {left_open.group(0)[:40]!r}"
    unit = re.search(r"(\S{1,3}?)\1{4,}", text)
    if unit and not unit.group(1).isalpha() and any(c.isalnum() for c in unit.group(1)):
        return f"{unit.group(1)!r} repeated"
    debris = (
        _DEBRIS.search(text)
        or _BROKEN_TAG.search(text)
        or (None if code_talk else _ESCAPES.search(text) or _MARKUP.search(text))
    )
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


def check_text(
    text: str, *, inner_thoughts: str = "", prompt: EngineText | None = None
) -> TextVerdict | None:
    """None when the text may go out; else the first filter that refuses it.

    `prompt` is what the engine wrote into the prompt the draft answers (`mind.prompt.engine_text`):
    repeating a run of it is an echo, as repeating the prompt's fixed wording always is.
    """
    verdict = debris(text)
    if verdict is not None:
        return verdict
    if inner_thoughts and _leaked(text, inner_thoughts):
        return TextVerdict(TextRule.LEAKED_THOUGHT, "the draft is the thought's own inner text")
    echo = _echo(text, prompt)
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
