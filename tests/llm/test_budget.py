"""BudgetLLM: the run-wide --max-calls / --max-tokens limits, on both sides of each."""

from __future__ import annotations

import asyncio

import pytest

from ideaco.llm import BudgetExhausted, BudgetLLM, LLMServerError, Usage
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
