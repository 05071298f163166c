"""Several endpoints (BalancedLLM): the fewest calls in flight first, a failing endpoint rested and
retried later, per-endpoint counts. Against two scripted fake servers, one failing for a while."""

from __future__ import annotations

import asyncio

import pytest

from ideaco.llm.balanced import BalancedLLM, Endpoint, choose, rest_for
from ideaco.llm.base import LLMBadRequest
from ideaco.llm.openai_chat import OpenAIChatLLM
from ideaco.llm.retry import RetryingLLM
from tests.fakes.openai_server import ErrorReply, FakeOpenAIServer, Reply
from tests.llm.conftest import make_request


class Clock:
    """A clock the test moves (the balancer's rests are measured on it)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def endpoints(*names: str) -> list[Endpoint]:
    return [Endpoint(n, llm=None) for n in names]  # type: ignore[arg-type]


def test_choose_takes_the_fewest_in_flight_then_the_fewest_calls_then_the_first() -> None:
    a, b, c = endpoints("a", "b", "c")
    a.in_flight, b.in_flight, c.in_flight = 2, 1, 1
    b.calls, c.calls = 5, 3
    assert choose([a, b, c], 0.0, set()) is c
    c.calls = 5
    assert choose([a, b, c], 0.0, set()) is b
    assert choose([a, b, c], 0.0, {"b"}) is c
    assert choose([a, b, c], 0.0, {"a", "b", "c"}) is None


def test_a_resting_endpoint_is_skipped_until_every_other_one_rests() -> None:
    a, b = endpoints("a", "b")
    a.rested_until = 10.0
    b.in_flight = 7
    assert choose([a, b], 9.9, set()) is b  # a rests: b, however busy
    assert choose([a, b], 10.0, set()) is a  # its rest is over
    b.rested_until = 5.0
    assert choose([a, b], 4.0, set()) is b  # both rest: the one whose rest ends first


def test_the_rest_doubles_with_each_failure_in_a_row_up_to_a_ceiling() -> None:
    assert [rest_for(n, 10.0, 120.0) for n in (1, 2, 3, 4, 5)] == [10.0, 20.0, 40.0, 80.0, 120.0]


def test_two_endpoints_needs_distinct_names() -> None:
    with pytest.raises(ValueError, match="given twice"):
        BalancedLLM([("http://x/v1", None), ("http://x/v1", None)])  # type: ignore[list-item]


async def test_calls_go_to_the_endpoint_with_the_fewest_in_flight() -> None:
    slow, fast = Reply("slow", delay=0.3), Reply("fast", delay=0.0)
    with FakeOpenAIServer(default=slow) as a, FakeOpenAIServer(default=fast) as b:
        llm = BalancedLLM(
            [(a.base_url, OpenAIChatLLM(a.base_url, None)), (b.base_url, OpenAIChatLLM(b.base_url, None))]
        )
        try:
            # While a's first call is slow, everything else goes to b, which is free again each time.
            first = asyncio.ensure_future(llm.complete(make_request("1", schema=None)))
            await asyncio.sleep(0)  # let it start (and take a)
            answers = [await llm.complete(make_request(str(i), schema=None)) for i in range(2, 6)]
            assert (await first).content == "slow"
            assert [r.content for r in answers] == ["fast"] * 4
            assert llm.counts() == {
                a.base_url: {"calls": 1, "failures": 0},
                b.base_url: {"calls": 4, "failures": 0},
            }
            # Side by side: calls started together spread over both.
            both = await asyncio.gather(*(llm.complete(make_request(f"g{i}", schema=None)) for i in range(4)))
            assert {r.content for r in both} == {"slow", "fast"}
        finally:
            await llm.aclose()


async def test_a_failing_endpoint_is_rested_then_tried_again_and_comes_back() -> None:
    down = [ErrorReply(503, "overloaded")] * 2
    clock = Clock()
    with FakeOpenAIServer(down, default="from a") as a, FakeOpenAIServer(default="from b") as b:
        llm = BalancedLLM(
            [(a.base_url, OpenAIChatLLM(a.base_url, None)), (b.base_url, OpenAIChatLLM(b.base_url, None))],
            rest_s=30.0,
            clock=clock,
        )
        try:
            # a fails: the same call goes on to b at once, and a rests for 30 s.
            assert (await llm.complete(make_request("1", schema=None))).content == "from b"
            assert a.request_count == 1 and b.request_count == 1
            for i in range(3):  # while a rests, b takes everything
                assert (await llm.complete(make_request(f"r{i}", schema=None))).content == "from b"
            assert a.request_count == 1
            clock.now += 30.0  # a's rest is over: it is tried again (fewest calls), fails again,
            assert (await llm.complete(make_request("2", schema=None))).content == "from b"
            assert a.request_count == 2
            clock.now += 30.0  # rests twice as long now (60 s): not yet
            await llm.complete(make_request("3", schema=None))
            assert a.request_count == 2
            clock.now += 30.0  # and then it answers again
            assert (await llm.complete(make_request("4", schema=None))).content == "from a"
            assert llm.counts() == {
                a.base_url: {"calls": 1, "failures": 2},
                b.base_url: {"calls": 6, "failures": 0},
            }
        finally:
            await llm.aclose()


async def test_when_every_endpoint_fails_the_error_goes_up_and_a_retry_finds_one_again() -> None:
    clock = Clock()
    with (
        FakeOpenAIServer([ErrorReply(503)], default="a ok") as a,
        FakeOpenAIServer([ErrorReply(502)], default="b ok") as b,
    ):
        balanced = BalancedLLM(
            [(a.base_url, OpenAIChatLLM(a.base_url, None)), (b.base_url, OpenAIChatLLM(b.base_url, None))],
            clock=clock,
        )
        llm = RetryingLLM(balanced, attempts=2, base_delay=0.0, sleep=_no_wait)
        try:
            # Both fail on the first try; the retry goes to the one whose rest ends first (a), which answers.
            assert (await llm.complete(make_request(schema=None))).content == "a ok"
            assert balanced.counts()[a.base_url] == {"calls": 1, "failures": 1}
            assert balanced.counts()[b.base_url] == {"calls": 0, "failures": 1}
        finally:
            await llm.aclose()


async def test_a_bad_request_is_not_the_endpoint_s_fault() -> None:
    with FakeOpenAIServer([ErrorReply(400, "no such model")]) as a, FakeOpenAIServer(default="b") as b:
        llm = BalancedLLM(
            [(a.base_url, OpenAIChatLLM(a.base_url, None)), (b.base_url, OpenAIChatLLM(b.base_url, None))]
        )
        try:
            with pytest.raises(LLMBadRequest):
                await llm.complete(make_request(schema=None))
            assert b.request_count == 0 and llm.counts()[a.base_url]["failures"] == 0
        finally:
            await llm.aclose()


async def _no_wait(_seconds: float) -> None:
    return None
