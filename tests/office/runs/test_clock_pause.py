"""Pausing and resuming both clocks: simulated time stands still, nothing scheduled is lost."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime, timedelta

from ideaco.office.engine.clock import RealClock, SimClock

START = datetime(2026, 1, 5, 9, 0, 0)


def _jobs(clock: RealClock) -> list[datetime]:
    return sorted(job.trigger.run_date.replace(tzinfo=None) for job in clock._scheduler.get_jobs())


async def test_a_paused_sim_clock_neither_steps_nor_advances() -> None:
    clock = SimClock(START)
    ran: list[datetime] = []

    async def note() -> None:
        ran.append(clock.now())

    clock.call_at(START + timedelta(minutes=1), note)
    clock.pause()
    assert clock.paused
    assert await clock.step() is False
    await clock.run_until(START + timedelta(minutes=5))
    assert ran == [] and clock.now() == START
    clock.resume()
    assert not clock.paused
    await clock.run_until(START + timedelta(minutes=5))
    assert ran == [START + timedelta(minutes=1)]
    assert clock.now() == START + timedelta(minutes=5)


def test_a_paused_real_clock_stands_still_and_holds_its_jobs() -> None:
    wall = [datetime(2030, 1, 1, 12, 0, 0)]
    clock = RealClock(START, speed=60, wall=lambda: wall[0])

    async def nothing() -> None:
        return None

    clock.call_at(START + timedelta(minutes=10), nothing)  # wall 12:00:10
    wall[0] += timedelta(seconds=2)  # simulated 09:02
    clock.pause()
    assert clock.paused and _jobs(clock) == []
    wall[0] += timedelta(minutes=5)  # five wall minutes pass while paused
    assert clock.now() == START + timedelta(minutes=2)
    clock.call_at(START + timedelta(minutes=3), nothing)  # scheduled while paused: held too
    assert _jobs(clock) == []
    clock.resume()
    assert not clock.paused
    assert clock.now() == START + timedelta(minutes=2)  # time goes on from where it stopped
    # Both jobs keep their simulated moments: 1 and 8 simulated minutes after the resume.
    assert _jobs(clock) == [wall[0] + timedelta(seconds=1), wall[0] + timedelta(seconds=8)]
    wall[0] += timedelta(seconds=1)
    assert clock.now() == START + timedelta(minutes=3)


def test_pause_and_resume_are_idempotent() -> None:
    wall = [datetime(2030, 1, 1, 12, 0, 0)]
    clock = RealClock(START, speed=10, wall=lambda: wall[0])
    clock.resume()  # not paused: nothing happens
    assert clock.now() == START
    clock.pause()
    wall[0] += timedelta(seconds=3)
    clock.pause()  # the first pause's moment stays
    clock.resume()
    assert clock.now() == START


async def test_a_real_clock_runs_held_callbacks_after_resume() -> None:
    clock = RealClock(START, speed=600)
    ran: list[datetime] = []

    async def note() -> None:
        ran.append(clock.now())

    clock.pause()
    stopped_at = clock.now()
    clock.call_at(START + timedelta(seconds=30), note)  # 0.05 s of wall time once resumed
    stop = asyncio.Event()
    running = asyncio.create_task(clock.run_until(START + timedelta(hours=1), stop))
    try:
        await asyncio.sleep(0)  # let run_until start the scheduler while paused
        assert ran == [] and clock.now() == stopped_at
        clock.resume()
        deadline = time.monotonic() + 5
        while not ran:
            assert time.monotonic() < deadline, "the held callback never ran after resume"
            await asyncio.sleep(0.01)
    finally:
        stop.set()
        await running
        clock.close()
    assert ran[0] >= START + timedelta(seconds=30)
