"""The office's one clock: simulated (virtual time) or real (APScheduler).

Both share one shape: `now()` and `call_at(at, callback)` where the callback is a coroutine
function. The simulated clock runs callbacks one at a time in (time, order of scheduling)
order and jumps straight to the next one, so a run is deterministic whatever order concurrent
model calls return in. The real clock hands the same callbacks to APScheduler, each delay
`speed` times shorter.

Both can be paused (`pause()` / `resume()`, e.g. by the boss chat): while paused, simulated
time stands still and no callback runs; what is scheduled keeps its simulated moment.
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
    """What the office, the API and the boss chat use of a clock."""

    def now(self) -> datetime: ...

    def call_at(self, at: datetime, callback: Callback) -> None:
        """Run `callback` (a coroutine function) at simulated moment `at` (now, if that is past)."""
        ...

    async def run_until(self, end: datetime, stop: asyncio.Event | None = None) -> None: ...

    async def step(self) -> bool:
        """Run the next scheduled callback; False when none is left (or the clock is paused)."""
        ...

    def next_event_at(self) -> datetime | None: ...

    @property
    def paused(self) -> bool: ...

    def pause(self) -> None: ...

    def resume(self) -> None: ...

    def close(self) -> None:
        """Stop for good (a real clock's scheduler); nothing runs after it."""
        ...


class SimClock:
    """Virtual time: jumps to the next scheduled event; callbacks run in (time, seq) order."""

    def __init__(self, start: datetime) -> None:
        self._now = start
        self._queue: list[tuple[datetime, int, Callback]] = []
        self._seq = itertools.count()
        self._paused = False

    def now(self) -> datetime:
        return self._now

    @property
    def paused(self) -> bool:
        return self._paused

    def pause(self) -> None:
        """Stop time: `step()` and `run_until()` do nothing until `resume()`."""
        self._paused = True

    def resume(self) -> None:
        self._paused = False

    def call_at(self, at: datetime, callback: Callback) -> None:
        heapq.heappush(self._queue, (max(at, self._now), next(self._seq), callback))

    def next_event_at(self) -> datetime | None:
        return self._queue[0][0] if self._queue else None

    async def step(self) -> bool:
        """Run the next event; False when none is left (or the clock is paused)."""
        if not self._queue or self._paused:
            return False
        at, _, callback = heapq.heappop(self._queue)
        self._now = at
        await callback()
        return True

    async def run_until(self, end: datetime, stop: asyncio.Event | None = None) -> None:
        if self._paused:
            return
        while self._queue and self._queue[0][0] <= end:
            if stop is not None and stop.is_set():
                return
            await self.step()
        if stop is None or not stop.is_set():
            self._now = max(self._now, end)

    def close(self) -> None:
        self._queue.clear()


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
        self._errors: list[BaseException] = []
        self._paused_at: datetime | None = None  # the simulated moment time stopped at
        self._held: list[tuple[datetime, Callback]] = []  # jobs taken off the scheduler by pause()

    @property
    def paused(self) -> bool:
        return self._paused_at is not None

    def pause(self) -> None:
        """Stop simulated time; the scheduler's jobs are held and come back with `resume()`."""
        if self._paused_at is not None:
            return
        self._paused_at = self.now()
        for job in self._scheduler.get_jobs():
            callback, at = job.args
            self._held.append((at, callback))
            job.remove()

    def resume(self) -> None:
        """Simulated time goes on from where it stopped; held jobs keep their simulated moments."""
        if self._paused_at is None:
            return
        # Re-base so that now() continues from the paused moment, not from wall time elapsed.
        self._sim_start, self._wall_start = self._paused_at, self._wall()
        self._paused_at = None
        held, self._held = self._held, []
        for at, callback in sorted(held, key=lambda item: item[0]):
            self.call_at(at, callback)

    def now(self) -> datetime:
        if self._paused_at is not None:
            return self._paused_at
        elapsed = (self._wall() - self._wall_start).total_seconds()
        return self._sim_start + timedelta(seconds=elapsed * self.speed)

    def wall_time_of(self, at: datetime) -> datetime:
        """When, on the wall clock, simulated moment `at` arrives."""
        return self._wall_start + timedelta(seconds=(at - self._sim_start).total_seconds() / self.speed)

    def call_at(self, at: datetime, callback: Callback) -> None:
        if self._paused_at is not None:
            self._held.append((at, callback))
            return
        self._scheduler.add_job(
            self._run,
            "date",
            run_date=self.wall_time_of(at),
            args=[callback, at],
            misfire_grace_time=None,
        )

    async def _run(self, callback: Callback, at: datetime | None = None) -> None:
        # `at` rides along in the job only so that pause() can hold the job by its simulated moment.
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
                timeout = 0.2 if self.paused else max(0.01, min(remaining, 0.2))
                try:
                    await asyncio.wait_for(stop.wait(), timeout=timeout)
                except asyncio.TimeoutError:
                    pass
        finally:
            if self._errors:
                raise self._errors.pop(0)

    def next_event_at(self) -> datetime | None:
        """The simulated moment of the next scheduled callback (held ones included)."""
        moments = [at for at, _ in self._held]
        moments += [job.args[1] for job in self._scheduler.get_jobs() if job.args[1] is not None]
        return min(moments, default=None)

    async def step(self) -> bool:
        """Wait (in real time) for the next scheduled callback to run; False when none is left or paused."""
        if self.paused or self.next_event_at() is None:
            return False
        if not self._scheduler.running:
            self._scheduler.start()
        target = self.next_event_at()
        assert target is not None
        while not self.paused and self.next_event_at() == target:
            await asyncio.sleep(
                max(0.01, min(0.2, (self.wall_time_of(target) - self._wall()).total_seconds()))
            )
        if self._errors:
            raise self._errors.pop(0)
        return True

    def close(self) -> None:
        if self._scheduler.running:
            self._scheduler.shutdown(wait=False)
