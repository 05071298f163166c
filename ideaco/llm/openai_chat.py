"""The base client: chat completions on any OpenAI-compatible endpoint, with the structured-output cascade."""

from __future__ import annotations

import email.utils
import json
import logging
import re
import time
from typing import Any

import openai

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

log = logging.getLogger(__name__)

# Rungs of the cascade, strongest first. An endpoint that refuses one is asked with the next.
CASCADE = ("json_schema", "json_object", "plain")
NO_KEY = "sk-no-key"  # local servers want *some* key; the openai client refuses none
_KEY_LIKE = re.compile(r"\bsk-[A-Za-z0-9_\-*.]{6,}")


LLAMA_REPEAT_PENALTY = 1.3


def llguidance_grammar(schema: dict) -> str:
    """The llama.cpp `grammar` body field that constrains output to compact JSON matching `schema`."""
    # Without this, small models pad the JSON with whitespace until max_tokens cuts it (spec 1.3).
    strict = {**schema, "x-guidance": {"whitespace_flexible": False}}
    return "%llguidance {}\nstart: %json " + json.dumps(strict, ensure_ascii=False)


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
        timeout: float = 120.0,
    ) -> None:
        self.base_url = base_url
        self.llama_grammar = llama_grammar
        self._api_key = api_key
        self._client = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key or NO_KEY, max_retries=0, timeout=timeout
        )
        self._rung = 0  # index into CASCADE this endpoint is known to accept
        self._confirmed = False  # a structured request has succeeded at the current rung

    def __repr__(self) -> str:
        # Never show the key.
        return f"OpenAIChatLLM(base_url={self.base_url!r}, mode={self.structured_mode!r})"

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
                    "%s refused %s (%s); trying %s", self.base_url, CASCADE[rung], exc, CASCADE[rung + 1]
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
            if schema is not None:
                args["extra_body"]["grammar"] = llguidance_grammar(schema)
        elif mode == "json_schema" and schema is not None:
            args["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": request.schema_name, "schema": schema, "strict": False},
            }
        elif mode == "json_object":
            args["response_format"] = {"type": "json_object"}
        return args

    async def _call(self, request: ChatRequest, mode: str) -> ChatResult:
        started = time.perf_counter()
        try:
            response = await self._client.chat.completions.create(**self._arguments(request, mode))
        except openai.APIError as exc:
            # Not chained: the openai error's text holds the raw response body, which a server
            # may fill with the key; a traceback or log.exception would print it.
            raise self._map_error(exc, request) from None
        latency_ms = (time.perf_counter() - started) * 1000.0
        choices = getattr(response, "choices", None) or []
        if not choices:
            raise LLMServerError(f"{self.base_url} returned no choices{_label(request)}")
        # An echoing proxy or a debugging endpoint can put the key in the answer itself; it would
        # then reach the thought log and the recording.
        content = self._scrub_key(choices[0].message.content or "")
        return ChatResult(
            content=content,
            model=getattr(response, "model", None) or request.model,
            usage=_usage(response),
            latency_ms=latency_ms,
            output_mode=mode,
        )

    def _map_error(self, exc: openai.APIError, request: ChatRequest) -> LLMError:
        error = self._classify(exc, request)
        error.args = tuple(self._scrub(str(a)) if isinstance(a, str) else a for a in error.args)
        return error

    def _classify(self, exc: openai.APIError, request: ChatRequest) -> LLMError:
        where = f"{self.base_url}{_label(request)}"
        if isinstance(exc, openai.APITimeoutError):
            return LLMTimeout(f"request to {where} timed out")
        if isinstance(exc, openai.APIConnectionError):
            return LLMConnectionError(f"cannot reach model endpoint {self.base_url}: {_cause(exc)}")
        if isinstance(exc, openai.APIStatusError):
            status = exc.status_code
            detail = self._scrub(_detail(exc))
            if status == 429:
                retry_after = parse_retry_after(exc.response.headers)
                return LLMRateLimited(f"rate limited by {where}: {detail}", retry_after=retry_after)
            if status in (401, 403):
                return LLMAuthError(f"{where} refused the API key (HTTP {status}): {detail}")
            if status >= 500:
                return LLMServerError(f"{where} failed (HTTP {status}): {detail}", status=status)
            return LLMBadRequest(f"{where} rejected the request (HTTP {status}): {detail}", status=status)
        # e.g. an unparseable response body
        return LLMServerError(f"bad response from {where}: {exc.message}")

    def _scrub_key(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text

    def _scrub(self, text: str) -> str:
        """Servers may echo the key (or part of it) in an error: never let it into a message."""
        return _KEY_LIKE.sub("***", self._scrub_key(text))

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


def _usage(response: Any) -> Usage:
    usage = getattr(response, "usage", None)
    prompt = getattr(usage, "prompt_tokens", 0) or 0
    completion = getattr(usage, "completion_tokens", 0) or 0
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None)
    if cached is None:
        # llama.cpp also reports its prompt-cache hits in a non-standard `timings` field.
        extra = getattr(response, "model_extra", None) or {}
        timings = extra.get("timings") if isinstance(extra, dict) else None
        cached = timings.get("cache_n") if isinstance(timings, dict) else None
    return Usage(prompt_tokens=int(prompt), completion_tokens=int(completion), cached_tokens=int(cached or 0))
