"""Small-model hygiene: what a weak model (the embedded SmolLM2) leaves in a text, refused on top of
the guarantees under `--filters strict` (the default for the embedded model).

It copies the answer format's words (`True to speak`, `what you found or did`, `taskOps`), leaves
template slots (`[insert name]`, `{firstName}`), writes markup debris (`}},{`, `</span}`, `<<<`),
letter runs (`aaaaaa`) or no word at all, runs a string into its length bound mid-sentence, and
breaks a line off short of it (`The`, `… and`, a last comma).
Each rule is a pure decision on the text, tested on both sides, and judges characters by Unicode
category (`script.py`): none refuses ordinary talk in any script (tests/office/rules/text/).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import regex

from ideaco.cycle import TextRule
from ideaco.mind import recall, relationships, stamina, tasks  # their fixed wording is in the prompt too
from ideaco.office.rules.text import script
from ideaco.office.rules.text.code import VOID_TAGS, quoted_code, talks_code
from ideaco.office.rules.text.guarantees import shingles, text_words, windows
from ideaco.office.rules.text.ids import URL

# The prompt's fixed wording, the same in every prompt: five words in a row of it are an echo (its
# answer format's example values are five words, "what you found or did", posted word for word).
FIXED_SHINGLE = 5
# The answer format's own words, which a weak model copies into its message most often.
SIGNATURES = (
    "your private thoughts",
    "your private thought",  # the compact answer format's `think: your private thought` (startup)
    "never shown",
    *(f.casefold() for f in ("innerThoughts", "topicSaturation", "interestLevel", "shouldSpeak")),
    *(f.casefold() for f in ("memorySummary", "memoryOps", "relationshipOps", "taskOps")),
    "what you say here",  # the compact answer format's `say`, which SmolLM2 posts as it is
    "true to speak",  # the compact answer format's `speak: true to speak` (release-docs, startup-s2)
)
# The answer format's words as a weak model rewrites them: a field split into words with its capital
# (`task Op`, `memory_ops`; not "memory ops on ARM", which is English), an example value with its
# pronoun or tense changed (`What I found or did`) or words put in (`What you say on this message
# here`), an impression as the prompt lists it after a number (`... are 56 — fantasy`).
_REWORDED = (
    re.compile(r"\b(?:[Tt]ask|[Mm]emory|[Rr]elationship)(?:[ -]?Ops?|_ops?)\b"),
    re.compile(r"\bwhat (?:you|i|we|they) (?:found|find|finds)\s*(?: or |/)\s*(?:did|do|does)\b", re.I),
    re.compile(r"\bwhat (?:you|i|we) say\b(?:\W+\w+){1,3}?\W+here\b", re.I),
    re.compile(r"(?<![\w.,:/-])(?:100|[1-9]?\d) — (?:\w+\W*){1,2}$"),
)
# How the prompt names a speaker: the boss's mark `Boss (BOSS):`, a person with its id, `Lena (lena)`.
_SPEAKER_MARK = re.compile(r"\(BOSS\)|\b([A-Z][a-z]+) \((?:id )?([a-z][a-z0-9_-]*)\)")
# The prompt's own clock line, "It is Monday 09:37." (weekday, zero-padded time, full stop), copied.
_CLOCK_LINE = re.compile(r"\bIt is (?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day \d\d:\d\d\.(?!\d)")
# The answer format's words as a slot in brackets or parentheses (`[taskop]`, `[mem-id]`, `(context)`,
# `[context_2]`, `[Boss]`), with a kind or a number after it (`[context_type: 5]`).
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
MAX_SYMBOLS = 0.3  # symbols (`script.symbol`) among the non-space characters ...
MIN_SYMBOLS = 3  # ... once there are this many (`好滴～`, `ok~~` are a reply)
RUN = 5  # one letter of an alphabet (or one bracket) this many times in a row is a run
GLUED = 36  # letters of the Latin script in a row, no space: words glued together, not a word
# Template slots a weak model leaves, anywhere: a slot word in square brackets, a variable's name,
# `[x]`, `[...]`, a word and its number (`[service1]`; not a tag such as `[P0]`), an id the prompt
# never shows (`[meta-27]`), `(insert ...)`.
_PLACEHOLDERS = (
    re.compile(
        r"\[(?!task-\d+\]|mem-\d+\])[^\[\]\n]{0,40}"
        r"\b(insert|your|name|company|here|placeholder|xxx?)\b[^\[\]\n]{0,40}\]",
        re.I,
    ),
    re.compile(r"\{[^{}\n]{0,40}\b(insert|your|here|placeholder)\b[^{}\n]{0,40}\}", re.I),
    re.compile(r"\[[a-z]+(?:_[a-z]+)+\]"),  # [company_name]
    re.compile(r"\[(?:x|n|\.\.\.|…)\]", re.I),  # [x], [...]
    re.compile(r"\[(?:[a-z]{2,}|[A-Z][a-z]+) ?\d+\]"),  # [service1], [Name2]; not [P0]
    re.compile(r"\[(?!task-|mem-)[a-z]{2,}-\d+\]"),  # [meta-27]: no id the prompt shows
    re.compile(r"\(insert\b[^()\n]{0,40}\)", re.I),  # (insert text)
)
SLOT_WORDS = (
    "name target action topic task time date day person colleague project item reason detail details "
    "thing something someone placeholder location place venue event deadline description number "
    "amount recipient email link url address city"
).split()
_SLOT = "(?:" + "|".join(f"[{w[0]}{w[0].upper()}]{w[1:]}" for w in SLOT_WORDS) + ")"
# A variable's name as a slot: camelCase with a hump after two small letters, or snake_case.
_IDENT = r"(?:[a-z]{2,}(?:[A-Z][a-z]+)+|[a-z]+(?:_[a-z]+)+|[A-Z]+(?:_[A-Z]+)+)"
# Slots only in a message that does not talk about code; a `{name}` in a path (`/users/{id}`) is a
# route's parameter.
_SLOTS_OUTSIDE_CODE_TALK = (
    re.compile(rf"\{{\{{[^{{}}]{{0,60}}\}}\}}|(?<![/\w])\{{(?:[a-z]+|{_IDENT})\}}(?!/)"),
    re.compile(rf"<(?:[A-Z]{{2,}}(?:_[A-Z]+)*|{_IDENT}|[Yy]our [A-Za-z ]{{1,30}})>"),  # <NAME>, <your name>
    re.compile(rf"(?<![\w\]])\[{_SLOT}(?:(?: | and | or |/){_SLOT})?\](?![\w(\[])"),  # [topic], [date/time]
    re.compile(rf"(?<![\w\]])\[{_IDENT}\](?![\w(\[])"),  # [dateTime]; not an index, items[userId]
    _ANSWER_SLOT,
)
# A Markdown checkbox, `- [x] done` or `[ ] docs` at a line's start: a list item, not a slot or debris.
_CHECKBOX = re.compile(r"^[ \t]*(?:[-*+][ \t]+)?\[[ xX]\](?=[ \t]+\S)", re.M)
# Markdown emphasis (`**Done**`, `_note_`, `~~Friday~~`): its marks are no symbols.
_EMPHASIS = re.compile(r"(\*\*|__|~~|\*|_)(?=\S)(.+?)(?<=\S)\1")
# A run: one letter of an alphabet (not a syllable: `script.SYLLABIC`) or one bracket, RUN times.
_RUN = regex.compile(r"((?!" + script.SYLLABIC.pattern + r")\p{L}|[{}\[\]<>|\\])\1{" + str(RUN - 1) + ",}")
# Words glued together (`whatyoufindorovertheprojectis...`): no word of the languages the small model
# writes has GLUED Latin letters (`Supercalifragilisticexpialidocious` has 34).
_GLUED = regex.compile(r"\p{Latin}{" + str(GLUED) + ",}")
_OPEN_TAG = re.compile(r"</?[A-Za-z][\w-]*(?:\s[^<>]*)?$")  # a tag left open at the very end
_DEBRIS = re.compile(r'[{}\[\]]\s*[,:]\s*[{}\[\]"\']|"\w*"\s*:\s*["\d\[{]|\}\s*\}|\]\s*\]')
# Angle brackets glued into prose (`task123<<<I'm`, `glad>>My`, `(<<*>>)`): no language writes them
# so; an operator stands apart (`a >> b`), C++ closes its templates after a name (`vector<int>>`).
_ANGLES = regex.compile(r"[\p{L}\p{N}]<{2,}\p{L}|\p{L}>{2,}[\p{L}\p{N}]|<<[^\w\s]*>>")
_BROKEN_TAG = re.compile(r"</?[A-Za-z][\w-]*[}\]]|</[A-Za-z][\w-]*[)]|</[A-Za-z][\w-]*>>")
# In a message that does not talk about code: a void element's closing tag, an HTML entity whole or
# cut short (`&amp;`, `&#34;`, `&right:`; not `T&Cs:`, whose letters are capitals).
_MARKUP = re.compile(r"&(?:#\d+|#x[0-9a-fA-F]+|[a-z]{2,})[;:]")
_VOID_CLOSE = re.compile(r"</(?:" + "|".join(VOID_TAGS) + r")\s*>", re.I)
# In a message that does not talk about code: a separator glued to its first word (`,text=True`,
# `;drop`) or an assignment left with nothing after it at the very end (`17+48;value=`): what the
# small model leaves of a string it broke off (the README's first command posted
# `,text=True 17+48;value=`).
_BROKEN_OFF = regex.compile(r"^[,;]\p{L}|[\p{L}_]=\s*$")
_TEMPLATE_CODE = re.compile(r"\{\{[^{}\n]{0,60}\}\}|\{%[^{}\n]{0,60}%\}")
_ESCAPES = re.compile(r'\\n|\\"')  # a literal \n or \": debris, unless the message talks about code
_LETTERS = regex.compile(r"^[\p{L}\p{M}]+$")
# A bracket, or an angle bracket that opens a tag (`<li`, `</`, `<!`): a comparison or an arrow
# (`C++ > Rust?`, `=> done`) is none.
_FRAGMENT = regex.compile(r"[\[\]{}]|<[/!]?\p{L}")


@dataclass(frozen=True)
class Unfit:
    """Which hygiene rule refuses a text, and how."""

    rule: TextRule
    detail: str


@lru_cache(maxsize=1)
def instruction_shingles() -> frozenset[tuple[str, ...]]:
    """Runs of the prompt's own fixed wording: its templates (template code removed) and notes."""
    texts = [
        resources.files("ideaco.mind").joinpath("templates", name).read_text(encoding="utf-8")
        for name in ("system.j2", "conversation.j2", "tools.j2", "answer.j2", "answer_compact.j2")
    ]
    texts += [stamina.YELLOW_NOTE, stamina.RED_NOTE, tasks.NO_TASKS_LINE, *tasks.TASKS_HEADER]
    texts += [tasks.RESOLVE_HINT.format(example="task"), recall.MEMORIES_HEADING]
    texts += [relationships.IMPRESSIONS_HEADING]
    return shingles(re.sub(r"\{[{%#].*?[}%#]\}", " ", "\n".join(texts), flags=re.S), FIXED_SHINGLE)


