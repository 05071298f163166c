"""The office's upcoming thinks (office/engine/upcoming.py): who thinks next and from when, the
request they will send, and what due before them may change what they read."""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import timedelta

import pytest

from ideaco.cycle import Phase, Trigger
from ideaco.llm.structured import StructuredAnswer
from ideaco.mind.thought import Thought
from ideaco.office.core.conversation import Message
from ideaco.office.core.state import Hold
from ideaco.office.engine import upcoming
from ideaco.office.rules import levers
from ideaco.office.rules.config import Switches
from tests.office.conftest import ROOM, START, step_until
from tests.office.engine.test_early import PEOPLE, asked


async def started(make_office, **kw):
    """The office right after the boss asked everyone in their own chat."""
    office = make_office(casual=False, script=asked(*PEOPLE), **kw)
    office.start()
    await step_until(office, lambda: len(office.journal.messages) == len(PEOPLE))
    return office


async def test_upcoming_thinks_come_by_the_moment_they_can_begin(make_office) -> None:
    office = await started(make_office)
    await step_until(office, lambda: bool(office.typing))
    (typist,) = office.typing
    found = dict((e, at) for at, e in upcoming.upcoming(office))
    assert found[typist] == office.typing[typist].at  # typing: its think begins after the pause
    for emp in PEOPLE:
        if emp != typist:
            assert found[emp] == office.employees[emp].desk.wake_at  # idle: its next look
    assert list(found.values()) == sorted(found.values())


async def test_the_dismissed_the_held_and_those_thinking_now_have_no_upcoming_think(make_office) -> None:
    office = await started(make_office)
    office.employees["alice"].dismissed = True
    office.employees["bob"].desk.hold = Hold(office.now(), "stop")
    office.employees["charlie"].desk.phase = Phase.THINKING  # a wake came while it thinks: kept for later
    assert office.employees["charlie"].desk.wake_at is not None
    assert [e for _, e in upcoming.upcoming(office) if e in PEOPLE] == ["dana"]
    assert [e for _, e in upcoming.upcoming(office, exclude=["dana"]) if e in PEOPLE] == []
    for emp in ("alice", "bob", "charlie"):
        assert upcoming.predict(office, emp) is None, emp
    office.employees["dana"].desk.wake_at = None  # idle with nothing scheduled
    assert upcoming.predict(office, "dana") is None and upcoming.upcoming(office, exclude=["secretary"]) == []


async def test_an_idle_employees_next_think_begins_after_its_look_and_typing_pause(make_office) -> None:
    office = await started(make_office)
    desk = office.employees["alice"].desk
    drawn = office.streams.of("alice").getstate()
    think = upcoming.predict(office, "alice")
    assert (think.conversation, think.trigger) == ("boss:alice", Trigger.BOSS)
    assert desk.wake_at + timedelta(seconds=5) <= think.at <= desk.wake_at + timedelta(seconds=20)
    assert office.streams.of("alice").getstate() == drawn  # it only reads
    await step_until(office, lambda: "alice" in office.typing)
    typing = office.typing["alice"]
    assert (typing.at, typing.conversation) == (think.at, think.conversation)
    again = upcoming.predict(office, "alice")  # typing now: the think its pause ends in
    assert (again.at, again.conversation, again.trigger, again.request) == (
        think.at,
        think.conversation,
        think.trigger,
        think.request,
    )


async def test_an_employee_with_nothing_to_read_two_looks_ahead_has_no_upcoming_think(make_office) -> None:
    office = make_office(casual=False)
    office.start()
    assert all(upcoming.predict(office, emp) is None for emp in PEOPLE)


def test_what_an_early_call_was_made_for_cannot_change_under_it() -> None:
    """An early call is used only for a request equal to its prediction's: the prediction, and the
    typing it was read from, are values no holder changes."""
    typing = upcoming.Typing(START, ROOM, Trigger.NUDGE, "")
    with pytest.raises(dataclasses.FrozenInstanceError):
        typing.at = START + timedelta(seconds=1)  # type: ignore[misc]
    think = upcoming.Prediction(ROOM, START, Trigger.NUDGE, None)  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        think.conversation = "elsewhere"  # type: ignore[misc]


