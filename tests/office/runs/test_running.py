"""Running an office: concurrent thinks applied in clock order, determinism, resume, the real clock."""

from __future__ import annotations

import asyncio
import json
import random
import time
from datetime import datetime, timedelta

import pytest
from freezegun import freeze_time

from ideaco.office.engine import persistence
from ideaco.office.engine.build import office_from_state
from ideaco.office.engine.clock import RealClock, SimClock
from ideaco.office.resolve.journal import MemoryJournal
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import (
    CASUAL,
    ROOM,
    START,
    DelayedLLM,
    messages_in,
    step_until,
    thought,
    thoughts_of,
    who,
)

SCRIPT = [
    {"at": "00:00", "to": ROOM, "text": "Should the new API be REST or GraphQL?"},
    {"at": "00:04", "to": CASUAL, "text": "Cake in the kitchen!"},
    {"at": "00:12", "to": "boss:alice", "text": "Alice, sum it up for me please."},
]


def lively(request):
    """Everyone speaks when something is unread, quietly otherwise; a pure function of the request."""
    tag = who(request)
    content = request.messages[-1]["content"]
    if "\n* [" in content:
        return thought(
            True, f"{tag.employee} on {tag.conversation} at {tag.at:%H:%M:%S}", interest=7, saturation=4
        )
    return thought(interest=4, saturation=6)


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


# --- concurrency ---------------------------------------------------------------------------------


async def test_thinks_due_together_run_concurrently_and_apply_in_clock_order(make_office) -> None:
    def speak(request):
        return thought(True, f"{who(request).employee} answers", interest=8)

    # The earliest think's call is the slowest, so calls return in the reverse order they started.
    inner = ScriptedLLM(handler=speak)
    order: dict[str, float] = {}

    def delay(request):
        order.setdefault(request.tag, 0.06 - 0.02 * len(order))
        return order[request.tag]

    llm = DelayedLLM(inner, delay)
    office = make_office(
        llm=llm, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "Quick round, everyone?"}]
    )
    office.config.think_seconds = 30  # all three are thinking at once
    office.start()
    await office.run(timedelta(minutes=1))

    assert llm.max_in_flight == 3
    assert llm.returned[:3] == list(reversed(llm.started[:3]))
    firsts = office.journal.thoughts[:3]
    assert [t["at"] for t in firsts] == sorted(t["at"] for t in firsts)
    assert [f"{t['employee']} in {t['conversation']} at {t['at']}" for t in firsts] == llm.started[:3]
    posted = [m for m in messages_in(office, ROOM) if m["sender"] != "boss"]
    assert posted and posted[0]["sender"] == firsts[0]["employee"]  # the first to think posts first


