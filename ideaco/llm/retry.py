"""Retries with exponential backoff and jitter on transient failures (429, 5xx, timeouts, refused)."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable

from tenacity import AsyncRetrying, RetryCallState, retry_if_exception, stop_after_attempt

from ideaco.llm.base import LLM, ChatRequest, ChatResult, LLMError, LLMRateLimited
from ideaco.llm.config import DEFAULT_RETRY_ATTEMPTS, DEFAULT_RETRY_DELAY

log = logging.getLogger(__name__)

RETRYABLE = frozenset({"connection", "timeout", "rate_limit", "server"})


def is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, LLMError) and exc.kind in RETRYABLE


async def backoff_sleep(seconds: float) -> None:
    """How a RetryingLLM built without `sleep` waits; looked up at each wait, so a test can swap it."""
    await asyncio.sleep(seconds)


async def _default_sleep(seconds: float) -> None:
    await backoff_sleep(seconds)  # the module attribute at call time (see backoff_sleep)


class RetryingLLM:
    """Retries transient LLMErrors; after `attempts` tries re-raises the last one unchanged."""

    def __init__(
        self,
        inner: LLM,
        attempts: int = DEFAULT_RETRY_ATTEMPTS,
        base_delay: float = DEFAULT_RETRY_DELAY,
        max_delay: float = 30.0,
        sleep: Callable[[float], Awaitable[None]] | None = None,
        before_attempt: Callable[[], None] | None = None,
    ) -> None:
        if attempts < 1:
            raise ValueError("attempts must be at least 1")
        self.inner = inner
        self.attempts = attempts
        self.max_delay = max_delay
        self._sleep = sleep
        self.base_delay = base_delay
        self.before_attempt = before_attempt  # each request about to go out (the budget counts it)

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, LLMRateLimited) and exc.retry_after is not None:
            # The server said when to come back; a silly value is capped, not trusted.
            return min(exc.retry_after, self.max_delay * 2)
        # Exponential with up to one base delay of jitter (tenacity's wait_exponential_jitter,
        # whose `initial` argument newer releases deprecate and older ones need).
        exponential = self.base_delay * 2 ** (state.attempt_number - 1)
        return min(exponential + random.uniform(0, self.base_delay), self.max_delay)

    def _before_sleep(self, state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        wait = state.next_action.sleep if state.next_action else 0.0
        # info, not warning: an unconfigured root logger would print warnings over the terminal UI
        log.info("attempt %d failed (%s); retrying in %.1fs", state.attempt_number, exc, wait)

    async def complete(self, request: ChatRequest) -> ChatResult:
        retrying = AsyncRetrying(
            sleep=self._sleep or _default_sleep,
            stop=stop_after_attempt(self.attempts),
            wait=self._wait,
            retry=retry_if_exception(is_retryable),
            before_sleep=self._before_sleep,
            reraise=True,
        )
        async for attempt in retrying:
            with attempt:
                if self.before_attempt is not None:
                    self.before_attempt()
                return await self.inner.complete(request)
        raise AssertionError("unreachable: tenacity either returns or re-raises")  # pragma: no cover

    async def aclose(self) -> None:
        await self.inner.aclose()
