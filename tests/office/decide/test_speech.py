"""What becomes of a draft (decide/speech.py): the text posted, whom it addresses, the gate or loop
breaker that holds it, where a send_message goes, and the reply owed to the held."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ideaco.cycle import Gate, LoopRule, TextRule, Trigger
from ideaco.mind.thought import WIRE_LIMITS
from ideaco.office.core.conversation import Message
from ideaco.office.core.steps import DraftStep
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.speech import (
    DraftVerdict,
    build_message,
    clean_draft,
    escalates,
    gate_draft,
    hold_for,
    outsider_note,
    post,
    target_for,
    tell_outsiders,
)
from ideaco.office.rules.config import Switches
from tests.office.conftest import CASUAL, ROOM, START

NOW = START + timedelta(minutes=30)
BOUND = WIRE_LIMITS["content"]


# --- the text posted ----------------------------------------------------------------------------------


def test_a_draft_that_fits_is_posted_whole_and_trimmed() -> None:
    assert clean_draft("  Ship it today.  ", inner_thoughts="Should we ship?", compact=False) == (
        "Ship it today.",
        None,
        "",
    )


def test_a_draft_that_ran_into_its_bound_is_cut_back_to_its_last_sentence() -> None:
    head = "Ship it today. Then we "
    text, verdict, note = clean_draft(head + "x" * (BOUND - len(head)), inner_thoughts="", compact=False)
    assert (text, verdict) == ("Ship it today.", None)
    assert note == f"cut back to its last sentence (it ran into its {BOUND}-character bound)"


def test_a_draft_cut_mid_sentence_with_no_sentence_to_keep_is_not_posted() -> None:
    text, verdict, note = clean_draft("we should " * (BOUND // 10), inner_thoughts="", compact=False)
    assert verdict == DraftVerdict(
        Gate.FILTERED,
        TextRule.UNFINISHED,
        f"ran into its {BOUND}-character bound mid-sentence",
        kind="hygiene",
    )


def test_under_standard_filters_a_draft_cut_mid_sentence_is_posted_as_written() -> None:
    draft = "we should " * (BOUND // 10)
    assert clean_draft(draft, inner_thoughts="", compact=False, filters="standard") == (
        draft.strip(),
        None,
        "",
    )


# --- whom a message addresses -------------------------------------------------------------------------


def test_a_boss_line_that_names_nobody_addresses_every_member(make_office) -> None:
    office = make_office()
    conv, people = office.state.conversations[ROOM], Scratch(office.state).people()
    boss = build_message(conv, "boss", "Status, everyone?", "m-1", people, NOW)
    assert set(boss.mentions) == {"alice", "bob", "charlie"} and boss.kind == "chat" and boss.at == NOW
    colleague = build_message(conv, "alice", "Status, everyone?", "m-2", people, NOW)
    assert colleague.mentions == ()
    named = build_message(conv, "alice", "@Bob can you check the schema?", "m-3", people, NOW)
    assert named.mentions == ("bob",)


def test_a_mention_of_someone_outside_the_conversation_is_told_to_its_sender(make_office) -> None:
    office = make_office()  # dana is in the department, not in the API design room
    scratch = Scratch(office.state)
    conv = scratch.conversations[ROOM]
    message = build_message(conv, "alice", "@Dana what do you think?", "m-1", scratch.people(), NOW)
    assert tell_outsiders(scratch, conv, message, NOW)  # the change to alice's mind, as a step
    assert scratch.employees["alice"].mind.notes[-1] == (
        "Your message in API design mentioned Dana, who is not in it and did not see it. "
        "To reach them, use send_message (to: dana)."
    )
    inside = build_message(conv, "alice", "@Bob what do you think?", "m-2", scratch.people(), NOW)
    assert tell_outsiders(scratch, conv, inside, NOW) == []


def test_a_posted_draft_is_in_its_conversation_on_the_scratch_only_with_its_step_and_the_outsiders_note(
    make_office,
) -> None:
    office = make_office()
    scratch = Scratch(office.state)
    conv = scratch.conversations[ROOM]
    before = office.state.conversations[ROOM].count
    message, steps = post(scratch, conv, "messages[0]", "alice", "@Dana ready?", "m-9", scratch.people(), NOW)
    assert (message.id, message.sender, message.mentions) == ("m-9", "alice", ("dana",))
    assert scratch.conversations[ROOM].recent[-1] is message
    assert office.state.conversations[ROOM].count == before  # the office itself untouched
    assert steps[0] == DraftStep("messages[0]", ROOM, message=message, message_id="m-9")
    assert len(steps) == 2  # dana is not in the room: alice's note of it, as a mind step


def test_a_refusal_is_logged_as_a_draft_step_with_its_gate_rule_and_reopening() -> None:
    verdict = DraftVerdict(Gate.COOLDOWN, LoopRule.DUPLICATE, "said before", NOW, "")
    assert verdict.step("actions[1]", ROOM) == DraftStep(
        "actions[1]", ROOM, gate=Gate.COOLDOWN, rule=LoopRule.DUPLICATE, detail="said before", reopens_at=NOW
    )


def test_two_outsiders_are_named_together(make_office) -> None:
    office = make_office()
    conv = office.state.conversations[ROOM]
    message = Message("m-1", NOW, ROOM, "alice", "@Dana @Erin", mentions=("dana", "erin"))
    note = outsider_note(conv, message, {"dana": "Dana"})
    assert note.startswith("Your message in API design mentioned Dana, erin, who are not in it")
    assert note.endswith("use send_message (to: dana, erin).")


# --- the gates and loop breakers ----------------------------------------------------------------------


def _post(scratch: Scratch, conv_id: str, sender: str, text: str, seconds_ago: float) -> None:
    conv = scratch.conversation(conv_id)
    conv.add(Message(f"m-{conv.count}", NOW - timedelta(seconds=seconds_ago), conv_id, sender, text))


def _gate(office, scratch: Scratch, text: str, *, employee: str = "alice", conv: str = ROOM, switches=None):
    kw = {"switches": switches} if switches is not None else {}
    state = scratch.conversations[conv]
    return gate_draft(scratch, employee, state, text, 3, False, NOW, office.config.gates, **kw)


def test_anti_spam_counts_the_employees_own_messages_only(make_office) -> None:
    office = make_office()
    scratch = Scratch(office.state)
    _post(scratch, ROOM, "bob", "REST.", 180)
    _post(scratch, ROOM, "bob", "Or GraphQL.", 120)
    assert _gate(office, scratch, "I prefer REST.") is None  # bob's two lines are not alice's
    _post(scratch, ROOM, "alice", "REST, surely.", 170)
    _post(scratch, ROOM, "alice", "Versioned.", 110)
    verdict = _gate(office, scratch, "I prefer REST.")
    assert verdict.gate == Gate.ANTI_SPAM and verdict.reopens_at == NOW + timedelta(seconds=130)


def test_the_same_words_posted_in_another_room_a_moment_ago_are_a_duplicate(make_office) -> None:
    office = make_office()
    scratch = Scratch(office.state)
    _post(scratch, CASUAL, "bob", "Lunch at noon?", 10)
    assert _gate(office, scratch, "Lunch at noon?") is None  # bob said it there, not alice
    _post(scratch, CASUAL, "alice", "Ship the API on Friday.", 10)
    verdict = _gate(office, scratch, "Ship the API on Friday.")
    assert verdict.gate == Gate.LOOP_BREAKER and verdict.rule == LoopRule.DUPLICATE
    assert f"in {CASUAL} at" in verdict.detail


def test_repeating_oneself_costs_stamina_and_a_new_draft_does_not(make_office) -> None:
    office = make_office()
    scratch = Scratch(office.state)
    before = office.employees["alice"].mind.stamina
    _post(scratch, CASUAL, "alice", "Ship the API on Friday.", 10)
    assert _gate(office, scratch, "A brand new point.") is None
    assert scratch.employees["alice"].mind.stamina == before
    assert _gate(office, scratch, "Ship the API on Friday.").rule == LoopRule.DUPLICATE
    after = scratch.employees["alice"].mind.stamina
    assert after.patience == before.patience - 15 and after.stress == before.stress + 10


def test_with_stamina_switched_off_a_repetition_is_refused_and_costs_nothing(make_office) -> None:
    office = make_office()
    scratch = Scratch(office.state)
    before = office.employees["alice"].mind.stamina
    _post(scratch, CASUAL, "alice", "Ship the API on Friday.", 10)
    verdict = _gate(office, scratch, "Ship the API on Friday.", switches=Switches(stamina=False))
    assert verdict.rule == LoopRule.DUPLICATE and scratch.employees["alice"].mind.stamina == before


def test_a_room_closed_by_a_ring_holds_every_agent_draft(make_office) -> None:
    office = make_office()
    scratch = Scratch(office.state)
    scratch.conversation(ROOM).closed_until = NOW + timedelta(minutes=2)
    verdict = _gate(office, scratch, "One more thing.")
    assert verdict.gate == Gate.LOOP_BREAKER and verdict.rule == LoopRule.RING
    assert verdict.detail == f"closed to agent posts until {(NOW + timedelta(minutes=2)).isoformat()}"


# --- the reply owed to a held employee ----------------------------------------------------------------

REOPENS = NOW + timedelta(seconds=40)
COOLDOWN = DraftVerdict(Gate.COOLDOWN, reopens_at=REOPENS)


@pytest.mark.parametrize(
    ("trigger", "note", "owed_trigger", "text"),
    [
        (
            Trigger.NUDGE,
            "",
            Trigger.MENTION,
            "You were addressed here but held back (cooldown); reply now if still useful.",
        ),
        (
            Trigger.BOSS,
            "a note",
            Trigger.BOSS,
            "You were addressed here but held back (cooldown); reply now if still useful.",
        ),
        (
            Trigger.SYSTEM,
            "",
            Trigger.SYSTEM,
            "You were addressed here but held back (cooldown); reply now if still useful.",
        ),
        (
            Trigger.TASK,
            "Report task-3 to the boss.",
            Trigger.TASK,
            "Report task-3 to the boss. (You were held back earlier by cooldown.)",
        ),
    ],
    ids=[
        "a nudge is owed as a mention",
        "the boss's keeps its trigger",
        "an empty engine note",
        "an engine note kept",
    ],
)
def test_a_held_employee_is_owed_its_reply_when_the_gate_opens(trigger, note, owed_trigger, text) -> None:
    step = hold_for("alice", ROOM, COOLDOWN, trigger, note)
    assert (step.employee, step.conversation, step.reopens_at) == ("alice", ROOM, REOPENS)
    assert (step.owed.conversation, step.owed.trigger, step.owed.note) == (ROOM, owed_trigger, text)


# --- where a send_message goes ------------------------------------------------------------------------


def test_send_message_to_the_boss_goes_to_the_senders_boss_chat(make_office) -> None:
    scratch = Scratch(make_office().state)
    for to in ("boss", "BOSS", "boss:alice"):
        assert target_for(scratch, "alice", to, scratch.people()).id == "boss:alice"


def test_send_message_to_a_colleague_opens_a_dm_by_id_or_name(make_office) -> None:
    scratch = Scratch(make_office().state)
    dm = target_for(scratch, "alice", "Charlie", scratch.people())
    assert (dm.id, dm.name, dm.members, dm.kind.value) == (
        "dm:alice:charlie",
        "Alice & Charlie",
        ["alice", "charlie"],
        "dm",
    )
    assert (
        target_for(scratch, "charlie", "alice", scratch.people()) is scratch.conversations["dm:alice:charlie"]
    )
    assert target_for(scratch, "alice", "bob", scratch.people()).id == "dm:alice:bob"


def test_send_message_to_oneself_goes_nowhere(make_office) -> None:
    scratch = Scratch(make_office().state)
    assert target_for(scratch, "alice", "Alice", scratch.people()) is None
    assert not any(c.startswith("dm:") for c in scratch.conversations)


def test_send_message_to_a_room_needs_its_id_or_alias_and_membership(make_office) -> None:
    scratch = Scratch(make_office().state)
    assert target_for(scratch, "alice", ROOM, scratch.people()).id == ROOM
    assert target_for(scratch, "alice", f"group-chat-{ROOM}", scratch.people()).id == ROOM
    assert target_for(scratch, "dana", ROOM, scratch.people()) is None  # not a member
    assert target_for(scratch, "alice", "nowhere", scratch.people()) is None
    assert target_for(scratch, "alice", "boss:bob", scratch.people()) is None  # someone else's chat


def test_what_a_think_answering_an_escalation_says_to_the_boss_is_flagged() -> None:
    assert escalates({"owed": {"conversation": "boss:alice", "escalation": True}}) is True
    assert escalates({"owed": {"conversation": "boss:alice"}}) is False
    assert escalates({"owed": None}) is False and escalates({}) is False
