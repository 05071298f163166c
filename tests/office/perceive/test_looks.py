"""Spec 2.1 through the engine: what a look finds (a mention before the most unread, an idle casual
room now and then, the batch a typing pause gathers); an idle office costs nothing."""

from __future__ import annotations

from datetime import timedelta

from ideaco.office import rules
from tests.office.conftest import CASUAL, ROOM, messages_in, step_until, thought, thoughts_of, who

# --- an idle office costs nothing ----------------------------------------------------------------


async def test_idle_office_without_casual_room_makes_no_model_call(make_office) -> None:
    office = make_office(casual=False)
    office.start()
    await office.run(timedelta(hours=1))
    assert office.llm.requests == []
    assert office.journal.thoughts == []
    # every employee still looks at least every MAX seconds
    for emp in office.employees.values():
        assert emp.desk.wake_at is not None and emp.desk.wake_at <= office.clock.now() + timedelta(
            seconds=300
        )


async def test_idle_casual_room_thinks_rarely_with_trigger_idle(make_office, monkeypatch) -> None:
    draws: list[bool] = []
    real = rules.should_think_idle

    def counting(*args, **kwargs):
        result = real(*args, **kwargs)
        draws.append(result)
        return result

    monkeypatch.setattr(rules, "should_think_idle", counting)
    office = make_office(seed=5)
    office.start()
    await office.run(timedelta(hours=2))

    thoughts = office.journal.thoughts
    assert thoughts, "some idle look should think in two hours"
    assert all(t["trigger"] == "idle" and t["conversation"] == CASUAL for t in thoughts)
    assert len(thoughts) == sum(draws)  # one think per lucky look, none otherwise
    # Four people looking every <= 300 s for two hours; a look draws only while the room is idle.
    assert len(draws) >= 30
    assert len(thoughts) <= 0.35 * len(draws)
    assert len(office.llm.requests) == len(thoughts)


async def test_an_idle_think_may_start_a_topic_that_wakes_the_room(make_office) -> None:
    def answer(request):
        tag = who(request)
        if tag.conversation == CASUAL and "no messages yet" in request.messages[-1]["content"]:
            return thought(True, f"Anyone tried the new coffee machine? ({tag.employee})", interest=6)
        return thought()

    office = make_office(answer, seed=5)
    office.start()
    await office.run(timedelta(hours=1))
    opened = messages_in(office, CASUAL)
    assert opened, "an idle think started a topic"
    later = [t for t in office.journal.thoughts if t["at"] > opened[0]["at"] and t["conversation"] == CASUAL]
    assert any(t["trigger"] == "nudge" for t in later)


# --- the typing pause and the choice of conversation ---------------------------------------------


async def test_messages_arriving_in_the_typing_pause_join_the_batch(make_office) -> None:
    def answer(request):
        if who(request).employee == "alice":
            return thought(True, "REST, and gRPC between services.", interest=8)
        return thought()

    office = make_office(
        answer, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice REST or GraphQL?"}]
    )
    office.start()
    alice = office.employees["alice"]
    await step_until(office, lambda: alice.desk.phase == "typing")
    office.post(office.make_message(ROOM, "bob", "Internally we could use gRPC."))
    await step_until(office, lambda: bool(thoughts_of(office, "alice")))

    [request] = [r for r in office.llm.requests if who(r).employee == "alice"]
    assert "* [09:00] Bob: Internally we could use gRPC." in request.messages[-1]["content"]
    [rec] = thoughts_of(office, "alice")
    assert rec["trigger"] == "boss" and rec["gate"] is None and rec["rethink"] is False


def _busy_morning(office, *, mention: bool) -> None:
    """Three unread messages in the casual room and one in the work room, all for Alice."""
    for sender in ("bob", "charlie", "dana"):
        office.post(office.make_message(CASUAL, sender, f"{sender}: anyone for lunch?"))
    office.post(
        office.make_message(ROOM, "bob", "@Alice the schema is ready" if mention else "the schema is ready")
    )


async def test_a_mention_is_read_before_the_most_unread_conversation(make_office) -> None:
    office = make_office()
    office.start()
    await office.run(timedelta(minutes=10))
    before = len(thoughts_of(office, "alice"))  # idle casual-room thinks may have happened
    _busy_morning(office, mention=True)
    await step_until(office, lambda: len(thoughts_of(office, "alice")) >= before + 2)
    first, second = thoughts_of(office, "alice")[before : before + 2]
    assert (first["conversation"], first["trigger"]) == (ROOM, "mention")
    assert second["conversation"] == CASUAL


async def test_without_a_mention_the_most_unread_conversation_comes_first(make_office) -> None:
    office = make_office()
    office.start()
    await office.run(timedelta(minutes=10))
    before = len(thoughts_of(office, "alice"))  # idle casual-room thinks may have happened
    _busy_morning(office, mention=False)
    await step_until(office, lambda: len(thoughts_of(office, "alice")) >= before + 2)
    first, second = thoughts_of(office, "alice")[before : before + 2]
    assert first["conversation"] == CASUAL
    assert second["conversation"] == ROOM
