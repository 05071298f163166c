"""Early calls (office/engine/early.py), one wait of the office at a time: which upcoming thinks get
a call before their moment and how many, when such a call is the think's own or dropped, and what is
counted (summary.json's `calls`). The whole runs, both ways, are tests/office/engine/test_early_runs.py's."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest

from ideaco.cycle import Phase, Trigger
from ideaco.llm import tentative
from ideaco.llm.base import ChatRequest, ChatResult, LLMServerError, LLMTimeout, Usage
from ideaco.llm.structured import StructuredAnswer
from ideaco.mind.thought import Thought
from ideaco.office.engine import upcoming
from ideaco.office.engine.early import EarlyCalls
from ideaco.office.engine.office import Office
from tests.office.conftest import ROOM, SCENARIO, scenario_dict, step_until

PEOPLE = ("alice", "bob", "charlie", "dana")


def asked(*employees: str) -> list[dict[str, Any]]:
    """The boss asks each of them in their own chat at the start: each has a think coming, in a
    conversation of its own (no think's post can change another's)."""
    return [{"at": "00:00", "to": f"boss:{e}", "text": f"@{e.title()} status?"} for e in employees]


class Calls:
    """The office's model calls, replaced: each call started early is a future the test answers."""

    def __init__(self, office: Office, monkeypatch: pytest.MonkeyPatch) -> None:
        self.started: dict[str, tuple[ChatRequest, tentative.Tentative, asyncio.Future]] = {}
        monkeypatch.setattr(office.calls, "start", self.start)

    def start(self, _llm: Any, request: ChatRequest, mark: Any = None) -> asyncio.Future:
        call = asyncio.get_running_loop().create_future()
        self.started[request.tag.split(" in ", 1)[0]] = (request, mark, call)
        return call


@dataclass
class Waiting:
    office: Office
    calls: Calls

    def early_calls(self, limit: int, **kw: Any) -> EarlyCalls:
        return EarlyCalls(limit, settle_s=0.0, **kw)

    def soonest(self, n: int) -> list[str]:
        return [e for _, e in upcoming.upcoming(self.office) if e in PEOPLE][:n]


@pytest.fixture
async def waiting(make_office, monkeypatch) -> Waiting:
    """The office right after the boss asked everyone: four thinks coming, none begun."""
    office = make_office(casual=False, script=asked(*PEOPLE))
    office.start()
    await step_until(office, lambda: len(office.journal.messages) == len(PEOPLE))
    return Waiting(office, Calls(office, monkeypatch))


def answer(*tokens: int, speak: bool = False) -> StructuredAnswer:
    """A thought, with one model call per number (a repair is a second), each of that many tokens."""
    base = {"innerThoughts": "x", "topicSaturation": 3, "interestLevel": 5, "shouldSpeak": speak}
    results = [ChatResult("{}", "m", Usage(prompt_tokens=t)) for t in tokens]
    return StructuredAnswer(Thought.model_validate(base), "{}", [], results)


# --- how many start -----------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [1, 2, 3])
async def test_at_most_limit_early_calls_wait_to_be_used_the_soonest_first(
    waiting: Waiting, limit: int
) -> None:
    ahead = waiting.early_calls(limit)
    ahead.top_up(waiting.office)
    assert sorted(ahead.early) == sorted(waiting.soonest(limit))
    ahead.top_up(waiting.office)  # the next wait: they still wait to be used, none more starts
    assert sorted(ahead.early) == sorted(waiting.soonest(limit)) and ahead.counts.started == limit


async def test_an_office_without_speculate_starts_nothing_early(waiting: Waiting) -> None:
    ahead = EarlyCalls()
    await ahead.settle(asyncio.get_running_loop().create_future())
    ahead.top_up(waiting.office)
    assert ahead.early == {} and waiting.calls.started == {}
    assert ahead.counts.to_dict() == {"started": 0, "used": 0, "dropped": 0, "dropped_calls": 0, "chained": 0}


async def test_nothing_starts_early_once_the_run_is_stopping(waiting: Waiting) -> None:
    waiting.office.stop("the boss ended the run")
    ahead = waiting.early_calls(4)
    ahead.top_up(waiting.office)
    assert ahead.early == {} and waiting.calls.started == {}


