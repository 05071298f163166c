"""The base client: chat completions on any OpenAI-compatible endpoint, with the structured-output cascade."""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import math
import re
import time
from typing import Any

import openai

from ideaco import safejson
from ideaco.llm.base import (
    ChatRequest,
    ChatResult,
    LLMAuthError,
    LLMBadRequest,
    LLMConnectionError,
    LLMError,
    LLMRateLimited,
    LLMServerError,
    LLMTimeout,
    Usage,
)
from ideaco.llm.config import DEFAULT_TIMEOUT
from ideaco.redact import Scrubber, redact_headers, redact_url, split_credentials, url_secrets
from ideaco.redact import redact_urls as redact_urls_in

log = logging.getLogger(__name__)

# Rungs of the cascade, strongest first. An endpoint that refuses one is asked with the next.
CASCADE = ("json_schema", "json_object", "plain")
NO_KEY = "sk-no-key"  # local servers want *some* key; the openai client refuses none
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-*.]{6,}")
# A chat completion is kilobytes; a body far beyond that is not one (and is not parsed).
MAX_BODY_BYTES = 8 * 1024 * 1024


LLAMA_REPEAT_PENALTY = 1.3

# What people read, held at its source on the small model (issue 36, item 2). A draft the grammar
# prevents costs nothing; one the office refuses costs a thought. So where the embedded small model
# writes a text people read, its grammar keeps out what it cannot use well (markup and JSON debris:
# `< > { } [ ] | \\`) and wants a letter of any script (`\\p{L}`: Latin, Han, kana, Hangul, Thai,
# Devanagari, Cyrillic...). llguidance reads a JSON-schema `pattern` in Rust's regex syntax, Unicode
# classes included; anchored, since a JSON-schema pattern is a search.
DEBRIS = r"<>{}\[\]|\\"
# Control characters but tab and newline are kept out too: with them in the class, llama.cpp's
# llguidance lets the JSON escape `\\` through whatever the class says (measured: SmolLM2 asked to
# copy a Windows path wrote `and\\Nash` under `[^\\]`, and never once they were out).
TEXT = rf"[^{DEBRIS}\x00-\x08\x0b-\x1f\x7f]"
WORDS = rf"^{TEXT}*\p{{L}}{TEXT}*$"  # at least one letter, no debris
WORDS_OR_NOTHING = rf"^(?:{TEXT}*\p{{L}}{TEXT}*)?$"  # the same, or "" where "" means none
# The texts people read, by their name on the compact wire (mind/thought/compact.py): a message
# (`say`, a DM's `content`), a document (`content`), review `notes`, a rebuttal's `argument`, a
# task's `description`, `result` and `reason`, a memory's `content`, a requirement's `description`
# and a department's `mission`. `say` "" is silence; an `impression` or a summary "" is none.
PROSE_FIELDS = frozenset(
    {"say", "content", "notes", "argument", "description", "result", "reason", "mission"}
)
PROSE_FIELDS |= {"impression", "memorySummary"}
MAY_BE_EMPTY = frozenset({"say", "impression", "memorySummary"})


def hold_prose(node: Any, name: str = "") -> Any:
    """`node` (a JSON schema) with every free string (not an enum) named in PROSE_FIELDS patterned."""
    if isinstance(node, list):
        return [hold_prose(item, name) for item in node]
    if not isinstance(node, dict):
        return node
    if node.get("type") == "string" and "enum" not in node and name in PROSE_FIELDS:
        return node | {"pattern": WORDS_OR_NOTHING if name in MAY_BE_EMPTY else WORDS}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties" and isinstance(value, dict):
            out[key] = {field: hold_prose(child, field) for field, child in value.items()}
        elif key in ("items", "prefixItems", "anyOf"):
            out[key] = hold_prose(value, name)  # an array's items, an alternative: the same field
        else:
            out[key] = value
    return out


