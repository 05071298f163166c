"""Early calls (issue 19): thinks whose inputs nothing before them changes are thought at once, and
the run stays exactly the run that thinks one at a time.

The guard's scripted office (several rooms, DMs, the task board, a hire, a dismissal, a hold)
runs once with no early calls and one call at a time, then with early calls and many calls in
flight whose answers come back in a shuffled order: the same messages and thoughts, field by
field (the call's latency aside), while most thinks were answered by calls made before their
moment.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from ideaco.cycle import Phase, Trigger
from ideaco.llm import tentative
from ideaco.llm.base import BudgetExhausted, ChatRequest, LLMRateLimited, LLMServerError, LLMTimeout
from ideaco.llm.budget import BudgetLLM
from ideaco.llm.limits import LimitedLLM, Permits
from ideaco.llm.structured import StructuredAnswer
from ideaco.mind.thought import Thought
from ideaco.office.engine import upcoming
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import SimClock
from ideaco.office.engine.early import EarlyCalls, kind_of
from ideaco.office.engine.office import Office
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.scenario import load_scenario
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import ROOM, DelayedLLM, thought, who
from tests.office.resolve.test_applied import scripted

GUARD = Path(__file__).resolve().parents[2] / "guard" / "office.yaml"


def guard_office(llm: Any, seed: int, limit: int) -> Office:
    scenario = load_scenario(GUARD)
    return office_from_scenario(
        scenario,
        GUARD.parent,
        llm=llm,
        clock=SimClock(scenario.start),
        seed=seed,
        journal=MemoryJournal(),
        early_calls=EarlyCalls(limit, settle_s=0.0),  # the scripted model answers in microseconds
    )


def logs(office: Office) -> tuple[list[Any], list[Any]]:
    """The run's messages and thoughts as a comparison sees them: the calls' latency aside."""
    thoughts = json.loads(json.dumps(office.journal.thoughts, default=str))
    for record in thoughts:
        if record.get("llm"):
            record["llm"].pop("latency_ms", None)
    return json.loads(json.dumps(office.journal.messages, default=str)), thoughts


async def run_guard(seed: int, *, limit: int, concurrency: int, jitter: random.Random | None) -> Office:
    inner: Any = ScriptedLLM(handler=scripted)
    if jitter is not None:  # answers come back in an order of their own
        inner = DelayedLLM(inner, lambda _request: jitter.uniform(0.0, 0.004))
    office = guard_office(LimitedLLM(inner, concurrency=concurrency), seed, limit)
    office.start()
    await office.run(timedelta(hours=2))
    return office


async def test_thinking_early_leaves_the_run_exactly_as_one_at_a_time() -> None:
    reached: set[str] = set()
    for seed in (1, 2, 3):
        alone = await run_guard(seed, limit=0, concurrency=1, jitter=None)
        early = await run_guard(seed, limit=8, concurrency=16, jitter=random.Random(seed))
        assert alone.early_calls.counts.started == 0
        messages, thoughts = logs(early)
        want_messages, want_thoughts = logs(alone)
        assert len(thoughts) == len(want_thoughts) > 100
        for got, want in zip(thoughts, want_thoughts, strict=True):
            assert got == want, f"seed {seed}: thought {want['id']} differs"
        assert messages == want_messages
        counts = early.early_calls.counts
        # Each early call either answered its think or was dropped (or waits at the end); some
        # were started on answers not landed yet (a chain: whatif.py).
        assert counts.used > 0 and counts.started == counts.used + counts.dropped + len(
            early.early_calls.early
        )
        assert counts.chained > 0
        reached |= kinds_of(want_messages, want_thoughts)
    assert {"hire", "dismissal", "hold", "dm", "board"} <= reached


async def test_the_early_calls_of_a_known_run_are_pinned() -> None:
    """The guard's office, seed 1, answers at once (no timing of their own): how many calls start
    early, how many answer their think and how many are dropped is a property of the engine."""
    office = guard_office(LimitedLLM(ScriptedLLM(handler=scripted), concurrency=16), 1, 8)
    office.early_calls.settle_s = 0.0  # predict at every wait: what is counted depends on no clock
    office.start()
    await office.run(timedelta(hours=2))
    counts = office.early_calls.counts
    # (before early calls on early answers, issue 30: 47 started, 39 used, 8 dropped)
    assert (counts.started, counts.used, counts.dropped, len(office.early_calls.early)) == (66, 55, 10, 1)
    assert counts.chained > 0
    assert len(logs(office)[1]) == 127


def kinds_of(messages: list[Any], thoughts: list[Any]) -> set[str]:
    """What the guard office reaches, so that the comparison above covers it."""
    found = set()
    steps = [s for t in thoughts for s in t["applied"]["steps"]]
    tools = {s.get("tool") for s in steps if s["step"] == "tool"}
    if "hire_employee" in tools:
        found.add("hire")
    if "dismiss_employee" in tools:
        found.add("dismissal")
    if any("stop" in m["text"] for m in messages if m["sender"] == "boss"):
        found.add("hold")
    if any(m["conversation"].startswith("dm:") for m in messages):
        found.add("dm")
    if any(s["step"] == "board" for s in steps):
        found.add("board")
    return found


@pytest.mark.parametrize(
    "failure",
    [
        LLMServerError("overloaded (an early call)", status=503),
        LLMRateLimited("slow down (an early call)", retry_after=1.0),
        LLMTimeout("no answer in time (an early call)"),
        "not a thought at all (an early call)",
    ],
    ids=["5xx", "429", "timeout", "bad answer"],
)
async def test_an_early_call_that_fails_is_dropped_and_never_the_thinks_error(failure: Any) -> None:
    def fails_early(request: Any) -> Any:
        return failure if tentative.current() is not None else scripted(request)

    alone = await run_guard(1, limit=0, concurrency=1, jitter=None)
    office = guard_office(LimitedLLM(ScriptedLLM(handler=fails_early), concurrency=8), 1, 8)
    office.start()
    await office.run(timedelta(hours=2))
    counts = office.early_calls.counts
    assert counts.started > 10
    assert counts.used == 0 and counts.dropped + len(office.early_calls.early) == counts.started
    assert logs(office) == logs(alone)  # no thought logged an early call's failure
    assert not any("early call" in str(t.get("error")) for t in office.journal.thoughts)


async def test_an_early_call_still_out_at_its_moment_that_then_fails_is_asked_again() -> None:
    """A think takes its early call while it is still out; when that call then fails, the think
    asks again as its own (the endpoint was down when the early call went out, say): the run is the
    run one call at a time makes, and no thought logs the early call's failure."""

    def fails_early(request: Any) -> Any:
        return (
            LLMServerError("down (an early call)", status=503) if tentative.current() else scripted(request)
        )

    alone = await run_guard(1, limit=0, concurrency=1, jitter=None)
    slow = DelayedLLM(ScriptedLLM(handler=fails_early), lambda _r: 0.02 if tentative.current() else 0.0)
    office = guard_office(LimitedLLM(slow, concurrency=8), 1, 8)
    office.start()
    await office.run(timedelta(hours=2))
    counts = office.early_calls.counts
    assert counts.started > 10 and counts.used == 0  # taken while out, then dropped when it failed
    assert logs(office) == logs(alone)
    assert not any("early call" in str(t.get("error")) for t in office.journal.thoughts)


