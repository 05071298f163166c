"""Holds (issue 13) through the engine: the boss stops one employee, the office goes on, the release
delivers what arrived meanwhile as one batch, and the logs rebuild the hold on resume."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta

from ideaco.office.engine import persistence
from ideaco.office.engine.build import office_from_state
from ideaco.office.engine.clock import SimClock
from ideaco.office.engine.persistence import snapshot
from ideaco.office.resolve.journal import MemoryJournal
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import ROOM, at, prompt_of, step_until, thought, thoughts_of, who


def handler(requests: list):
    """Everyone answers what is new; Bob also writes to Alice privately when the boss asks him."""

    def answer(request):
        requests.append(request)
        tag = who(request)
        text = prompt_of(request)
        if tag.employee == "bob" and "Boss (BOSS): @Alice @Bob what do you think" in text.split("* [", 1)[-1]:
            dm = {"tool": "send_message", "args": {"to": "alice", "content": "Alice, your view?"}}
            return thought(True, "REST, I think.", interest=8, actions=[dm])
        return thought(True, f"{tag.employee} at {tag.at:%H:%M:%S}", interest=8)

    return answer


SCRIPT = [
    {"at": "00:00", "to": ROOM, "text": "@Alice stop: focus on the release"},
    {"at": "00:01", "to": ROOM, "text": "@Alice @Bob what do you think?"},
    {"at": "00:02", "to": "boss:alice", "text": "Alice, a quick one when you can."},
]


async def test_a_held_employee_takes_no_thinks_while_the_office_goes_on(make_office) -> None:
    requests: list = []
    office = make_office(handler(requests), script=SCRIPT)
    office.start()
    await office.run(timedelta(minutes=10))
    alice = office.employees["alice"]
    assert alice.desk.hold is not None and alice.desk.hold.reason == "focus on the release"
    assert alice.desk.hold.since == at(0)
    assert thoughts_of(office, "alice") == []  # mentioned, written to, DMed: no think
    assert alice.desk.wake_at is None
    assert thoughts_of(office, "bob")  # the others go on
    assert "dm:alice:bob" in office.conversations
    assert persistence.snapshot(office)["employees"][0]["desk"]["hold"] == {
        "since": at(0).isoformat(),
        "reason": "focus on the release",
    }


async def test_the_release_delivers_what_arrived_as_one_batch(make_office) -> None:
    requests: list = []
    office = make_office(handler(requests), script=SCRIPT)
    office.start()
    await office.run(timedelta(minutes=10))
    released_at = office.now()
    office.post_as_boss("boss:alice", "@Alice continue")
    assert office.employees["alice"].desk.hold is None
    await step_until(office, lambda: bool(thoughts_of(office, "alice")))
    first = thoughts_of(office, "alice")[0]
    assert first["trigger"] == "boss"
    # woken 1-5 s after the release, then the typing pause
    assert (released_at + timedelta(seconds=6)).isoformat() <= first["at"]
    assert first["at"] <= (released_at + timedelta(seconds=25)).isoformat()
    note = first["applied"]["began"]["notes"]
    [text] = note
    assert text.startswith(
        "You were on hold since 09:00. While you were away: the boss mentioned you in API design; "
        "the boss wrote to you in your boss chat; Bob wrote to you privately"
    )
    assert text.endswith(". Catch up now.")
    [asked] = [r for r in requests if who(r).employee == "alice"]
    assert "[system] You were on hold since 09:00." in prompt_of(asked)
    # What addresses her follows at once (1-5 s after the think before), not at the next timed look;
    # the DM (a nudge, spec 2.1) at her next look.
    await step_until(office, lambda: len(thoughts_of(office, "alice")) == 2, within=timedelta(seconds=60))
    second = thoughts_of(office, "alice")[1]
    assert (second["trigger"], second["conversation"]) == ("boss", "boss:alice")
    assert second["at"] <= (datetime.fromisoformat(first["at"]) + timedelta(seconds=5 + 5 + 20)).isoformat()
    await step_until(office, lambda: len(thoughts_of(office, "alice")) == 3, within=timedelta(minutes=6))
    assert {t["conversation"] for t in thoughts_of(office, "alice")} == {ROOM, "boss:alice", "dm:alice:bob"}


async def test_a_release_with_nothing_waiting_says_so(make_office) -> None:
    office = make_office(script=[{"at": "00:00", "to": "boss:dana", "text": "@Dana stop"}])
    office.start()
    await office.run(timedelta(minutes=5))
    office.post_as_boss("boss:dana", "@Dana continue")
    assert office.employees["dana"].mind.notes == [
        "You were on hold since 09:00; nothing was addressed to you meanwhile."
    ]
    # One wake: the release's (and the boss line's own, which Dana reads in her boss chat).
    assert office.employees["dana"].desk.wake_triggers == ["timer", "boss"]


async def test_a_hold_in_the_typing_pause_cancels_the_think_and_keeps_what_it_owed(make_office) -> None:
    office = make_office(script=[{"at": "00:00", "to": "boss:dana", "text": "Dana, a report please."}])
    office.start()
    await step_until(office, lambda: office.employees["dana"].desk.phase == "typing")
    office.post_as_boss(ROOM, "@Dana stop")  # Dana is not in the room: an order works from anywhere
    await office.run(timedelta(minutes=5))
    assert thoughts_of(office, "dana") == []
    desk = office.employees["dana"].desk
    assert desk.phase == "idle" and desk.wake_at is None


async def test_sentences_that_only_sound_like_orders_hold_no_one(make_office) -> None:
    office = make_office(script=[{"at": "00:00", "to": ROOM, "text": "@Alice stop worrying, it is fine"}])
    office.start()
    await office.run(timedelta(minutes=2))
    assert office.employees["alice"].desk.hold is None
    assert thoughts_of(office, "alice")


async def test_only_the_boss_gives_orders(make_office) -> None:
    office = make_office()
    office.start()
    office.post(office.make_message(ROOM, "bob", "@Alice stop"))
    assert office.employees["alice"].desk.hold is None


async def test_a_resume_rebuilds_the_hold_from_the_logs(make_office) -> None:
    requests: list = []
    office = make_office(handler(requests), script=SCRIPT)
    start = copy.deepcopy(snapshot(office))  # saved before the hold
    office.start()
    await office.run(timedelta(minutes=10))
    rebuilt = office_from_state(
        json.loads(json.dumps(start, default=str)),
        list(office.journal.messages),
        thoughts=list(office.journal.thoughts),
        llm=ScriptedLLM(),
        clock=SimClock(office.now()),
        journal=MemoryJournal(),
    )
    assert rebuilt.employees["alice"].desk.hold == office.employees["alice"].desk.hold
    rebuilt.start()  # the held get no first look
    assert rebuilt.employees["alice"].desk.wake_at is None
