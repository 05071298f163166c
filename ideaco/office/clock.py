"""The office's one clock: simulated (virtual time) or real (APScheduler).

Both share one shape: `now()` and `call_at(at, callback)` where the callback is a coroutine
function. The simulated clock runs callbacks one at a time in (time, order of scheduling)
order and jumps straight to the next one, so a run is deterministic whatever order concurrent
model calls return in. The real clock hands the same callbacks to APScheduler, each delay
`speed` times shorter.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Protocol

Callback = Callable[[], Awaitable[None]]


class Clock(Protocol):
    def now(self) -> datetime: ...

    def call_at(self, at: datetime, callback: Callback) -> None: ...

    async def run_until(self, end: datetime, stop: asyncio.Event | None = None) -> None: ...


class SimClock:
    """Virtual time: jumps to the next scheduled event; callbacks run in (time, seq) order."""

    def __init__(self, start: datetime) -> None:
        self._now = start
        self._queue: list[tuple[datetime, int, Callback]] = []
        self._seq = itertools.count()

    def now(self) -> datetime:
        return self._now

    def call_at(self, at: datetime, callback: Callback) -> None:
        heapq.heappush(self._queue, (max(at, self._now), next(self._seq), callback))

    def next_event_at(self) -> datetime | None:
        return self._queue[0][0] if self._queue else None

    async def step(self) -> bool:
        """Run the next event; False when none is left."""
        if not self._queue:
            return False
        at, _, callback = heapq.heappop(self._queue)
        self._now = at
        await callback()
        return True

    async def run_until(self, end: datetime, stop: asyncio.Event | None = None) -> None:
        while self._queue and self._queue[0][0] <= end:
            if stop is not None and stop.is_set():
                return
            await self.step()
        if stop is None or not stop.is_set():
            self._now = max(self._now, end)


class RealClock:
    """Real time through APScheduler's asyncio scheduler, `speed` simulated seconds per second."""

    def __init__(
        self, start: datetime, speed: float = 1.0, *, wall: Callable[[], datetime] | None = None
    ) -> None:
        from apscheduler.schedulers.asyncio import AsyncIOScheduler

        if speed <= 0:
            raise ValueError("speed must be positive")
        self.speed = speed
        self._wall = wall or datetime.now
        self._sim_start = start
        self._wall_start = self._wall()
        self._scheduler = AsyncIOScheduler()
        self._pending: set[asyncio.Task] = set()
        self._errors: list[BaseException] = []

    def now(self) -> datetime:
        elapsed = (self._wall() - self._wall_start).total_seconds()
        return self._sim_start + timedelta(seconds=elapsed * self.speed)

    def wall_time_of(self, at: datetime) -> datetime:
        """When, on the wall clock, simulated moment `at` arrives."""
        return self._wall_start + timedelta(seconds=(at - self._sim_start).total_seconds() / self.speed)

    def call_at(self, at: datetime, callback: Callback) -> None:
        self._scheduler.add_job(
            self._run,
            "date",
            run_date=self.wall_time_of(at),
            args=[callback],
            misfire_grace_time=None,
        )

    async def _run(self, callback: Callback) -> None:
        try:
            await callback()
        except Exception as exc:  # surfaced by run_until, never swallowed
            self._errors.append(exc)

    async def run_until(self, end: datetime, stop: asyncio.Event | None = None) -> None:
        if not self._scheduler.running:
            self._scheduler.start()
        stop = stop or asyncio.Event()
        try:
            while not stop.is_set() and self.now() < end:
                if self._errors:
                    raise self._errors.pop(0)
                remaining = (self.wall_time_of(end) - self._wall()).total_seconds()
                try:
                    await asyncio.wait_for(stop.wait(), timeout=max(0.01, min(remaining, 0.2)))
                except asyncio.TimeoutError:
                    pass
        finally:
            if self._errors:
                raise self._errors.pop(0)

    def shutdown(self) -> None:
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
