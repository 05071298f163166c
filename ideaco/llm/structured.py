"""The parse side of the structured-output cascade: tolerant JSON parsing and one repair turn."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import pydantic

from ideaco import safejson
from ideaco.llm.base import LLM, ChatRequest, ChatResult, LLMError, Usage

T = TypeVar("T")

REPAIR_PROMPT = "Your answer was not valid: {error}. Reply again with only the corrected JSON object."
MAX_ERROR_CHARS = 300
# A thought is a few kilobytes; an answer a thousand times that is not one, whatever it holds.
MAX_ANSWER_CHARS = 1_000_000

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)


def parse_json_lenient(text: str) -> dict:
    """The first JSON object in `text`, amid code fences or prose; ValueError with a short reason if none.

    Tolerated: ``` fences, prose before/after, trailing commas, garbage after the object.
    Not tolerated (the caller should ask for a repair): a truncated object, broken syntax.
    """
    if not text or not text.strip():
        raise ValueError("empty answer")
    if len(text) > MAX_ANSWER_CHARS:
        raise ValueError(f"answer too long ({len(text)} characters; a thought is a few thousand)")
    try:  # the common case (a constrained model): the whole answer is the object
        whole = safejson.loads(text)
        if isinstance(whole, dict):
            return whole
    except safejson.Unsafe:
        raise  # the same object found again below would fail the same way
    except ValueError:
        pass

    # Fenced blocks first: prose around them may hold braces of its own.
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    reason = "no JSON object found"
    for candidate in candidates:
        found, why = _first_object(candidate)
        if found is not None:
            return found
        if why is not None and reason == "no JSON object found":
            reason = why
    raise ValueError(reason)


def _first_object(text: str) -> tuple[dict | None, str | None]:
    """Try each top-level `{...}` span in order; returns (object, None) or (None, why not)."""
    why: str | None = None
    start = text.find("{")
    while start != -1:
        end = _matching_brace(text, start)
        if end is None:
            return None, why or "truncated JSON: the object is never closed"
        span = text[start : end + 1]
        for attempt in (span, _drop_trailing_commas(span)):
            try:
                value = safejson.loads(attempt)
            except json.JSONDecodeError as exc:
                why = why or f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
                continue
            except safejson.Unsafe as exc:  # too deep, NaN or Infinity: not an answer, however repaired
                why = why or str(exc)
                continue
            if isinstance(value, dict):
                return value, None
        # Skip past this span: an object nested in a broken one is not the answer.
        start = text.find("{", end + 1)
    return None, why


def _matching_brace(text: str, start: int) -> int | None:
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index  # a mismatched closer makes json.loads report the syntax error
    return None


_WHITESPACE = frozenset(" \t\r\n")


def _drop_trailing_commas(text: str) -> str:
    """`{"a": 1,}` -> `{"a": 1}`: one pass, linear however many commas the text holds."""
    out: list[str] = []
    in_string = False
    escaped = False
    pending_comma = -1  # index in `out` of a comma outside strings not yet followed by a value
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char in _WHITESPACE:
            out.append(char)
            continue
        elif char in "}]" and pending_comma >= 0:
            out[pending_comma] = ""  # blanked, not deleted: O(1) however many there are
        elif char == '"':
            in_string = True
        pending_comma = len(out) if char == "," and not in_string else -1
        out.append(char)
    return "".join(out)


def short_error(exc: BaseException) -> str:
    """One line the model (and a log reader) can act on."""
    if isinstance(exc, pydantic.ValidationError):
        parts = []
        for error in exc.errors()[:3]:
            where = ".".join(str(p) for p in error.get("loc", ())) or "answer"
            parts.append(f"{where}: {error.get('msg', 'invalid')}")
        more = exc.error_count() - len(parts)
        text = "; ".join(parts) + (f"; and {more} more" if more > 0 else "")
    else:
        text = str(exc) or type(exc).__name__
    text = " ".join(text.split())
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 3] + "..."


@dataclass
class StructuredAnswer(Generic[T]):
    """A validated object (or None with `error`), the raw text it came from, and every call made."""

    value: T | None
    raw: str
    corrections: list[str] = field(default_factory=list)
    results: list[ChatResult] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.value is not None

    @property
    def usage(self) -> Usage:
        """Usage summed over the first call and the repair."""
        return Usage(
            prompt_tokens=sum(r.usage.prompt_tokens for r in self.results),
            completion_tokens=sum(r.usage.completion_tokens for r in self.results),
            cached_tokens=sum(r.usage.cached_tokens for r in self.results),
        )

    @property
    def latency_ms(self) -> float:
        return sum(r.latency_ms for r in self.results)


def _parse_and_validate(raw: str, validate: Callable[[dict], tuple[T, list[str]]]) -> tuple[T, list[str]]:
    data = parse_json_lenient(raw)
    try:
        value, corrections = validate(data)
    except ValueError:
        raise
    except Exception as exc:  # noqa: BLE001 - any answer at all is data: a logged invalid thought
        raise ValueError(f"the answer could not be read ({type(exc).__name__})") from None
    return value, list(corrections)


async def ask_structured(
    llm: LLM,
    request: ChatRequest,
    validate: Callable[[dict], tuple[T, list[str]]],
) -> StructuredAnswer[T]:
    """Ask, parse tolerantly, validate; on failure make exactly one repair turn.

    LLMError propagates; if the repair turn raised it, its `spent` holds the first call.
    """
    first = await llm.complete(request)
    try:
        value, corrections = _parse_and_validate(first.content, validate)
        return StructuredAnswer(value=value, raw=first.content, corrections=corrections, results=[first])
    except ValueError as exc:  # includes pydantic.ValidationError
        problem = short_error(exc)

    repair = request.with_messages(
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": REPAIR_PROMPT.format(error=problem)},
        tag=f"{request.tag} (repair)" if request.tag else "repair",
    )
    notes = [f"repair: {problem}"]
    try:
        second = await llm.complete(repair)
    except LLMError as exc:
        # The first call was made (and paid for): the caller must still count it.
        exc.spent = (first,)
        raise
    try:
        value, corrections = _parse_and_validate(second.content, validate)
    except ValueError as exc:
        return StructuredAnswer(
            value=None,
            raw=second.content,
            corrections=notes,
            results=[first, second],
            error=f"invalid after repair: {short_error(exc)}",
        )
    return StructuredAnswer(
        value=value, raw=second.content, corrections=notes + corrections, results=[first, second]
    )
