"""A stop (Ctrl-C, a spent budget) does not wait for slow model calls, and loses no owed think."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import DelayedLLM, thought


async def test_a_stop_cuts_slow_model_calls_instead_of_waiting_for_them(make_office) -> None:
    slow = DelayedLLM(ScriptedLLM(default=thought(False)), lambda request: 600.0)  # a ten-minute call
    office = make_office(llm=slow, script=[{"at": "00:00", "to": "api-design", "text": "Status?"}])
    office.start()
    running = asyncio.ensure_future(office.run(timedelta(hours=1)))
    deadline = asyncio.get_running_loop().time() + 30
    while not slow.started:  # poll until a model call is in flight
        assert asyncio.get_running_loop().time() < deadline, "no model call started"
        await asyncio.sleep(0.01)
    office.stop("interrupted")
    await asyncio.wait_for(running, timeout=30)  # returns long before the ten-minute call would
    assert office.stop_reason == "interrupted"
    assert office.journal.thoughts == []  # the cut think is not logged as done ...
    cut = [e for e in office.employees.values() if e.desk.phase != "idle"]
    assert cut  # ... its employee is still mid-think, so a resume wakes it again