# Grammars made, by the schema object they were made of (a thought's schema is made once per context
# and shared, wire.thought_schema): (schema, prose) -> (the schema, kept alive so its id stays its own; grammar).
_GRAMMARS: dict[tuple[int, bool], tuple[dict, str]] = {}


def llguidance_grammar(schema: dict, *, prose: bool = False) -> str:
    """The llama.cpp `grammar` body field that constrains output to compact JSON matching `schema`.

    `prose`: the texts people read held as `hold_prose` says (the embedded small model only)."""
    made = _GRAMMARS.get((id(schema), prose))
    if made is not None and made[0] is schema:
        return made[1]
    # Without this, small models pad the JSON with whitespace until max_tokens cuts it (spec 1.3).
    strict = {**(hold_prose(schema) if prose else schema), "x-guidance": {"whitespace_flexible": False}}
    grammar = "%llguidance {}\nstart: %json " + json.dumps(strict, ensure_ascii=False)
    if len(_GRAMMARS) >= 1024:
        _GRAMMARS.clear()
    _GRAMMARS[(id(schema), prose)] = (schema, grammar)
    return grammar


def parse_retry_after(headers: Any) -> float | None:
    """Seconds to wait from `retry-after-ms` or `Retry-After` (seconds or an HTTP date)."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _mentions_format(error: LLMBadRequest) -> bool:
    text = str(error).lower()
    return any(word in text for word in ("response_format", "json_schema", "json_object", "response format"))


class OpenAIChatLLM:
    """Talks to one endpoint through `openai.AsyncOpenAI`; retries are a wrapper's job, not this one's."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        llama_grammar: bool = False,
        timeout: float = DEFAULT_TIMEOUT,
        no_key_note: str = "",
        hold_prose: bool = False,
    ) -> None:
        self.base_url = base_url
        self.shown_url = redact_url(base_url)  # what messages and logs show: no URL credentials
        self.llama_grammar = llama_grammar
        # The grammar holds the texts people read (`hold_prose`): the embedded small model only. Not
        # part of a request's key (record/replay), as the grammar's other settings are not: it is
        # this client's, the same for every request it sends.
        self.prose = hold_prose and llama_grammar
        self.timeout = timeout
        self._api_key = api_key
        self._no_key_note = no_key_note  # why no key was sent, for a 401's message
        self._secrets = Scrubber([api_key, *url_secrets(base_url)])
        # URL credentials go as the HTTP Basic header they stand for (it replaces the key's Bearer
        # header, as the HTTP client itself would), so no library logs them with the request URL.
        bare_url, basic = split_credentials(base_url)
        self._client = openai.AsyncOpenAI(
            base_url=bare_url,
            api_key=api_key or NO_KEY,
            max_retries=0,
            timeout=timeout,
            default_headers={"Authorization": basic} if basic else None,
        )
        self._rung = 0  # index into CASCADE this endpoint is known to accept
        self._confirmed = False  # a structured request has succeeded at the current rung

    def __repr__(self) -> str:
        # Never show the key.
        return f"OpenAIChatLLM(base_url={self.shown_url!r}, mode={self.structured_mode!r})"

    @property
    def structured_mode(self) -> str:
        """How structured requests are currently sent to this endpoint."""
        return "grammar" if self.llama_grammar else CASCADE[self._rung]

    async def complete(self, request: ChatRequest) -> ChatResult:
        if request.json_schema is None:
            return await self._call(request, "plain")
        if self.llama_grammar:
            return await self._call(request, "grammar")
        rung = self._rung
        while True:
            try:
                result = await self._call(request, CASCADE[rung])
            except LLMBadRequest as exc:
                if rung + 1 >= len(CASCADE):
                    raise
                if _mentions_format(exc):
                    # A definite refusal: never ask this endpoint that way again.
                    self._rung = max(self._rung, rung + 1)
                elif self._confirmed:
                    raise  # this endpoint accepted the mode before: the 400 is about something else
                log.info(
                    "%s refused %s (%s); trying %s", self.shown_url, CASCADE[rung], exc, CASCADE[rung + 1]
                )
                rung += 1
                continue
            if rung > self._rung:
                self._rung = rung
            if rung == self._rung:
                self._confirmed = True
            return result

    def _arguments(self, request: ChatRequest, mode: str) -> dict[str, Any]:
        args: dict[str, Any] = {
            "model": request.model,
            "messages": list(request.messages),
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
        }
        if request.seed is not None:
            args["seed"] = request.seed
        schema = request.json_schema
        if mode == "grammar":
            # llama.cpp only: a repeat penalty stops small models looping inside a string
            # ("1.1.1.1...") until its maxLength, which halved their tokens per thought here.
            args["extra_body"] = {"repeat_penalty": LLAMA_REPEAT_PENALTY}
            if request.slot is not None:  # the slot that holds this employee's prompt prefix
                args["extra_body"]["id_slot"] = request.slot
            if request.fresh:  # the slot holds this very prompt: computed afresh (llm/routing.py)
                args["extra_body"]["cache_prompt"] = False
            if schema is not None:
                args["extra_body"]["grammar"] = llguidance_grammar(schema, prose=self.prose)
        elif mode == "json_schema" and schema is not None:
            # In the body as it is: the SDK's typed `response_format` walks the whole schema at
            # every call to transform it (the same JSON goes out; ~0.2-1 ms of CPU a call saved).
            args["extra_body"] = {
                "response_format": {
                    "type": "json_schema",
                    "json_schema": {"name": request.schema_name, "schema": schema, "strict": False},
                }
            }
        elif mode == "json_object":
            args["extra_body"] = {"response_format": {"type": "json_object"}}
        return args

    async def _call(self, request: ChatRequest, mode: str) -> ChatResult:
        started = time.perf_counter()
        create = self._client.chat.completions.with_raw_response.create
        try:
            # A total deadline: the client's own timeout restarts with every byte received, so an
            # endpoint that dribbles its answer would hold the call far past it.
            raw = await asyncio.wait_for(create(**self._arguments(request, mode)), self.timeout)
            body = raw.http_response.content
        except asyncio.TimeoutError:
            raise LLMTimeout(
                f"request to {self.shown_url}{_label(request)} timed out after {self.timeout:g} s"
            ) from None
        except openai.APIError as exc:
            # Not chained: the openai error's text holds the raw response body, which a server
            # may fill with the key; a traceback or log.exception would print it.
            raise self._map_error(exc, request) from None
        latency_ms = (time.perf_counter() - started) * 1000.0
        content, model, usage = self._read_body(body, request)
        return ChatResult(content=content, model=model, usage=usage, latency_ms=latency_ms)

    def _read_body(self, body: bytes, request: ChatRequest) -> tuple[str, str, Usage]:
        """The answer's content, model and usage from a response body, whatever the body holds.

        Parsed here, not by the openai client: a body with invalid UTF-8 (replaced), nesting
        without bound, the wrong shapes or numbers that are not numbers is an LLMServerError of
        one line, never an exception the run cannot place.
        """
        where = f"{self.shown_url}{_label(request)}"
        if len(body) > MAX_BODY_BYTES:
            raise LLMServerError(f"bad response from {where}: a body of {len(body)} bytes is not an answer")
        try:
            data = safejson.loads(body)
        except ValueError as exc:
            raise LLMServerError(f"bad response from {where}: not a JSON answer ({_short(exc)})") from None
        choices = data.get("choices") if isinstance(data, dict) else None
        if not isinstance(choices, list) or not choices:
            raise LLMServerError(f"{where} returned no choices")
        message = choices[0].get("message") if isinstance(choices[0], dict) else None
        if not isinstance(message, dict):
            raise LLMServerError(f"bad response from {where}: choices[0] holds no message")
        content = message.get("content")
        if content is None:
            content = ""
        elif not isinstance(content, str):  # a list of parts, an object: the model's text as JSON
            content = json.dumps(content, ensure_ascii=False)
        model = data.get("model")
        model = model if isinstance(model, str) and model else request.model
        # An echoing proxy or a debugging endpoint can put the key in the answer itself; it would
        # then reach the thought log and the recording.
        return self._scrub_key(content), self._scrub_key(model), _usage(data)

    def _map_error(self, exc: openai.APIError, request: ChatRequest) -> LLMError:
        error = self._classify(exc, request)
        error.args = tuple(self._scrub(str(a)) if isinstance(a, str) else a for a in error.args)
        return error

    def _classify(self, exc: openai.APIError, request: ChatRequest) -> LLMError:
        where = f"{self.shown_url}{_label(request)}"
        if isinstance(exc, openai.APITimeoutError):
            return LLMTimeout(f"request to {where} timed out")
        if isinstance(exc, openai.APIConnectionError):
            return LLMConnectionError(f"cannot reach model endpoint {self.shown_url}: {_cause(exc)}")
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = self._scrub(_detail(exc))
            if status == 429:
                retry_after = parse_retry_after(exc.response.headers)
                return LLMRateLimited(f"rate limited by {where}: {detail}", retry_after=retry_after)
            if status in (401, 403):
                if self._api_key is None and self._no_key_note:
                    return LLMAuthError(
                        f"{where} refused the request (HTTP {status}): {detail}; {self._no_key_note}"
                    )
                return LLMAuthError(f"{where} refused the API key (HTTP {status}): {detail}")
            if status >= 500:
                return LLMServerError(f"{where} failed (HTTP {status}): {detail}", status=status)
            return LLMBadRequest(f"{where} rejected the request (HTTP {status}): {detail}", status=status)
        # e.g. an unparseable response body
        return LLMServerError(f"bad response from {where}: {exc.message}")

    def _scrub_key(self, text: str) -> str:
        """Whole occurrences of the key (and URL credentials) replaced; a key too short to be one is not."""
        return self._secrets(text)

    def _scrub(self, text: str) -> str:
        """Servers may echo the key (or part of it), or the headers they got, in an error: never let
        them into a message. Known secrets first (whole), then any credential header or token."""
        return _KEY_LIKE.sub("***", redact_headers(self._scrub_key(redact_urls_in(text))))

    async def aclose(self) -> None:
        await self._client.close()