def test_a_think_posts_what_it_posts_think_seconds_after_it_begins(make_office) -> None:
    office = make_office(casual=False)
    seconds = office.config.think_seconds
    assert upcoming.finish_at(office, START) == START + timedelta(seconds=seconds) > START


# --- whether a think's draft is held whatever it says -------------------------------------------------


def _done(loop: asyncio.AbstractEventLoop, answer: dict | None) -> asyncio.Future:
    call = loop.create_future()
    base = {"innerThoughts": "x", "topicSaturation": 9, "interestLevel": 5, "shouldSpeak": True}
    value = Thought.model_validate({**base, **answer}) if answer is not None else None
    call.set_result(StructuredAnswer(value, "{}", [], []))
    return call


def _posted(office, sender: str, seconds_ago: float) -> None:
    conv = office.conversations[ROOM]
    conv.add(Message(f"m-{conv.count}", office.now() - timedelta(seconds=seconds_ago), ROOM, sender, "REST."))


async def test_a_draft_within_its_own_cooldown_is_held_whatever_it_says(make_office) -> None:
    office = make_office(casual=False)
    pending = asyncio.get_running_loop().create_future()
    _posted(office, "alice", 0)
    now, alice = office.now(), office.employees["alice"]
    cooldown = timedelta(
        seconds=levers.gates_of(alice, office.config.gates, office.config.person_levers()).work.cooldown_s
    )
    assert upcoming.held(office, "alice", ROOM, now + cooldown - timedelta(seconds=1), pending) is True
    assert upcoming.held(office, "alice", ROOM, now + cooldown, pending) is False
    assert upcoming.held(office, "bob", ROOM, now + timedelta(seconds=1), pending) is False  # not his post
    assert upcoming.held(office, "alice", "no-such-room", now, pending) is False


async def test_with_the_gates_switched_off_only_a_closed_room_holds_a_draft(make_office) -> None:
    office = make_office(casual=False, switches=Switches(gates=False))
    pending = asyncio.get_running_loop().create_future()
    _posted(office, "alice", 0)
    assert upcoming.held(office, "alice", ROOM, office.now() + timedelta(seconds=1), pending) is False
    office.conversations[ROOM].closed_until = office.now() + timedelta(minutes=5)
    assert upcoming.held(office, "alice", ROOM, office.now() + timedelta(seconds=1), pending) is True


@pytest.mark.parametrize(
    ("answer", "held"),
    [
        ({"messages": [{"content": "Ship it."}]}, True),  # a draft in the closed room only
        (None, True),  # no thought (a bad answer): it posts nothing anywhere
        ({"actions": [{"tool": "send_message", "args": {"to": "bob", "content": "hi"}}]}, False),
        ({"taskOps": [{"op": "offer", "description": "Write the spec", "claimKey": "spec"}]}, False),
    ],
    ids=["a draft", "no thought", "a DM", "a board offer"],
)
async def test_a_known_answer_that_posts_elsewhere_is_never_held(make_office, answer, held: bool) -> None:
    office = make_office(casual=False)
    office.conversations[ROOM].closed_until = office.now() + timedelta(minutes=5)
    call = _done(asyncio.get_running_loop(), answer)
    assert upcoming.held(office, "alice", ROOM, office.now() + timedelta(seconds=1), call) is held


# --- the boss's script ----------------------------------------------------------------------------------


async def test_a_script_line_due_at_a_thinks_very_moment_lands_before_it(make_office) -> None:
    office = make_office(casual=False, script=[{"at": "00:01", "to": ROOM, "text": "Hello?"}])
    office.start()
    line = START + timedelta(minutes=1)
    assert upcoming.scripted_before(office, {ROOM}, line) is True
    assert upcoming.scripted_before(office, {ROOM}, line - timedelta(microseconds=1)) is False
    assert upcoming.scripted_before(office, {"boss:alice"}, line) is False
    await step_until(office, lambda: bool(office.journal.messages))
    assert upcoming.scripted_before(office, {ROOM}, line + timedelta(hours=1)) is False  # posted already
