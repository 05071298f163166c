"""An in-process scripted LLM (no HTTP), for tests of code that takes an `ideaco.llm.LLM`.

    llm = ScriptedLLM(["plain text", {"shouldSpeak": True}, LLMServerError("boom", status=503)])
    result = await llm.complete(request)      # -> ChatResult(content="plain text", ...)
    llm.requests                              # every ChatRequest received, in order

Script items: ``str`` (content), ``dict``/``list`` (compact JSON content), a ``ChatResult`` (returned
as is), an exception instance (raised), or a callable ``(ChatRequest) -> item``. After the script,
``handler`` then ``default`` are used; with neither, AssertionError("script exhausted").
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from ideaco.llm.base import ChatRequest, ChatResult, Usage

__all__ = ["ScriptedLLM"]

DEFAULT_USAGE = Usage(prompt_tokens=10, completion_tokens=5)


class ScriptedLLM:
    """Implements the LLM protocol from a script; counts calls and concurrency."""

    def __init__(
        self,
        script: Iterable[Any] = (),
        *,
        handler: Callable[[ChatRequest], Any] | None = None,
        default: Any = None,
        usage: Usage = DEFAULT_USAGE,
        delay: float = 0.0,
    ) -> None:
        self._script: deque[Any] = deque(script)
        self.handler = handler
        self.default = default
        self.usage = usage
        self.delay = delay  # simulated latency per call, seconds
        self.requests: list[ChatRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.closed = False

    def push(self, *items: Any) -> None:
        self._script.extend(items)

    async def complete(self, request: ChatRequest) -> ChatResult:
        self.requests.append(request)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            item = self._next(request)
            while callable(item) and not isinstance(item, (ChatResult, BaseException)):
                item = item(request)
            if isinstance(item, BaseException):
                raise item
            if isinstance(item, ChatResult):
                return item
            if isinstance(item, (dict, list)):
                item = json.dumps(item, separators=(",", ":"))
            return ChatResult(
                content=str(item),
                model=request.model,
                usage=self.usage,
                latency_ms=1.0,
            )
        finally:
            self.in_flight -= 1

    def _next(self, request: ChatRequest) -> Any:
        if self._script:
            return self._script.popleft()
        if self.handler is not None:
            return self.handler(request)
        if self.default is not None:
            return self.default
        raise AssertionError(f"ScriptedLLM: script exhausted at request {len(self.requests)} ({request.tag})")

    async def aclose(self) -> None:
        self.closed = True