async def test_near_the_budget_nothing_starts_early_and_the_budget_is_never_passed() -> None:
    budget = BudgetLLM(LimitedLLM(ScriptedLLM(handler=scripted), concurrency=8), max_calls=60)
    office = guard_office(budget, 1, 4)
    office.early_calls.budget = budget
    spent_at_early: list[int] = []  # the budget's count when each early call started
    start = office.calls.start

    def start_call(llm: Any, request: Any, mark: Any = None) -> Any:
        if mark is not None:
            spent_at_early.append(budget.calls)
        return start(llm, request, mark)

    office.calls.start = start_call  # type: ignore[method-assign]
    office.start()
    await office.run(timedelta(hours=2))
    assert office.stop_reason == "--max-calls 60 reached"
    assert budget.calls <= 60 and office.early_calls.counts.started == len(spent_at_early) > 0
    # None started once the end was in sight: the reserve is 4 calls an early one (limit 4).
    reserve = 4 * office.early_calls.limit
    assert max(spent_at_early) < 60 - reserve, spent_at_early


@dataclass
class Spent:
    max_calls: int | None = None
    max_tokens: int | None = None
    calls: int = 0
    tokens: int = 0


@pytest.mark.parametrize(
    ("spent", "room"),
    [
        (Spent(max_calls=60, calls=43), 1),  # 60 - 43 - 16 held back for live calls and repairs
        (Spent(max_calls=60, calls=44), 0),
        (Spent(max_calls=60, calls=59), 0),
        (Spent(max_calls=1000, calls=0), 4),  # the limit itself
        (Spent(max_tokens=100_000, tokens=100_000 - 20 * 4000), 4),  # 20 calls of the guess: room 4
        (Spent(max_tokens=100_000, tokens=100_000 - 19 * 4000), 3),
        (Spent(), 4),
    ],
)
def test_the_budget_leaves_room_to_start_early_only_far_from_its_end(spent: Spent, room: int) -> None:
    assert EarlyCalls(limit=4, budget=spent)._headroom() == room


