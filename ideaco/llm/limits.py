"""Shared limits across all employees: a concurrency cap, and a rate of requests sent.

The cap hands its permits to calls someone is waiting for first: a tentative call (made ahead
of its moment, `llm/tentative.py`) waits behind them. `Flight` counts what the cap let through:
calls sent, the peak in flight, and call-seconds (the mean in flight over a stretch of wall time).
`PacedLLM` starts requests at least 1/rate apart (`--rate 60/min`, `IDEACO_RATE`): no burst, so a
provider's requests-per-minute limit holds over any window; it sits inside the retries, so a retry
is paced like any request.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

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
    """At most `concurrency` calls in flight."""

    def __init__(self, inner: LLM, concurrency: int) -> None:
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        self.inner = inner
        self.concurrency = concurrency
        self._permits = Permits(concurrency)
        self.flight = Flight()

    async def complete(self, request: ChatRequest) -> ChatResult:
        return await self.call(request, self.flight)

    async def call(self, request: ChatRequest, flight: Flight | None) -> ChatResult:
        """`request` under the cap, counted in `flight` (None: a call that is not the run's)."""
        await self._permits.acquire(tentative.current() is not None)
        try:
            if flight is None:
                return await self.inner.complete(request)
            flight.begin()
            result = None
            try:
                result = await self.inner.complete(request)
                return result
            finally:
                flight.end(result)
        finally:
            self._permits.release()

    def uncounted(self) -> LLM:
        """The same cap for calls that are not the run's (an interview): `flight` does not count them."""
        return _Uncounted(self)

    async def aclose(self) -> None:
        await self.inner.aclose()


class _Uncounted:
    """A LimitedLLM's cap, its calls left out of the run's counts."""

    def __init__(self, limited: LimitedLLM) -> None:
        self.inner = limited

    async def complete(self, request: ChatRequest) -> ChatResult:
        return await self.inner.call(request, None)

    async def aclose(self) -> None:
        return None  # the stack closes the client


RATE_UNITS = {"s": 1.0, "sec": 1.0, "min": 60.0, "h": 3600.0}
_RATE = re.compile(r"\s*(?P<n>[0-9]+(?:\.[0-9]+)?)\s*/\s*(?P<unit>[a-z]+)\s*")  # ASCII digits only


def parse_rate(text: str) -> float:
    """Requests per second from `N/s`, `N/min` or `N/h` (e.g. `60/min` is 1.0)."""
    match = _RATE.fullmatch(text.lower())
    if match is None or match.group("unit") not in RATE_UNITS:
        raise ValueError(f"rate {text!r}: expected requests per unit of time, e.g. 60/min, 2/s or 500/h")
    if float(match.group("n")) <= 0:
        raise ValueError(f"rate {text!r}: must be more than 0 requests (leave --rate out for no limit)")
    return float(match.group("n")) / RATE_UNITS[match.group("unit")]


class Pacer:
    """Hands out start times at least `interval` seconds apart; `clock` and `sleep` are injectable."""

    def __init__(
        self,
        requests_per_second: float,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if requests_per_second <= 0:
            raise ValueError("requests_per_second must be positive")
        self.interval = 1.0 / requests_per_second
        self._clock = clock
        self._sleep = sleep
        self._next = float("-inf")  # the earliest start of the next request

    async def wait(self) -> None:
        """Return at the next free start time, reserving it (callers are served in arrival order)."""
        now = self._clock()
        start = max(now, self._next)
        self._next = start + self.interval
        if start > now:
            await self._sleep(start - now)


class PacedLLM:
    """Each request starts at the pacer's next free time."""

    def __init__(self, inner: LLM, pacer: Pacer) -> None:
        self.inner = inner
        self.pacer = pacer

    async def complete(self, request: ChatRequest) -> ChatResult:
        await self.pacer.wait()
        return await self.inner.complete(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
