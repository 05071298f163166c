"""BudgetLLM: the run-wide --max-calls / --max-tokens limits, on both sides of each."""

from __future__ import annotations

import asyncio

import pytest

from ideaco.llm import BudgetExhausted, BudgetLLM, LLMServerError, Usage
from ideaco.llm.limits import LimitedLLM
from ideaco.llm.retry import RetryingLLM
from tests.fakes.llm import ScriptedLLM
from tests.llm.conftest import make_request


async def test_max_calls_allows_exactly_that_many():
    inner = ScriptedLLM(default="ok")
    budget = BudgetLLM(inner, max_calls=2)
    await budget.complete(make_request())
    assert budget.reason is None and budget.reason is None
    await budget.complete(make_request())
    assert budget.reason is not None and budget.reason == "--max-calls 2 reached"
    with pytest.raises(BudgetExhausted, match="--max-calls 2 reached") as info:
        await budget.complete(make_request())
    assert info.value.kind == "budget"
    assert len(inner.requests) == 2 and budget.calls == 2


async def test_max_tokens_counts_prompt_plus_completion():
    inner = ScriptedLLM(default="ok", usage=Usage(prompt_tokens=40, completion_tokens=10, cached_tokens=30))
    budget = BudgetLLM(inner, max_tokens=101)
    await budget.complete(make_request())
    await budget.complete(make_request())
    assert budget.tokens == 100 and budget.reason is None  # one token below the limit: still allowed
    await budget.complete(make_request())
    assert budget.tokens == 150 and budget.reason is not None
    with pytest.raises(BudgetExhausted, match="--max-tokens 101"):
        await budget.complete(make_request())


async def test_no_limits_never_refuses():
    budget = BudgetLLM(ScriptedLLM(default="ok"))
    for _ in range(5):
        await budget.complete(make_request())
    assert budget.calls == 5 and budget.tokens == 75 and budget.reason is None


async def test_failed_calls_are_not_counted():
    budget = BudgetLLM(ScriptedLLM([LLMServerError("x"), "ok"]), max_calls=1)
    with pytest.raises(LLMServerError):
        await budget.complete(make_request())
    assert budget.calls == 0
    await budget.complete(make_request())
    assert budget.calls == 1


async def test_restored_counters_continue_and_a_raised_limit_reopens():
    inner = ScriptedLLM(default="ok")
    spent = BudgetLLM(inner, max_calls=3, calls=3, tokens=500)
    assert spent.reason is not None
    with pytest.raises(BudgetExhausted):
        await spent.complete(make_request())
    resumed = BudgetLLM(inner, max_calls=4, calls=3, tokens=500)
    await resumed.complete(make_request())
    assert (resumed.calls, resumed.tokens, resumed.reason is not None) == (4, 515, True)


async def test_concurrent_callers_cannot_overshoot_max_calls():
    inner = ScriptedLLM(default="ok", delay=0.02)
    budget = BudgetLLM(inner, max_calls=3)
    outcomes = await asyncio.gather(
        *(budget.complete(make_request()) for _ in range(6)), return_exceptions=True
    )
    assert sum(not isinstance(o, BaseException) for o in outcomes) == 3
    assert sum(isinstance(o, BudgetExhausted) for o in outcomes) == 3
    assert len(inner.requests) == 3


def _stack(inner, max_calls: int, concurrency: int = 1, attempts: int = 1) -> BudgetLLM:
    """Budget -> cap -> retries (counting each request as it goes out), as the factory builds it."""
    retrying = RetryingLLM(inner, attempts=attempts, base_delay=0.0)
    budget = BudgetLLM(LimitedLLM(retrying, concurrency=concurrency), max_calls=max_calls)
    retrying.before_attempt = budget.sending
    return budget


async def test_a_sent_call_counts_whatever_becomes_of_it_and_a_waiting_one_does_not():
    """Issue 28, item 8: a call cut while the endpoint answers (an early call dropped) was sent."""
    inner = ScriptedLLM(default="ok", delay=10.0)
    budget = _stack(inner, max_calls=3, concurrency=1)
    sent = asyncio.ensure_future(budget.complete(make_request()))
    waiting = asyncio.ensure_future(budget.complete(make_request()))  # behind the cap of one
    while not inner.requests:
        await asyncio.sleep(0)
    sent.cancel()
    waiting.cancel()
    await asyncio.gather(sent, waiting, return_exceptions=True)
    assert len(inner.requests) == 1 and budget.calls == 1  # the one sent counts; the waiting one not
    failing = _stack(ScriptedLLM([LLMServerError("x")]), max_calls=1)
    with pytest.raises(LLMServerError):
        await failing.complete(make_request())
    assert failing.calls == 1 and failing.reason == "--max-calls 1 reached"  # it reached the endpoint


async def test_a_retry_is_one_more_request_and_is_refused_past_the_limit():
    inner = ScriptedLLM([LLMServerError("x"), LLMServerError("x"), "ok"])
    budget = _stack(inner, max_calls=2, attempts=4)
    with pytest.raises(BudgetExhausted, match="--max-calls 2 reached"):
        await budget.complete(make_request())
    assert len(inner.requests) == 2 and budget.calls == 2