async def test_one_free_call_predicts_the_eight_soonest_upcoming_thinks_and_no_more(
    make_office, monkeypatch
) -> None:
    """Predicting costs (a prompt built per employee): one free call looks at the 8 soonest, and a
    second wait with nothing changed predicts none again."""
    data = scenario_dict(casual=False)
    data["employees"] = [
        *SCENARIO["employees"],
        *({"id": f"e{i}", "name": f"Emp{i}", "role": "Engineer", "archetype": "old-hand"} for i in range(8)),
    ]
    office = make_office(scenario=data)  # 13 employees with nothing to read: every prediction empty
    office.start()
    predicted: list[str] = []
    predict = upcoming.predict

    def counted(office_: Any, employee: str, *args: Any) -> Any:
        predicted.append(employee)
        return predict(office_, employee, *args)

    monkeypatch.setattr(upcoming, "predict", counted)
    ahead = EarlyCalls(1, settle_s=0.0)
    ahead.top_up(office)
    assert predicted == [e for _, e in upcoming.upcoming(office)][:8] and ahead.early == {}
    ahead.top_up(office)
    assert len(predicted) == 8


# --- used or dropped ----------------------------------------------------------------------------------


async def test_the_call_made_early_for_the_very_request_is_the_thinks_own_even_still_running(
    waiting: Waiting,
) -> None:
    ahead = waiting.early_calls(1)
    ahead.top_up(waiting.office)
    (employee,) = ahead.early
    request, mark, call = waiting.calls.started[employee]
    recorded: list[str] = []
    mark.defer(lambda: recorded.append("its --record line"))
    assert ahead.take(employee, request) is call and not call.done()
    assert recorded == ["its --record line"] and ahead.counts.used == 1 and ahead.early == {}


async def test_a_call_made_for_another_request_is_cancelled_and_counted_dropped(waiting: Waiting) -> None:
    ahead = waiting.early_calls(1)
    ahead.top_up(waiting.office)
    (employee,) = ahead.early
    request, mark, call = waiting.calls.started[employee]
    recorded: list[str] = []
    mark.defer(lambda: recorded.append("its --record line"))
    other = ChatRequest(messages=request.messages[:1], model=request.model, tag=request.tag)
    assert ahead.take(employee, other) is None
    await asyncio.sleep(0)
    assert call.cancelled() and recorded == []
    assert (ahead.counts.used, ahead.counts.dropped, ahead.counts.dropped_calls) == (0, 1, 1)


@pytest.mark.parametrize(
    ("ends", "calls"),
    [
        (lambda call: call.set_result(answer(900)), 1),
        (lambda call: call.set_result(answer(900, 700)), 2),  # answered after a repair
        (lambda call: call.set_exception(LLMTimeout("no answer in time")), 1),
        (lambda call: call.cancel(), 1),
    ],
    ids=["answered", "repaired", "failed", "cut"],
)
async def test_a_dropped_early_call_counts_the_model_calls_it_made(
    waiting: Waiting, ends, calls: int
) -> None:
    ahead = waiting.early_calls(1)
    ahead.top_up(waiting.office)
    (employee,) = ahead.early
    ends(waiting.calls.started[employee][2])
    await asyncio.sleep(0)
    ahead.drop(employee)
    assert (ahead.counts.dropped, ahead.counts.dropped_calls) == (1, calls)


async def test_a_dropped_early_call_whose_repair_failed_counts_both_calls(waiting: Waiting) -> None:
    """The first call was answered (and paid for), the repair failed: two calls were made."""
    ahead = waiting.early_calls(1)
    ahead.top_up(waiting.office)
    (employee,) = ahead.early
    failure = LLMServerError("overloaded", status=503)
    failure.spent = (ChatResult("not json", "m", Usage(prompt_tokens=900)),)
    waiting.calls.started[employee][2].set_exception(failure)
    await asyncio.sleep(0)
    ahead.drop(employee)
    assert (ahead.counts.dropped, ahead.counts.dropped_calls) == (1, 2)