async def test_a_lone_employee_is_answered_by_the_call_made_for_its_next_look(make_office) -> None:
    """Nothing changes before Alice's next look: the request built early is the one her look sends."""
    answer = ScriptedLLM(handler=lambda r: thought(True, f"{who(r).employee} at {who(r).at:%H:%M:%S}"))
    office = make_office(
        llm=DelayedLLM(answer, lambda _r: 0.002),
        casual=False,
        script=[{"at": "00:00", "to": ROOM, "text": "@Alice status?"}],
    )
    office.early_calls.limit, office.early_calls.settle_s = 4, 0.0
    office.start()
    await office.run(timedelta(minutes=20))
    assert office.early_calls.counts.used >= 3, office.early_calls.counts


@pytest.mark.parametrize(("latency", "early"), [(0.0, False), (0.02, True)])
async def test_nothing_starts_early_while_the_model_answers_at_once(make_office, latency, early) -> None:
    """A model that answers within `settle_s` leaves nothing to gain: no prediction is even made."""
    answer = ScriptedLLM(handler=lambda r: thought(True, f"{who(r).employee} at {who(r).at:%H:%M:%S}"))
    office = make_office(
        llm=DelayedLLM(answer, lambda _r: latency),
        casual=False,
        script=[{"at": "00:00", "to": ROOM, "text": "Status, everyone?"}],
    )
    office.early_calls.limit = 4  # and the default settle_s
    office.start()
    await office.run(timedelta(minutes=10))
    assert (office.early_calls.counts.started > 0) is early


async def test_permits_go_to_calls_someone_waits_for_before_tentative_ones() -> None:
    permits = Permits(1)
    await permits.acquire(False)  # the one permit is out
    order: list[str] = []

    async def take(name: str, tentative_call: bool) -> None:
        await permits.acquire(tentative_call)
        order.append(name)
        permits.release()

    waiting = [asyncio.ensure_future(take("early-1", True)), asyncio.ensure_future(take("early-2", True))]
    await asyncio.sleep(0)
    waiting.append(asyncio.ensure_future(take("live", False)))
    await asyncio.sleep(0)
    permits.release()
    await asyncio.gather(*waiting)
    assert order == ["live", "early-1", "early-2"]


async def test_a_cancelled_waiter_passes_its_permit_on() -> None:
    permits = Permits(1)
    await permits.acquire(False)
    first = asyncio.ensure_future(permits.acquire(True))
    second = asyncio.ensure_future(permits.acquire(True))
    await asyncio.sleep(0)
    permits.release()  # handed to the first waiter ...
    first.cancel()  # ... which is cancelled before it runs: the permit goes to the second
    await asyncio.sleep(0)
    await asyncio.wait_for(second, 1)
    assert permits.free == 0


def test_deferred_actions_wait_for_the_commit_and_are_forgotten_on_a_drop() -> None:
    done: list[str] = []
    tentative.deferred(lambda: done.append("now"))  # outside a tentative call: at once
    assert done == ["now"]

    kept, dropped = tentative.Tentative(), tentative.Tentative()
    kept.defer(lambda: done.append("kept"))
    dropped.defer(lambda: done.append("dropped"))
    assert done == ["now"]
    kept.commit()
    dropped.drop()
    kept.defer(lambda: done.append("after commit"))  # a call still running when it was taken
    dropped.defer(lambda: done.append("after drop"))
    assert done == ["now", "kept", "after commit"]


