"""LimitedLLM (the shared concurrency cap) and PacedLLM (the --rate of requests sent)."""

from __future__ import annotations

import asyncio

import pytest

from ideaco.llm import LimitedLLM, OpenAIChatLLM
from ideaco.llm.limits import PacedLLM, Pacer, parse_rate
from tests.fakes.llm import ScriptedLLM
from tests.fakes.openai_server import Reply
from tests.llm.conftest import make_request


async def test_concurrency_never_exceeds_the_cap_against_a_slow_endpoint(fake):
    fake.default = Reply("{}", delay=0.1)
    llm = LimitedLLM(OpenAIChatLLM(fake.base_url, None), concurrency=2)
    await asyncio.gather(*(llm.complete(make_request(schema=None)) for _ in range(6)))
    assert fake.request_count == 6
    assert fake.max_in_flight == 2


async def test_cap_of_one_serialises():
    inner = ScriptedLLM(default="ok", delay=0.01)
    llm = LimitedLLM(inner, concurrency=1)
    await asyncio.gather(*(llm.complete(make_request()) for _ in range(4)))
    assert inner.max_in_flight == 1 and len(inner.requests) == 4


async def test_without_a_cap_calls_overlap():
    # Control for the tests above: the fake does run calls concurrently when allowed to.
    inner = ScriptedLLM(default="ok", delay=0.01)
    llm = LimitedLLM(inner, concurrency=10)
    await asyncio.gather(*(llm.complete(make_request()) for _ in range(4)))
    assert inner.max_in_flight == 4


class FakeTime:
    """A clock that moves only when someone sleeps on it; the sleeps are kept."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def test_rates_are_requests_per_unit_of_time() -> None:
    assert parse_rate("60/min") == 1.0
    assert parse_rate("2/s") == 2.0
    assert parse_rate(" 1800 / h ") == 0.5
    assert parse_rate("0.5/sec") == 0.5
    for bad in ("60", "60/day", "-1/s", "fast"):
        with pytest.raises(ValueError, match="e.g. 60/min"):
            parse_rate(bad)
    for zero in ("0/min", "0.0/s"):  # the format is right: say what is wrong
        with pytest.raises(ValueError, match="must be more than 0 requests"):
            parse_rate(zero)


async def test_paced_calls_start_an_interval_apart_with_no_burst() -> None:
    time = FakeTime()
    inner = ScriptedLLM(handler=lambda request: str(time.now))
    llm = PacedLLM(inner, Pacer(parse_rate("30/min"), clock=time.clock, sleep=time.sleep))
    results = await asyncio.gather(*(llm.complete(make_request()) for _ in range(4)))
    assert [float(r.content) for r in results] == [0.0, 2.0, 4.0, 6.0]  # each start 2 s after the last


async def test_a_call_after_a_quiet_stretch_starts_at_once() -> None:
    time = FakeTime()
    pacer = Pacer(1.0, clock=time.clock, sleep=time.sleep)
    await pacer.wait()
    time.now = 10.0  # nothing asked for ten seconds
    await pacer.wait()
    await pacer.wait()
    assert time.sleeps == [1.0]  # the first two went at once; the third waited its interval


def test_invalid_limits_are_refused():
    with pytest.raises(ValueError):
        LimitedLLM(ScriptedLLM(), concurrency=0)
    with pytest.raises(ValueError):
        Pacer(0)
