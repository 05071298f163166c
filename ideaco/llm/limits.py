"""Shared limits across all employees: a concurrency cap and a requests-per-second rate."""

from __future__ import annotations

import asyncio

from aiolimiter import AsyncLimiter

from ideaco.llm.base import LLM, ChatRequest, ChatResult


class LimitedLLM:
    """At most `concurrency` calls in flight, and at most `requests_per_second` started per second."""

    def __init__(self, inner: LLM, concurrency: int, requests_per_second: float | None = None) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if requests_per_second is not None and requests_per_second <= 0:
            raise ValueError("requests_per_second must be positive")
        self.inner = inner
        self.concurrency = concurrency
        self.requests_per_second = requests_per_second
        self._semaphore = asyncio.Semaphore(concurrency)
        self._limiter: AsyncLimiter | None = None
        if requests_per_second is not None:
            # A bucket must hold at least one request: below 1/s, stretch the period instead.
            if requests_per_second >= 1:
                self._limiter = AsyncLimiter(requests_per_second, 1.0)
            else:
                self._limiter = AsyncLimiter(1, 1.0 / requests_per_second)

    async def complete(self, request: ChatRequest) -> ChatResult:
        async with self._semaphore:
            if self._limiter is not None:
                await self._limiter.acquire()
            return await self.inner.complete(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