async def test_run_can_be_called_again_with_a_call_in_flight(make_office) -> None:
    llm = DelayedLLM(
        ScriptedLLM(handler=lambda r: thought(True, f"{who(r).employee} here", interest=8)), lambda r: 0.02
    )
    office = make_office(llm=llm, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice ping"}])
    office.start()
    await step_until(office, lambda: len(llm.started) == 1)
    await office.run(until=office.clock.now() + timedelta(seconds=1))  # ends while the call is out
    await office.run(timedelta(minutes=1))
    [alice] = thoughts_of(office, "alice")
    assert alice["spoke"] is True


# --- determinism ---------------------------------------------------------------------------------


async def _transcript(
    make_office, seed: int, latency_rng: random.Random, most: float = 0.03
) -> tuple[str, str]:
    llm = DelayedLLM(ScriptedLLM(handler=lively), lambda r: latency_rng.uniform(0, most))
    office = make_office(llm=llm, seed=seed, script=SCRIPT)
    office.start()
    await office.run(timedelta(minutes=15))
    thoughts = [{k: v for k, v in t.items() if k != "llm"} for t in office.journal.thoughts]
    return json.dumps(office.journal.messages), json.dumps(thoughts)


async def test_same_seed_same_answers_give_identical_logs_whatever_the_latency(make_office) -> None:
    first = await _transcript(make_office, 3, random.Random(1))
    second = await _transcript(make_office, 3, random.Random(2))
    assert len(json.loads(first[0])) >= 8  # a real conversation, not an empty office
    assert first[0] == second[0]
    assert first[1] == second[1]


async def test_a_different_seed_gives_a_different_transcript(make_office) -> None:
    first = await _transcript(make_office, 3, random.Random(0), most=0)
    other = await _transcript(make_office, 4, random.Random(0), most=0)
    assert first[0] != other[0]


# --- resume --------------------------------------------------------------------------------------


async def test_resume_continues_where_the_snapshot_left_off(make_office) -> None:
    office = make_office(lively, seed=3, script=SCRIPT)
    office.start()
    await office.run(timedelta(minutes=8))
    snapshot = json.loads(json.dumps(office.journal.state))  # as it would come back from state.json
    messages, thoughts = list(office.journal.messages), list(office.journal.thoughts)
    assert snapshot["office"]["script_next"] == 2

    now = datetime.fromisoformat(snapshot["office"]["now"])
    assert now == START + timedelta(minutes=8)
    journal = MemoryJournal()
    resumed = office_from_state(
        snapshot,
        messages,
        thoughts=thoughts,
        llm=ScriptedLLM(handler=lively),
        clock=SimClock(now),
        journal=journal,
    )
    assert set(resumed.conversations) == set(office.conversations)
    for emp_id, emp in office.employees.items():
        assert resumed.employees[emp_id].desk.cursors == emp.desk.cursors
    for conv_id, conv in office.conversations.items():
        assert resumed.conversations[conv_id].count == conv.count

    resumed.start()
    await resumed.run(timedelta(minutes=10))
    new_messages = journal.messages
    ids = [m["id"] for m in messages + new_messages]
    assert len(ids) == len(set(ids))
    thought_ids = [t["id"] for t in thoughts + journal.thoughts]
    assert len(thought_ids) == len(set(thought_ids))
    assert [m["id"] for m in new_messages if m["sender"] == "boss"] == ["script-3"]  # once, not re-posted
    assert min(m["at"] for m in new_messages) >= now.isoformat()
    assert any(m["sender"] == "alice" and m["conversation"] == "boss:alice" for m in new_messages)


async def test_resume_from_a_state_behind_its_logs_hands_out_fresh_ids(make_office) -> None:
    office = make_office(casual=False)
    office.start()
    await office.run(timedelta(minutes=1))
    snapshot = json.loads(json.dumps(persistence.snapshot(office)))
    office.post_as_boss(ROOM, "A note nobody saved in state.json")  # logged, then the run is killed
    messages = list(office.journal.messages)

    resumed = office_from_state(
        snapshot,
        messages,
        thoughts=[],
        llm=ScriptedLLM(handler=lambda r: thought()),
        clock=SimClock(office.clock.now()),
        journal=MemoryJournal(),
    )
    again = resumed.post_as_boss(ROOM, "Is anyone there?")
    assert again.id != messages[-1]["id"]
    assert [m["text"] for m in resumed.journal.messages] == ["Is anyone there?"]
    assert resumed.conversations[ROOM].count == 2


# --- the real clock ------------------------------------------------------------------------------


def test_real_clock_maps_simulated_time_to_wall_time_with_an_injected_wall() -> None:
    wall = [datetime(2030, 1, 1, 12, 0, 0)]
    clock = RealClock(START, speed=60, wall=lambda: wall[0])
    assert clock.now() == START
    wall[0] += timedelta(seconds=2)
    assert clock.now() == START + timedelta(minutes=2)
    assert clock.wall_time_of(START + timedelta(minutes=30)) == datetime(2030, 1, 1, 12, 0, 30)


def test_real_clock_schedules_jobs_at_start_plus_delay_over_speed() -> None:
    with freeze_time("2030-01-01 12:00:00"):
        clock = RealClock(START, speed=600)

        async def nothing() -> None:
            return None

        clock.call_at(START + timedelta(minutes=10), nothing)  # 600 s simulated = 1 s of wall time
        clock.call_at(START + timedelta(hours=1), nothing)
        runs = sorted(job.trigger.run_date.replace(tzinfo=None) for job in clock._scheduler.get_jobs())
    assert runs == [datetime(2030, 1, 1, 12, 0, 1), datetime(2030, 1, 1, 12, 0, 6)]


async def test_an_office_on_the_real_clock_answers_a_script_line(make_office) -> None:
    def answer(request):
        if who(request).employee == "alice":
            return thought(True, "REST, unless partners need flexible queries.", interest=8)
        return thought()

    clock = RealClock(START, speed=600)
    office = make_office(
        answer,
        clock=clock,
        casual=False,
        script=[{"at": "00:00", "to": ROOM, "text": "@Alice REST or GraphQL?"}],
    )
    office.start()
    running = asyncio.create_task(office.run(timedelta(hours=1)))
    deadline = time.monotonic() + 10
    try:
        while not any(m["sender"] == "alice" for m in office.journal.messages):
            assert not running.done(), running.exception() if running.done() else None
            assert time.monotonic() < deadline, "no reply on the real clock"
            await asyncio.sleep(0.01)
    finally:
        office.stop("test over")
        await running
        clock.close()
    boss, reply = office.journal.messages[:2]
    assert boss["id"] == "script-1" and reply["sender"] == "alice"
    # 1-5 s wake + 5-20 s typing + 5 s think in simulated time; a busy machine only makes it later
    assert 11 <= (_dt(reply["at"]) - _dt(boss["at"])).total_seconds() < 300
    assert office.stop_reason == "test over"


@pytest.mark.parametrize("speed", [0, -1])
def test_real_clock_refuses_a_speed_that_is_not_positive(speed) -> None:
    with pytest.raises(ValueError):
        RealClock(START, speed=speed)
