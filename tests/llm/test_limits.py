"""LimitedLLM: the shared concurrency cap and rate limit."""

from __future__ import annotations

import asyncio
import time

import pytest

from ideaco.llm import LimitedLLM, OpenAIChatLLM
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


async def test_rate_limit_spaces_out_starts():
    inner = ScriptedLLM(default="ok")
    llm = LimitedLLM(inner, concurrency=10, requests_per_second=20)
    started = time.perf_counter()
    await asyncio.gather(*(llm.complete(make_request()) for _ in range(30)))
    # A bucket of 20 goes at once; the other 10 need about half a second.
    assert time.perf_counter() - started >= 0.4


def test_invalid_limits_are_refused():
    with pytest.raises(ValueError):
        LimitedLLM(ScriptedLLM(), concurrency=0)
    with pytest.raises(ValueError):
        LimitedLLM(ScriptedLLM(), concurrency=1, requests_per_second=0)