def _label(request: ChatRequest) -> str:
    return f" ({request.tag})" if request.tag else ""


def _cause(exc: BaseException) -> str:
    cause = exc.__cause__ or exc.__context__
    return str(cause or exc) or type(cause or exc).__name__


def _detail(exc: openai.APIStatusError) -> str:
    """A short server message: the error body's `message` when there is one."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])[:300]
        if isinstance(inner, str):
            return inner[:300]
    return str(exc.message)[:300]


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 120 else text[:117] + "..."


def _count(value: Any) -> int | None:
    """A token count as reported, or None if it is not a sensible one (a string, NaN, negative...)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return int(value) if 0 <= value < 2**53 else None


def _field(mapping: Any, name: str) -> Any:
    return mapping.get(name) if isinstance(mapping, dict) else None


def _usage(data: dict) -> Usage:
    usage = _field(data, "usage")
    prompt = _count(_field(usage, "prompt_tokens")) or 0
    completion = _count(_field(usage, "completion_tokens")) or 0
    cached = _count(_field(_field(usage, "prompt_tokens_details"), "cached_tokens"))
    if cached is None:
        # llama.cpp also reports its prompt-cache hits in a non-standard `timings` field.
        cached = _count(_field(_field(data, "timings"), "cache_n"))
    return Usage(prompt_tokens=prompt, completion_tokens=completion, cached_tokens=cached or 0)