def answer_format(text: str) -> str | None:
    """The answer format's words or the prompt's marks, copied or reworded (what was copied)."""
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
    found = text_words(text)
    folded = " ".join(found)
    for signature in SIGNATURES:
        if re.search(rf"\b{signature}\b", folded):
            return signature
    fixed = instruction_shingles()
    return next((" ".join(run) for run in windows(found, FIXED_SHINGLE) if run in fixed), None)


def degenerate(text: str, prose: str, code_talk: bool) -> str | None:
    """Why the text is no talk (no word, symbols, a run, markup debris), or None."""
    if not script.has_word(URL.sub(" ", text)):
        return None if script.only_emoji(text) or script.bare_reply(text) else "no word"
    text = URL.sub(" ", prose)
    if code_talk:  # a template's own {{ expression }} or {% tag %}, named as such
        text = _TEMPLATE_CODE.sub(" ", text)
    stripped = "".join(_EMPHASIS.sub(r"\2", script.EMOTICON.sub(" ", text)).split())
    symbols = script.count_symbols(stripped)
    if symbols >= MIN_SYMBOLS and symbols / len(stripped) > MAX_SYMBOLS:
        return f"{symbols} symbols in {len(stripped)} characters"
    run = _RUN.search(text)
    if run:
        return f"a run of {run.group(1)!r}"
    glued = None if code_talk else _GLUED.search(text)
    if glued:
        return f"words glued together {glued.group(0)[:40]!r}"
    left_open = _OPEN_TAG.search(prose.rstrip())
    if left_open:
        return f"markup left open {left_open.group(0)[:40]!r}"
    unit = re.search(r"(\S{1,3}?)\1{4,}", text)
    if unit and not _LETTERS.match(unit.group(1)) and not unit.group(1).isdigit():
        if any(c.isalnum() for c in unit.group(1)):
            return f"{unit.group(1)!r} repeated"
    debris = (
        _DEBRIS.search(text)
        or _BROKEN_TAG.search(text)
        or _ANGLES.search(text)
        or (
            None
            if code_talk
            else _ESCAPES.search(text)
            or _MARKUP.search(text)
            or _VOID_CLOSE.search(text)
            or _BROKEN_OFF.search(prose.strip())
        )
    )
    if debris:
        return f"markup debris {debris.group(0)!r}"
    if script.word_count(text) < 2 and _FRAGMENT.search(text):
        return "a fragment in brackets"
    return None


