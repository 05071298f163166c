"""RetryingLLM: which errors are retried, how long it waits, and what it gives up with."""

from __future__ import annotations

import pytest

from ideaco.llm import (
    BudgetExhausted,
    LLMAuthError,
    LLMBadRequest,
    LLMConnectionError,
    LLMRateLimited,
    LLMServerError,
    LLMTimeout,
    OpenAIChatLLM,
    ReplayMiss,
    RetryingLLM,
)
from tests.fakes.llm import ScriptedLLM
from tests.fakes.openai_server import ErrorReply
from tests.llm.conftest import make_request


class SleepRecorder:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


async def test_retry_after_429_waits_exactly_what_the_server_said(fake):
    fake.push(ErrorReply(429, headers={"Retry-After": "7"}), "{}")
    sleep = SleepRecorder()
    llm = RetryingLLM(OpenAIChatLLM(fake.base_url, None), sleep=sleep)
    result = await llm.complete(make_request())
    assert result.content == "{}"
    assert sleep.waits == [7.0]


async def test_huge_retry_after_is_capped():
    sleep = SleepRecorder()
    inner = ScriptedLLM([LLMRateLimited("slow down", retry_after=3600), "ok"])
    await RetryingLLM(inner, max_delay=30.0, sleep=sleep).complete(make_request())
    assert sleep.waits == [60.0]


async def test_server_errors_are_retried_with_growing_backoff_then_succeed(fake):
    fake.push(ErrorReply(500), ErrorReply(502), ErrorReply(503), "{}")
    sleep = SleepRecorder()
    llm = RetryingLLM(OpenAIChatLLM(fake.base_url, None), attempts=4, base_delay=1.0, sleep=sleep)
    assert (await llm.complete(make_request())).content == "{}"
    assert fake.request_count == 4
    assert len(sleep.waits) == 3
    # exponential with up to base_delay of jitter: ~1, ~2, ~4
    for wait, floor in zip(sleep.waits, (1.0, 2.0, 4.0), strict=True):
        assert floor <= wait <= floor + 1.0


@pytest.mark.parametrize("error", [LLMConnectionError("x"), LLMTimeout("x"), LLMServerError("x", status=500)])
async def test_transient_kinds_are_retried(error):
    inner = ScriptedLLM([error, "ok"])
    assert (await RetryingLLM(inner, sleep=SleepRecorder()).complete(make_request())).content == "ok"
    assert len(inner.requests) == 2


async def test_gives_up_after_attempts_and_reraises_the_last_error():
    sleep = SleepRecorder()
    errors = [LLMServerError(f"boom {i}", status=500) for i in range(3)]
    inner = ScriptedLLM(errors + ["never reached"])
    with pytest.raises(LLMServerError) as info:
        await RetryingLLM(inner, attempts=3, sleep=sleep).complete(make_request())
    assert info.value is errors[-1]
    assert len(inner.requests) == 3 and len(sleep.waits) == 2


async def test_backoff_is_capped_at_max_delay():
    sleep = SleepRecorder()
    inner = ScriptedLLM([LLMTimeout("t")] * 5 + ["ok"])
    await RetryingLLM(inner, attempts=6, base_delay=1.0, max_delay=3.0, sleep=sleep).complete(make_request())
    assert max(sleep.waits) <= 3.0


@pytest.mark.parametrize(
    "error", [LLMBadRequest("x", status=400), LLMAuthError("x"), BudgetExhausted("x"), ReplayMiss("x")]
)
async def test_permanent_kinds_are_not_retried(error):
    sleep = SleepRecorder()
    inner = ScriptedLLM([error, "ok"])
    with pytest.raises(type(error)):
        await RetryingLLM(inner, sleep=sleep).complete(make_request())
    assert len(inner.requests) == 1 and sleep.waits == []
