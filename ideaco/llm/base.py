"""The one interface every model client and wrapper implements, and the errors they raise."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable


@dataclass(frozen=True)
class ChatRequest:
    """One chat-completion call: what to send, and how the answer should be shaped."""

    messages: tuple[dict, ...]
    model: str
    max_tokens: int = 700
    temperature: float = 0.8
    json_schema: dict | None = None
    schema_name: str = "thought"
    seed: int | None = None
    tag: str = ""
    # Whose prompt prefix this is (an employee id): a local server keeps one cache slot per key.
    # Neither changes the answer's key (record/replay): they only say where to compute it.
    cache_key: str = ""
    slot: int | None = None  # the llama.cpp slot chosen for cache_key (set by the router)
    # The slot holds this very prompt already: compute it afresh (set by the router, routing.py).
    fresh: bool = False

    def __post_init__(self) -> None:
        # Callers naturally build lists; a tuple keeps the request immutable.
        if not isinstance(self.messages, tuple):
            object.__setattr__(self, "messages", tuple(self.messages))

    def key(self) -> str:
        """Stable sha256 of everything that shapes the answer (not the tag), for record/replay."""
        payload = {
            "model": self.model,
            "messages": list(self.messages),
            "json_schema": self.json_schema,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "seed": self.seed,
        }
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def with_messages(self, *extra: dict, tag: str | None = None) -> ChatRequest:
        """A copy with messages appended (used by the repair turn)."""
        return replace(self, messages=self.messages + tuple(extra), tag=self.tag if tag is None else tag)


@dataclass(frozen=True)
class Usage:
    """Token counts reported by the endpoint (cached_tokens is part of prompt_tokens)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cached_tokens": self.cached_tokens,
        }


@dataclass(frozen=True)
class ChatResult:
    """The assistant message content plus what the call cost."""

    content: str
    model: str
    usage: Usage = field(default_factory=Usage)
    latency_ms: float = 0.0


@runtime_checkable
class LLM(Protocol):
    """Anything that answers chat requests: a real client or a wrapper around one."""

    async def complete(self, request: ChatRequest) -> ChatResult: ...

    async def aclose(self) -> None: ...


class LLMError(Exception):
    """A model call failed; `kind` says how, so callers and wrappers can decide what to do.

    `spent` holds the calls that did succeed before it within the same ask (a repair turn that
    failed after its first call), so their usage is still counted.
    """

    kind: str = "error"
    spent: tuple[ChatResult, ...] = ()


class LLMConnectionError(LLMError):
    kind = "connection"


class LLMTimeout(LLMError):
    kind = "timeout"


class LLMRateLimited(LLMError):
    kind = "rate_limit"

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class LLMServerError(LLMError):
    kind = "server"

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class LLMBadRequest(LLMError):
    kind = "bad_request"

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class LLMAuthError(LLMError):
    kind = "auth"


class BudgetExhausted(LLMError):
    """The run-wide budget is spent; the message names the limit, e.g. "--max-calls 50 reached"."""

    kind = "budget"


class ReplayMiss(LLMError):
    """A replayed run asked for something the recording does not hold."""

    kind = "replay_miss"
