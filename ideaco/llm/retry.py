"""Retries with exponential backoff and jitter on transient failures (429, 5xx, timeouts, refused)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt
from tenacity.wait import wait_exponential_jitter

from ideaco.llm.base import LLM, ChatRequest, ChatResult, LLMError, LLMRateLimited

log = logging.getLogger(__name__)

RETRYABLE = frozenset({"connection", "timeout", "rate_limit", "server"})


def is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, LLMError) and exc.kind in RETRYABLE


class RetryingLLM:
    """Retries transient LLMErrors; after `attempts` tries re-raises the last one unchanged."""

    def __init__(
        self,
        inner: LLM,
        attempts: int = 4,
        base_delay: float = 1.0,
        max_delay: float = 30.0,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.inner = inner
        self.attempts = attempts
        self.max_delay = max_delay
        self._sleep = sleep
        self._backoff = wait_exponential_jitter(initial=base_delay, max=max_delay, jitter=base_delay)

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, LLMRateLimited) and exc.retry_after is not None:
            # The server said when to come back; a silly value is capped, not trusted.
            return min(exc.retry_after, self.max_delay * 2)
        return self._backoff(state)

    def _before_sleep(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        # info, not warning: an unconfigured root logger would print warnings over the terminal UI
        log.info("attempt %d failed (%s); retrying in %.1fs", state.attempt_number, exc, wait)

    async def complete(self, request: ChatRequest) -> ChatResult:
        retrying = AsyncRetrying(
            sleep=self._sleep,
            stop=stop_after_attempt(self.attempts),
            wait=self._wait,
            retry=retry_if_exception(is_retryable),
            before_sleep=self._before_sleep,
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                return await self.inner.complete(request)
        raise AssertionError("unreachable: tenacity either returns or re-raises")  # pragma: no cover

    async def aclose(self) -> None:
        await self.inner.aclose()
