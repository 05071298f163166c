"""Shared limits across all employees: a concurrency cap and a requests-per-second rate.

The cap hands its permits to calls someone is waiting for first: a tentative call (made ahead
of its moment, `llm/tentative.py`) waits behind them. `Flight` counts what the cap let through:
calls sent, the peak in flight, and call-seconds (the mean in flight over a stretch of wall time).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import Any

from aiolimiter import AsyncLimiter

from ideaco.llm import tentative
from ideaco.llm.base import LLM, ChatRequest, ChatResult


class Flight:
    """Calls in flight now, at most, and in all (call-seconds of wall time)."""

    def __init__(self) -> None:
        self.sent = 0
        self.tokens = 0  # prompt + completion tokens of the calls that answered
        self.now = 0
        self.peak = 0
        self._busy = 0.0
        self._since = time.perf_counter()

    def _tick(self, delta: int) -> None:
        at = time.perf_counter()
        self._busy += self.now * (at - self._since)
        self._since, self.now = at, self.now + delta
        self.peak = max(self.peak, self.now)

    def begin(self) -> None:
        self.sent += 1
        self._tick(+1)

    def end(self, result: ChatResult | None = None) -> None:
        self._tick(-1)
        if result is not None:
            self.tokens += result.usage.total_tokens

    def busy_seconds(self) -> float:
        """Call-seconds so far: divided by a stretch of wall time, the mean in flight over it."""
        self._tick(0)
        return self._busy

    def to_dict(self, wall_s: float) -> dict[str, Any]:
        mean = self.busy_seconds() / wall_s if wall_s > 0 else 0.0
        return {"sent": self.sent, "tokens": self.tokens, "mean": round(mean, 2), "peak": self.peak}


class Permits:
    """A semaphore whose waiters are served in two queues: calls awaited now, then tentative ones."""

    def __init__(self, n: int) -> None:
        self.free = n
        self._waiting: dict[bool, deque[asyncio.Future[None]]] = {False: deque(), True: deque()}

    async def acquire(self, tentative_call: bool) -> None:
        ahead = self._waiting[False] or (tentative_call and self._waiting[True])
        if self.free > 0 and not ahead:
            self.free -= 1
            return
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[tentative_call].append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():
                self.release()  # handed a permit as it was cancelled: pass it on
            else:
                self._waiting[tentative_call].remove(waiter)
            raise

    def release(self) -> None:
        for queue in (self._waiting[False], self._waiting[True]):
            while queue:
                waiter = queue.popleft()
                if not waiter.done():
                    waiter.set_result(None)
                    return
        self.free += 1


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
        self._permits = Permits(concurrency)
        self.flight = Flight()
        self._limiter: AsyncLimiter | None = None
        if requests_per_second is not None:
            # A bucket must hold at least one request: below 1/s, stretch the period instead.
            if requests_per_second >= 1:
                self._limiter = AsyncLimiter(requests_per_second, 1.0)
            else:
                self._limiter = AsyncLimiter(1, 1.0 / requests_per_second)

    async def complete(self, request: ChatRequest) -> ChatResult:
        await self._permits.acquire(tentative.current() is not None)
        try:
            if self._limiter is not None:
                await self._limiter.acquire()
            self.flight.begin()
            result = None
            try:
                result = await self.inner.complete(request)
                return result
            finally:
                self.flight.end(result)
        finally:
            self._permits.release()

    async def aclose(self) -> None:
        await self.inner.aclose()
