"""Spec 2.2 through the engine: saturation, anti-spam and cooldown, and re-waking the held."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from ideaco.office.rules import levers
from tests.office.conftest import ROOM, messages_in, step_until, thought, thoughts_of, who


def chatty(*speakers: str, saturation: int = 3, interest: int = 8, room: str = ROOM):
    """A handler where `speakers` always want to speak in `room` (a fresh text each time)."""

    def answer(request):
        tag = who(request)
        if tag.employee in speakers and tag.conversation == room:
            return thought(
                True, f"{tag.employee} at {tag.at:%H:%M:%S}", interest=interest, saturation=saturation
            )
        return thought()

    return answer


def said(office, employee: str, room: str = ROOM) -> list[dict]:
    return [m for m in messages_in(office, room) if m["sender"] == employee]


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


async def test_cooldown_holds_a_second_message_within_60_s(make_office) -> None:
    office = make_office(
        chatty("alice"), casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice REST?"}]
    )
    office.start()
    await step_until(office, lambda: len(said(office, "alice")) == 1)
    first_at = office.clock.now()
    office.post_as_boss(ROOM, "@Alice and what about versioning?")
    await step_until(office, lambda: any(t["gate"] == "cooldown" for t in thoughts_of(office, "alice")))

    held = [t for t in thoughts_of(office, "alice") if t["gate"] == "cooldown"][0]
    assert held["spoke"] is False and held["thought"]["shouldSpeak"] is True
    assert held["messages"] == []
    assert (office.clock.now() - first_at).total_seconds() < 60
    assert len(said(office, "alice")) == 1  # nothing posted by the held draft


async def test_saturation_silences_the_unmentioned_but_not_the_mentioned(make_office) -> None:
    office = make_office(
        chatty("alice", "bob", saturation=8),
        casual=False,
        script=[{"at": "00:00", "to": ROOM, "text": "@Alice REST or GraphQL, final answer?"}],
    )
    office.start()
    await office.run(timedelta(minutes=6))

    alice = thoughts_of(office, "alice")[0]
    assert alice["trigger"] == "boss" and alice["spoke"] is True and alice["gate"] is None
    bob = thoughts_of(office, "bob")
    assert bob and all(t["trigger"] != "mention" for t in bob)
    assert {t["gate"] for t in bob} == {"saturation"}
    assert said(office, "bob") == []


async def test_saturation_threshold_is_seven(make_office) -> None:
    office = make_office(
        chatty("bob", saturation=6),
        casual=False,
        script=[{"at": "00:00", "to": ROOM, "text": "@Alice REST?"}],
    )
    office.start()
    await office.run(timedelta(minutes=6))
    assert said(office, "bob"), "saturation 6 does not silence"


async def test_anti_spam_holds_the_third_message_in_five_minutes(make_office) -> None:
    office = make_office(
        chatty("alice"), casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice first?"}]
    )
    office.start()
    await step_until(office, lambda: len(said(office, "alice")) == 1)
    first = _dt(said(office, "alice")[0]["at"])
    # The next question comes after the cooldown, so only anti-spam can hold the third answer.
    await step_until(office, lambda: office.clock.now() >= first + timedelta(seconds=61))
    office.post_as_boss(ROOM, "@Alice second?")
    await step_until(office, lambda: len(said(office, "alice")) == 2)
    second = _dt(said(office, "alice")[1]["at"])
    await step_until(office, lambda: office.clock.now() >= second + timedelta(seconds=61))
    office.post_as_boss(ROOM, "@Alice third?")
    await step_until(office, lambda: any(t["gate"] == "anti_spam" for t in thoughts_of(office, "alice")))

    held = [t for t in thoughts_of(office, "alice") if t["gate"] == "anti_spam"][0]
    assert _dt(held["at"]) - first < timedelta(minutes=5)
    assert len(said(office, "alice")) == 2


@pytest.mark.parametrize("interest", [8, 10])  # 10: her own next look comes before the gate opens
async def test_a_mentioned_employee_held_by_cooldown_replies_when_it_opens(make_office, interest) -> None:
    """The reply is delayed, never dropped: re-woken at the gate's opening with trigger mention."""
    office = make_office(
        chatty("alice", interest=interest, saturation=1),
        casual=False,
        script=[{"at": "00:00", "to": ROOM, "text": "@Alice REST?"}],
    )
    office.start()
    await step_until(office, lambda: len(said(office, "alice")) == 1)
    first = _dt(said(office, "alice")[0]["at"])
    office.post_as_boss(ROOM, "@Alice and what about versioning?")
    await step_until(office, lambda: len(said(office, "alice")) == 2, within=timedelta(minutes=10))

    thoughts = thoughts_of(office, "alice")
    held = next(i for i, t in enumerate(thoughts) if t["gate"] == "cooldown")
    reply = thoughts[held + 1]
    assert reply["spoke"] is True and reply["trigger"] == "boss"  # a re-wake keeps its trigger
    opens = first + timedelta(seconds=60)
    # re-woken when the cooldown opens, then the usual typing pause
    assert opens + timedelta(seconds=5) <= _dt(reply["at"]) <= opens + timedelta(seconds=20)
    assert "held back (cooldown)" in office.llm.requests[-1].messages[-1]["content"]


async def test_a_mentioned_employee_held_by_anti_spam_replies_when_it_opens(make_office) -> None:
    office = make_office(
        chatty("alice"), casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice first?"}]
    )
    office.start()
    for n in (1, 2):
        await step_until(office, lambda n=n: len(said(office, "alice")) == n)
        last = _dt(said(office, "alice")[-1]["at"])
        await step_until(office, lambda last=last: office.clock.now() >= last + timedelta(seconds=61))
        office.post_as_boss(ROOM, f"@Alice question {n + 1}?")
    await step_until(office, lambda: len(said(office, "alice")) == 3, within=timedelta(minutes=15))

    first = _dt(said(office, "alice")[0]["at"])
    third = said(office, "alice")[2]
    # Her anti-spam window: the spec's 5 minutes scaled by her talkativeness (rules/levers.py).
    window = levers.gates_of(office.employees["alice"], office.config.gates, office.config.person_levers())
    assert _dt(third["at"]) >= first + timedelta(seconds=window.work.window_s)
    thoughts = thoughts_of(office, "alice")
    held = next(i for i, t in enumerate(thoughts) if t["gate"] == "anti_spam")
    assert any(t["spoke"] and t["trigger"] == "boss" for t in thoughts[held + 1 :])


async def test_a_colleague_mention_held_by_cooldown_is_re_woken_as_a_mention(make_office) -> None:
    office = make_office(
        chatty("alice"), casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice REST?"}]
    )
    office.start()
    await step_until(office, lambda: len(said(office, "alice")) == 1)
    first = _dt(said(office, "alice")[0]["at"])
    office.post(office.make_message(ROOM, "bob", "@Alice are you sure about caching?"))
    await step_until(office, lambda: len(said(office, "alice")) == 2, within=timedelta(minutes=10))

    thoughts = thoughts_of(office, "alice")
    held = next(i for i, t in enumerate(thoughts) if t["gate"] == "cooldown")
    assert thoughts[held]["trigger"] == "mention"
    reply = thoughts[held + 1]
    assert reply["spoke"] is True and reply["trigger"] == "mention"
    assert _dt(reply["at"]) <= first + timedelta(seconds=60 + 20)