# A line a weak model broke off before its end, well short of its bound: its last word one that no
# English sentence ends on (an article, a possessive, a coordinating conjunction), or a comma of any
# script. English words only: the small model writes English (a capable model is not held to this).
# (`a` only in small letters: `plan A` ends a sentence.)
DANGLING_WORDS = frozenset("the an my your our their and or but nor".split())
_DANGLING = re.compile(r"(?:\b(?:(?i:" + "|".join(sorted(DANGLING_WORDS)) + r")|a)|[,，、،])\s*$")


def dangling(text: str, prose: str | None = None) -> str | None:
    """Where a line was broken off (`The`, `… and`, `2-50 (active mood),`): its last word or comma
    (`prose`: the text's `quoted_code`, if already found)."""
    found = _DANGLING.search((quoted_code(text) if prose is None else prose).rstrip())
    return found.group(0).strip() if found else None


def debris(text: str, prose: str | None = None) -> Unfit | None:
    """The hygiene rules on the text alone: a template slot left unfilled, or no words, letter runs,
    markup or JSON debris (what a tool's arguments are held to as well: `rules/labels.py`;
    `prose`: the text's `quoted_code`, if already found)."""
    prose = quoted_code(text) if prose is None else prose
    code_talk = talks_code(text, prose)
    prose = _CHECKBOX.sub(" ", prose)
    for pattern in (*_PLACEHOLDERS, *(() if code_talk else _SLOTS_OUTSIDE_CODE_TALK)):
        found = pattern.search(prose)
        if found:
            return Unfit(TextRule.PLACEHOLDER, f"placeholder {found.group(0)[:40]!r}")
    why = degenerate(text, prose, code_talk)
    return Unfit(TextRule.DEGENERATE, why) if why else None


def check(text: str) -> Unfit | None:
    """None when the text is clean of what a small model leaves; else the first rule that refuses it."""
    prose = quoted_code(text)  # its code and data blanked, once for every rule
    unfit = debris(text, prose)
    if unfit is not None:
        return unfit
    echo = answer_format(text)
    if echo:
        return Unfit(TextRule.PROMPT_ECHO, f"repeats the prompt: {echo!r}")
    broken = dangling(text, prose)
    return Unfit(TextRule.UNFINISHED, f"broken off at {broken!r}") if broken else None


def finish(text: str, bound: int) -> str | None:
    """A draft that ran into its length bound, cut back to its last sentence end in any script
    (None: there is none). A draft that stopped short of its bound (or went past it: no bound held
    it) ended where its writer ended it, and is kept whole."""
    if not bound - 1 <= len(text) <= bound:
        return text.strip()
    text = text.strip()
    ends = [m.end() for m in script.SENTENCE_END.finditer(text)]
    return text[: ends[-1]].strip() if ends else None
