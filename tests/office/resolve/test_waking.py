"""Spec 2.1 through the engine: whom a post reaches: boss lines, mentions and nudges wake people."""

from __future__ import annotations

from datetime import datetime, timedelta

from tests.office.conftest import ROOM, START, at, messages_in, thought, thoughts_of, who


def _first_thought(office, employee):
    return thoughts_of(office, employee)[0]


async def test_boss_line_without_mentions_wakes_every_member(make_office, spy) -> None:
    office = make_office(
        casual=False, script=[{"at": "00:00", "to": ROOM, "text": "Should the new API be REST or GraphQL?"}]
    )
    wakes = spy(office)
    office.start()
    await office.run(timedelta(minutes=1))

    boss = messages_in(office, ROOM)[0]
    assert boss["sender"] == "boss" and boss["id"] == "script-1"
    assert boss["mentions"] == ["alice", "bob", "charlie"]
    caused = wakes.caused_by("script-1")
    assert sorted(w.employee for w in caused) == ["alice", "bob", "charlie"]
    for w in caused:
        assert w.trigger == "boss"
        assert START + timedelta(seconds=1) <= w.due <= START + timedelta(seconds=5)
    for emp in ("alice", "bob", "charlie"):
        first = _first_thought(office, emp)
        assert first["trigger"] == "boss" and first["conversation"] == ROOM
        # woken 1-5 s after the post, then a 5-20 s typing pause
        assert at(6).isoformat() <= first["at"] <= at(25).isoformat()
    assert thoughts_of(office, "dana") == []  # not a member of the room


async def test_boss_line_with_a_mention_wakes_only_that_one(make_office, spy) -> None:
    office = make_office(casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Bob, REST or GraphQL?"}])
    wakes = spy(office)
    office.start()
    await office.run(timedelta(minutes=1))

    assert messages_in(office, ROOM)[0]["mentions"] == ["bob"]
    by_employee = {w.employee: w for w in wakes.caused_by("script-1")}
    assert by_employee["bob"].trigger == "boss"
    assert START + timedelta(seconds=1) <= by_employee["bob"].due <= START + timedelta(seconds=5)
    for emp in ("alice", "charlie"):
        assert by_employee[emp].trigger == "nudge"
        assert START + timedelta(seconds=10) <= by_employee[emp].due <= START + timedelta(seconds=300)
    bob = _first_thought(office, "bob")
    assert bob["trigger"] == "boss"
    assert at(6).isoformat() <= bob["at"] <= at(25).isoformat()
    for t in thoughts_of(office):
        if t["employee"] != "bob":
            assert t["trigger"] == "nudge"
            assert t["at"] >= at(15).isoformat()  # nudge >= 10 s + typing >= 5 s


async def test_boss_chat_line_wakes_its_employee(make_office) -> None:
    office = make_office(
        casual=False, script=[{"at": "00:02", "to": "boss:dana", "text": "How is the mock-up going?"}]
    )
    office.start()
    await office.run(timedelta(minutes=3))
    [first] = thoughts_of(office, "dana")
    assert first["conversation"] == "boss:dana" and first["trigger"] == "boss"
    assert at(126).isoformat() <= first["at"] <= at(145).isoformat()


async def test_agent_mention_wakes_the_named_within_seconds(make_office, spy) -> None:
    office = make_office(casual=False)
    wakes = spy(office)
    office.start()
    await office.run(timedelta(minutes=10))  # everyone idle, nothing unread
    posted_at = office.clock.now()
    message = office.make_message(ROOM, "alice", "@Bob can you check the schema?")
    office.post(message)
    assert message.mentions == ("bob",)

    by_employee = {w.employee: w for w in wakes.caused_by(message.id)}
    assert set(by_employee) == {"bob", "charlie"}  # never the sender
    assert by_employee["bob"].trigger == "mention"
    assert posted_at + timedelta(seconds=1) <= by_employee["bob"].due <= posted_at + timedelta(seconds=5)
    assert by_employee["charlie"].trigger == "nudge"
    await office.run(timedelta(minutes=1))
    bob = thoughts_of(office, "bob")[0]
    assert bob["trigger"] == "mention"
    delay = (datetime.fromisoformat(bob["at"]) - posted_at).total_seconds()
    assert 6 <= delay <= 25


async def test_an_email_address_wakes_nobody_early(make_office, spy) -> None:
    office = make_office(casual=False)
    wakes = spy(office)
    office.start()
    await office.run(timedelta(minutes=10))
    posted_at = office.clock.now()
    message = office.make_message(ROOM, "alice", "send the spec to bob@example.com please")
    office.post(message)
    assert message.mentions == ()
    caused = wakes.caused_by(message.id)
    assert {w.trigger for w in caused} == {"nudge"}
    assert all(w.due >= posted_at + timedelta(seconds=10) for w in caused)


async def test_a_model_written_mention_reaches_the_colleague(make_office) -> None:
    """End to end: Alice answers the boss with '@Charlie ...'; Charlie thinks with trigger mention."""

    def answer(request):
        tag = who(request)
        if tag.employee == "alice" and tag.conversation == ROOM:
            return thought(True, "@Charlie how much load can the gateway take?", interest=8)
        return thought()

    office = make_office(
        answer, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice what do we need?"}]
    )
    office.start()
    await office.run(timedelta(minutes=2))
    [alice_msg] = [m for m in messages_in(office, ROOM) if m["sender"] == "alice"]
    assert alice_msg["mentions"] == ["charlie"]
    charlie = [t for t in thoughts_of(office, "charlie") if t["at"] > alice_msg["at"]][0]
    assert charlie["trigger"] == "mention"