async def test_what_an_early_calls_employee_reads_changing_drops_it_at_once(waiting: Waiting) -> None:
    ahead = waiting.early_calls(4)
    ahead.top_up(waiting.office)
    assert set(PEOPLE) <= set(ahead.early)
    ahead.touch(["alice"])  # (her conversation changed, say): predicted again, the same request
    ahead.top_up(waiting.office)
    assert "alice" in ahead.early and ahead.counts.dropped == 0
    stale, _, call = waiting.calls.started["bob"]
    waiting.office.employees["bob"].mind.notes.append("Your message in API design mentioned Dana.")
    ahead.touch(["bob"])
    ahead.top_up(waiting.office)  # his request changed: dropped now, not at his think's moment
    await asyncio.sleep(0)
    assert call.cancelled() and ahead.counts.dropped == 1
    fresh = ahead.early["bob"].request  # and one for the request as it stands now
    assert fresh != stale and "mentioned Dana" in fresh.messages[-1]["content"]


# --- the budget's headroom learns from the answers ----------------------------------------------------


@dataclass
class Spent:
    max_calls: int | None = None
    max_tokens: int | None = None
    calls: int = 0
    tokens: int = 0


@pytest.mark.parametrize(
    ("tokens", "again"),
    [((10_000,), False), ((5_000, 5_000), True)],
    ids=["10,000 a call: 15 calls left, within the reserve", "a repair: 5,000 a call, 30 left"],
)
async def test_near_a_token_budget_the_answers_so_far_tell_how_many_calls_are_left(
    waiting: Waiting, tokens: tuple[int, ...], again: bool
) -> None:
    """--max-tokens 150000, nothing spent: before any answer, a call is guessed at 4,000 tokens
    (37 calls left, the reserve 16); then it is what the answers took, each call of a repair apart."""
    ahead = waiting.early_calls(4, budget=Spent(max_tokens=150_000))
    ahead.top_up(waiting.office)
    assert len(ahead.early) == 4
    first = waiting.calls.started[waiting.soonest(1)[0]][2]
    first.set_result(answer(*tokens))
    await asyncio.sleep(0)
    ahead.drop_all()
    ahead.top_up(waiting.office)
    assert bool(ahead.early) is again


async def test_an_early_call_that_fails_or_is_cut_leaves_no_traceback(waiting: Waiting) -> None:
    errors: list[dict[str, Any]] = []
    asyncio.get_running_loop().set_exception_handler(lambda _loop, context: errors.append(context))
    ahead = waiting.early_calls(2)
    ahead.top_up(waiting.office)
    first, second = (waiting.calls.started[e][2] for e in ahead.early)
    first.set_exception(LLMTimeout("no answer in time"))
    second.cancel()
    await asyncio.sleep(0)
    assert errors == []
    ahead.drop_all()


# --- waiting for a model that answers at once ---------------------------------------------------------


async def test_with_early_calls_the_office_first_gives_its_call_a_moment_to_answer() -> None:
    loop = asyncio.get_running_loop()
    call = loop.create_future()
    loop.call_soon(call.set_result, None)
    await EarlyCalls(1, settle_s=30.0).settle(call)  # returns as soon as the call answers
    assert call.done()


async def test_without_early_calls_the_office_never_waits_for_its_call() -> None:
    call = asyncio.get_running_loop().create_future()
    await asyncio.wait_for(EarlyCalls(0, settle_s=30.0).settle(call), timeout=5.0)
    assert not call.done()


# --- what holds a think back (the rest is tests/office/engine/test_early_runs.py's, on both sides) ----------------


def test_a_post_due_at_the_very_moment_a_think_begins_holds_it_back(make_office) -> None:
    office = make_office(casual=False)
    office.employees["alice"].desk.phase = Phase.TYPING
    at = office.now() + timedelta(seconds=30)
    think = upcoming.Prediction(ROOM, at, Trigger.NUDGE, ChatRequest(messages=(), model="m"))
    assert (
        EarlyCalls(limit=4)._blocked(office, "alice", think, {ROOM: [(at, upcoming.POSTS, "boss")]}) is True
    )