def test_what_an_answer_posts_is_read_from_it() -> None:
    loop = asyncio.new_event_loop()
    try:
        pending = loop.create_future()
        assert upcoming.outcome(pending) == upcoming.UNKNOWN
        for answer, posts in (
            ({"shouldSpeak": True, "messages": [{"content": "Ship it."}]}, True),
            ({"actions": [{"tool": "send_message", "args": {"to": "bob", "content": "hi"}}]}, True),
            ({"taskOps": [{"op": "offer", "description": "Write the spec", "claimKey": "spec"}]}, True),
            ({"taskOps": [{"op": "create", "description": "Write the spec"}]}, False),
            ({}, False),
        ):
            done = loop.create_future()
            base = {"innerThoughts": "x", "topicSaturation": 3, "interestLevel": 5, "shouldSpeak": False}
            done.set_result(StructuredAnswer(Thought.model_validate({**base, **answer}), [], []))
            assert upcoming.outcome(done) == (upcoming.POSTS if posts else upcoming.QUIET), answer
        failed = loop.create_future()
        failed.set_exception(BudgetExhausted("--max-calls 1 reached"))
        assert upcoming.outcome(failed) == upcoming.QUIET
    finally:
        loop.close()


# --- what holds a think back from starting early (EarlyCalls._blocked), on both sides -------------------


def _think(office: Office, employee: str, conversation: str, seconds: float) -> upcoming.Prediction:
    at = office.now() + timedelta(seconds=seconds)
    return upcoming.Prediction(conversation, at, Trigger.NUDGE, ChatRequest(messages=(), model="m"))


@pytest.mark.parametrize(
    ("posted", "total", "blocked"),
    [(2, 10, False), (3, 10, True)],  # posting rates (2+1)/12 = 0.25 and (3+1)/12 = 0.33 vs survival 0.7
    ids=["likely used", "likely dropped"],
)
def test_a_think_waits_behind_one_likely_to_post_where_it_reads(make_office, posted, total, blocked) -> None:
    office = make_office(casual=False)
    ahead = EarlyCalls(limit=4)
    for n in range(total):
        ahead.learn("nudge", n < posted)
    office.employees["alice"].desk.phase = Phase.TYPING  # reads one conversation only
    think = _think(office, "alice", ROOM, 30)
    before = [(think.at - timedelta(seconds=1), upcoming.UNKNOWN, "nudge")]
    assert ahead._blocked(office, "alice", think, {ROOM: before}) is blocked
    after = [(think.at + timedelta(seconds=1), upcoming.UNKNOWN, "nudge")]  # posts after it began
    assert ahead._blocked(office, "alice", think, {ROOM: after}) is False


def test_a_known_answer_decides_and_a_script_line_blocks(make_office) -> None:
    office = make_office(casual=False, script=[{"at": "00:01", "to": ROOM, "text": "Hello?"}])
    office.start()
    ahead = EarlyCalls(limit=4)
    office.employees["alice"].desk.phase = Phase.TYPING
    early = _think(office, "alice", ROOM, 30)  # before the script's line at 00:01
    late = _think(office, "alice", ROOM, 90)  # after it
    due = early.at - timedelta(seconds=1)
    assert ahead._blocked(office, "alice", early, {ROOM: [(due, upcoming.POSTS, "boss")]}) is True
    assert ahead._blocked(office, "alice", early, {ROOM: [(due, upcoming.QUIET, "boss")]}) is False
    assert ahead._blocked(office, "alice", early, {}) is False
    assert ahead._blocked(office, "alice", late, {}) is True


def test_an_idle_employee_waits_behind_posts_anywhere_it_reads(make_office) -> None:
    office = make_office()  # alice is in the room and the casual room
    ahead = EarlyCalls(limit=4)
    think = _think(office, "alice", ROOM, 60)
    elsewhere = {"eng-casual": [(think.at - timedelta(seconds=5), upcoming.POSTS, "nudge")]}
    office.employees["alice"].desk.phase = Phase.IDLE  # a post there may wake her sooner
    assert ahead._blocked(office, "alice", think, elsewhere) is True
    office.employees["alice"].desk.phase = Phase.TYPING  # her think is set: only its room matters
    assert ahead._blocked(office, "alice", think, elsewhere) is False


def test_posting_rates_start_at_a_half_and_follow_what_thinks_of_a_kind_did() -> None:
    ahead = EarlyCalls(limit=1)
    assert ahead.posting_rate("boss") == 0.5
    for posted in (True, True, True, False):
        ahead.learn("boss", posted)
    assert ahead.posting_rate("boss") == 4 / 6 and ahead.posting_rate("nudge") == 0.5
    assert kind_of(Trigger.NUDGE) == "nudge" and kind_of(Trigger.NUDGE, rethinks=1) == "rethink"
