"""Unanswered threads escalate (issue 13): the unanswered ceiling owes the room's lead (for a DM, the
sender) a think that may escalate to the boss chat, once a stretch; what it says there is flagged;
a mention of someone not in the conversation is told to its sender instead of vanishing."""

from __future__ import annotations

import re
from datetime import timedelta

from ideaco.kinds import ConversationKind, MessageKind
from ideaco.office.core.state import ConversationState
from ideaco.office.resolve import waking
from ideaco.office.rules.loop_breakers import UNANSWERED_CEILING
from tests.office.conftest import CASUAL, ROOM, messages_in, prompt_of, step_until, thought, thoughts_of, who

RIFFERS = ("bob", "charlie", "dana")  # three of them: no pair streak


def escalating(request):
    """Alice escalates when asked to; everyone else stays quiet."""
    if "escalate here" in prompt_of(request):
        return thought(True, "The lunch thread is stuck: please pick a place.", interest=8)
    return thought()


def riff(office, room: str = CASUAL, n: int = 10, start: int = 0) -> None:
    for i in range(start, start + n):
        office.post(office.make_message(room, RIFFERS[i % 3], f"riff {i}"))


async def test_the_ceiling_owes_the_lead_an_escalation_flagged_for_the_boss(make_office) -> None:
    office = make_office(escalating)
    office.start()
    riff(office)
    alice = office.employees["alice"]  # Engineering's lead (its first member)
    [owed] = alice.desk.owed
    assert (owed.conversation, owed.trigger, owed.escalation) == ("boss:alice", "system", True)
    assert "The thread in Engineering casual (eng-casual) has gone 10 messages" in owed.note
    assert "As the lead of Engineering" in owed.note
    assert office.conversations[CASUAL].escalated_at == office.now()
    await step_until(office, lambda: bool(messages_in(office, "boss:alice")))
    [said] = messages_in(office, "boss:alice")
    assert said["kind"] == MessageKind.ESCALATION and said["sender"] == "alice"
    [think] = thoughts_of(office, "alice")
    assert think["trigger"] == "system" and think["applied"]["began"]["owed"]["escalation"] is True


async def test_once_a_stretch_until_the_boss_writes_there(make_office, spy) -> None:
    office = make_office(escalating)
    wakes = spy(office)
    office.start()

    def escalations() -> int:
        return sum(1 for w in wakes.wakes if w.employee == "alice" and w.trigger == "system" and w.cause)

    riff(office, n=14)
    assert escalations() == 1  # posts 10 to 14: one escalation
    await office.run(timedelta(minutes=1))
    office.post_as_boss(CASUAL, "Noted, carry on.")
    await office.run(timedelta(seconds=1))
    riff(office, n=9, start=14)
    assert escalations() == 1
    riff(office, n=1, start=23)  # the tenth since the boss wrote: a new stretch
    assert escalations() == 2


async def test_a_dm_at_its_ceiling_owes_the_sender(make_office) -> None:
    office = make_office()
    conv = ConversationState("dm:bob:dana", ConversationKind.DM, "Bob & Dana", ["bob", "dana"])
    office.conversations[conv.id] = conv
    office.invalidate_index()
    office.start()
    for i in range(10):
        office.post(office.make_message(conv.id, ("dana", "bob")[i % 2], f"dm {i}"))
    [owed] = [o for o in office.employees["bob"].desk.owed if o.escalation]  # the tenth came from Bob
    assert owed.conversation == "boss:bob"
    assert owed.note.startswith("Your thread in Bob & Dana (dm:bob:dana) has gone 10 messages")
    assert not [o for o in office.employees["dana"].desk.owed if o.escalation]


async def test_a_room_without_a_lead_owes_the_sender(make_office) -> None:
    office = make_office(casual=False)  # no department: the work room has no lead
    office.start()
    for i in range(10):
        office.post(office.make_message(ROOM, ("alice", "bob", "charlie")[i % 3], f"riff {i}"))
    [owed] = office.employees["alice"].desk.owed  # the tenth was Alice's (i = 9)
    assert owed.note.startswith("Your thread in API design (api-design)")


async def test_the_stamina_escalation_is_flagged_too(make_office) -> None:
    from ideaco.mind.stamina import Stamina

    def answer(request):
        tag = who(request)
        if tag.conversation == "boss:alice" and "Escalate to the boss" in prompt_of(request):
            return thought(True, "I am stuck on the docs.", interest=8)
        return thought(taskOps=[{"op": "create", "description": "Docs"}] if tag.employee == "alice" else [])

    office = make_office(answer, script=[{"at": "00:00", "to": "boss:alice", "text": "Alice, the docs?"}])
    office.employees["alice"].mind.stamina = Stamina(patience=20, fatigue=60, stress=60)
    office.start()
    await step_until(
        office, lambda: bool([m for m in messages_in(office, "boss:alice") if m["sender"] == "alice"])
    )
    [said] = [m for m in messages_in(office, "boss:alice") if m["sender"] == "alice"]
    assert said["kind"] == MessageKind.ESCALATION


async def test_a_mention_of_someone_not_in_the_room_is_told_to_the_sender(make_office) -> None:
    def answer(request):
        tag = who(request)
        if tag.employee == "alice" and tag.conversation == ROOM:
            return thought(True, "@Dana can you design the error page?", interest=8)
        return thought()

    office = make_office(
        answer, script=[{"at": "00:00", "to": ROOM, "text": "@Alice who does the error page?"}]
    )
    office.start()
    await step_until(office, lambda: bool([m for m in messages_in(office, ROOM) if m["sender"] == "alice"]))
    [posted] = [m for m in messages_in(office, ROOM) if m["sender"] == "alice"]
    assert posted["mentions"] == ["dana"]  # named, but Dana is not in the room
    assert office.employees["alice"].mind.notes == [
        "Your message in API design mentioned Dana, who is not in it and did not see it. "
        "To reach them, use send_message (to: dana)."
    ]
    [think] = thoughts_of(office, "alice")
    [mind] = [s for s in think["applied"]["steps"] if s["step"] == "mind" and "notes" in s]
    assert mind["notes"] == office.employees["alice"].mind.notes


def test_the_escalation_note_says_the_ceiling_the_loop_breaker_counts() -> None:
    """The number the note tells the lead is the rule's own, rendered, never written twice."""
    for template in (waking.ESCALATE_ROOM, waking.ESCALATE_THREAD):
        assert re.search(r"\d", template) is None, template
        note = template.format(room="R", id="r", dept="D", ceiling=UNANSWERED_CEILING)
        assert f"gone {UNANSWERED_CEILING} messages without the boss" in note
