"""The one policy: a text a person will read, judged by the guarantees, then (under `strict`) by
small-model hygiene; the verdict says which rule refused it and of which kind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial

from ideaco.cycle import TextRule
from ideaco.mind.prompt import EngineText
from ideaco.office.rules.text import guarantees, hygiene

STRICT = "strict"  # guarantees and small-model hygiene (the embedded model's default)
STANDARD = "standard"  # the guarantees only (an endpoint's default)
FILTERS = (STRICT, STANDARD)
GUARANTEE = "guarantee"  # a rule of the guarantees: every model
HYGIENE = "hygiene"  # a rule of small-model hygiene: `strict` only


@dataclass(frozen=True)
class TextVerdict:
    """Why a text may not be shown: its rule, its kind (`GUARANTEE` or `HYGIENE`), the detail."""

    rule: TextRule
    detail: str
    kind: str = HYGIENE


def default_filters(embedded: bool) -> str:
    """`strict` for the embedded model (a small one), `standard` for an endpoint."""
    return STRICT if embedded else STANDARD


def check_filters(value: str) -> str:
    """The setting as given, or ValueError saying what it may be."""
    if value not in FILTERS:
        raise ValueError(f"filters {value!r}: expected strict or standard")
    return value


def check(
    text: str,
    *,
    filters: str = STRICT,
    inner_thoughts: str = "",
    prompt: EngineText | None = None,
) -> TextVerdict | None:
    """None when the text may be shown; else the first rule that refuses it, guarantees first.

    `prompt` is what the engine wrote into the prompt the text answers (`mind.prompt.engine_text`):
    a run of it copied is an echo; `inner_thoughts`, the thought's private text, must not be posted.
    """
    broken = guarantees.check(text, inner_thoughts=inner_thoughts, prompt=prompt)
    if broken is not None:
        return TextVerdict(broken.rule, broken.detail, GUARANTEE)
    if filters != STRICT:
        return None
    unfit = hygiene.check(text)
    return TextVerdict(unfit.rule, unfit.detail, HYGIENE) if unfit is not None else None


def problem(text: str, filters: str = STRICT, prompt: EngineText | None = None) -> str | None:
    """Why a text people will read (a document, a review note, a task's words) cannot be shown, in
    words its writer reads, e.g. "markup debris '}}'" (None: it can)."""
    verdict = check(text, filters=filters, prompt=prompt)
    if verdict is None:
        return None
    if verdict.rule is TextRule.PROMPT_ECHO:
        return "words copied from your instructions: " + verdict.detail.removeprefix("repeats the prompt: ")
    if verdict.rule is TextRule.PLACEHOLDER:
        return "a template slot left unfilled: " + verdict.detail.removeprefix("placeholder ")
    if verdict.rule is TextRule.LEAKED_THOUGHT:
        return "your private thought in it"
    return verdict.detail


@lru_cache(maxsize=len(FILTERS))
def problem_for(filters: str) -> Callable[[str], str | None]:
    """`problem` under one setting, as the mind's rules take it (`mind/apply.ThoughtFacts`)."""
    return partial(problem, filters=filters)
