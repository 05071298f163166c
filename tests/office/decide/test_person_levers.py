"""People, not prompts (issue 13), through the engine: the same answers, different people, different office.

Each lever is shown on both sides of its threshold: the look cadence (talkativeness, stamina
zone), idle thinks in the red zone, per-person gates, silence_bias, and what affinity changes in
who is read first, how soon a DM is answered and whether a strained pair nudge each other.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest

from ideaco.kinds import ConversationKind
from ideaco.mind.relationships import Relation
from ideaco.mind.stamina import Stamina, zone
from ideaco.office import rules
from ideaco.office.core.conversation import Message
from ideaco.office.core.state import ConversationState
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.speech import gate_draft
from ideaco.office.rules import levers
from ideaco.office.rules.config import Switches
from tests.office.conftest import CASUAL, ROOM, START, at, step_until, thought, thoughts_of, who

RED = Stamina(patience=30, fatigue=60, stress=60)


def people(**archetypes: str) -> list[dict]:
    return [
        {"id": emp, "name": emp.capitalize(), "role": "Engineer", "archetype": archetype}
        for emp, archetype in archetypes.items()
    ]


def office_of(make_office, handler=None, *, rooms=None, script=None, casual=True, **archetypes: str):
    """An office of the named employees (id=archetype), all in one department and one work room."""
    ids = list(archetypes)
    departments = [{"id": "eng", "name": "Engineering", "mission": "Ship it", "members": ids}]
    return make_office(
        handler,
        scenario={
            "name": "levers",
            "company": "Acme Labs",
            "start": START.isoformat(),
            "departments": departments if casual else [],
            "employees": people(**archetypes),
            "rooms": rooms
            if rooms is not None
            else [{"id": ROOM, "name": "API", "kind": "work", "members": ids}],
            "script": script or [],
        },
    )


def delay_of(record: dict) -> float:
    return (
        datetime.fromisoformat(record["next_look_at"]) - datetime.fromisoformat(record["at"])
    ).total_seconds()


# --------------------------------------------------------------------------- cadence


async def test_the_same_thought_schedules_a_chatterbox_sooner_than_a_shy_introvert(make_office) -> None:
    office = office_of(
        make_office,
        lambda r: thought(interest=5, saturation=5),
        script=[{"at": "00:00", "to": ROOM, "text": "Morning, everyone."}],
        chatty="chatterbox",
        shy="shy-introvert",
    )
    office.start()
    await step_until(office, lambda: all(thoughts_of(office, e) for e in ("chatty", "shy")))
    base = rules.base_delay(5, 5)
    chatty, shy = delay_of(thoughts_of(office, "chatty")[0]), delay_of(thoughts_of(office, "shy")[0])
    fast, slow = 2**-0.9, 2**0.6  # talkativeness 0.95 and 0.2: pace 0.54 and 1.52
    assert base * fast * 0.9 <= chatty <= base * fast * 1.1
    assert base * slow * 0.9 <= shy <= base * slow * 1.1


async def test_a_red_zone_employee_looks_twice_as_far_apart_as_a_green_one(make_office) -> None:
    office = office_of(
        make_office,
        lambda r: thought(interest=5, saturation=5),
        script=[{"at": "00:00", "to": ROOM, "text": "Morning, everyone."}],
        green="old-hand",
        tired="old-hand",
    )
    office.employees["tired"].mind.stamina = RED
    office.start()
    await step_until(office, lambda: all(thoughts_of(office, e) for e in ("green", "tired")))
    assert zone(office.employees["tired"].mind.stamina) == "red"
    base = rules.base_delay(5, 5) * 2**0.2  # old hand: talkativeness 0.4
    assert base * 0.9 <= delay_of(thoughts_of(office, "green")[0]) <= base * 1.1
    assert base * 2 * 0.9 <= delay_of(thoughts_of(office, "tired")[0]) <= base * 2 * 1.1


async def test_an_empty_look_waits_the_persons_own_maximum(make_office) -> None:
    office = office_of(make_office, rooms=[], casual=False, chatty="chatterbox", shy="shy-introvert")
    office.employees["shy"].mind.stamina = RED
    office.start()
    first = {e: office.employees[e].desk.wake_at for e in ("chatty", "shy")}
    waits: dict[str, timedelta] = {}

    def looked() -> bool:
        for emp, was in first.items():
            now_at = office.employees[emp].desk.wake_at
            if emp not in waits and now_at != was:
                waits[emp] = now_at - was
        return len(waits) == 2

    await step_until(office, looked)
    # Nothing to read: the next look is the person's MAX (300 s x pace), no model call.
    assert waits["chatty"].total_seconds() == pytest.approx(300 * 2**-0.9)
    assert waits["shy"].total_seconds() == pytest.approx(300 * 2**0.6 * 2)
    assert office.llm.requests == []


async def test_a_red_zone_employee_takes_no_idle_casual_thinks(make_office) -> None:
    office = office_of(make_office, rooms=[], green="chatterbox", tired="chatterbox")
    office.config.timers = rules.TimerConfig(idle_think_chance=1.0, idle_casual_after_s=60)
    office.employees["tired"].mind.stamina = RED
    office.start()
    await office.run(timedelta(minutes=30))
    idle = [t for t in thoughts_of(office) if t["trigger"] == "idle"]
    assert {t["employee"] for t in idle} == {"green"}


# --------------------------------------------------------------------------- speech


def _posts(office, employee: str, room: str, *seconds: float) -> Scratch:
    scratch = Scratch(office.state)
    conv = scratch.conversation(room)
    for i, s in enumerate(seconds):
        conv.add(Message(f"p{i}", at(s), room, employee, f"post {i}"))
    return scratch


@pytest.mark.parametrize(
    ("archetype", "cooldown"),
    [("chatterbox", 60 * 2**-0.9), ("shy-introvert", 60 * 2**0.6), ("old-hand", 60 * 2**0.2)],
)
def test_a_persons_cooldown_in_a_work_room(make_office, archetype: str, cooldown: float) -> None:
    office = office_of(make_office, me=archetype)
    gates = levers.gates_of(office.employees["me"], office.config.gates, office.config.person_levers())
    scratch = _posts(office, "me", ROOM, 0)
    conv = scratch.conversations[ROOM]
    held = gate_draft(scratch, "me", conv, "again", 1, False, at(cooldown - 0.001), gates)
    assert held is not None and held.gate == "cooldown" and held.reopens_at == at(cooldown)
    assert gate_draft(scratch, "me", conv, "again", 1, False, at(cooldown), gates) is None


@pytest.mark.parametrize(
    ("archetype", "window"), [("chatterbox", 600 * 2**-0.9), ("shy-introvert", 600 * 2**0.6)]
)
def test_a_persons_anti_spam_window_in_a_casual_room(make_office, archetype: str, window: float) -> None:
    office = office_of(make_office, me=archetype)
    gates = levers.gates_of(office.employees["me"], office.config.gates, office.config.person_levers())
    scratch = _posts(office, "me", CASUAL, 0, 100, 150, 200)  # four posts: the casual limit
    conv = scratch.conversations[CASUAL]
    held = gate_draft(scratch, "me", conv, "more", 1, False, at(window - 0.001), gates)
    assert held is not None and held.gate == "anti_spam" and held.reopens_at == at(window)
    assert gate_draft(scratch, "me", conv, "more", 1, False, at(window), gates) is None


def _speaker(interest: int):
    def answer(request):
        return thought(True, f"{who(request).employee} at {who(request).at:%H:%M:%S}", interest=interest)

    return answer


@pytest.mark.parametrize(("interest", "spoke"), [(6, False), (7, True)])
async def test_a_zen_slacker_keeps_a_draft_under_its_silence_threshold(
    make_office, interest: int, spoke: bool
) -> None:
    office = office_of(
        make_office,
        _speaker(interest),
        script=[{"at": "00:00", "to": ROOM, "text": "@Other anything new?"}],
        zen="zen-slacker",
        other="chatterbox",
    )
    office.start()
    # The boss addressed Other: Zen is only nudged, so its own threshold decides.
    await step_until(office, lambda: bool(thoughts_of(office, "zen")))
    nudged = thoughts_of(office, "zen")[0]
    assert nudged["trigger"] == "nudge"
    assert nudged["spoke"] is spoke
    if not spoke:
        [draft] = [s for s in nudged["applied"]["steps"] if s["step"] == "draft"]
        assert nudged["gate"] == "chose_silence" and draft["gate"] == "chose_silence"
        assert "under Zen's silence threshold 7 (silence_bias 0.90)" in draft["detail"]


async def test_being_addressed_lifts_the_silence_threshold(make_office) -> None:
    office = office_of(
        make_office,
        _speaker(2),
        script=[{"at": "00:00", "to": ROOM, "text": "@Zen what do you think?"}],
        zen="zen-slacker",
    )
    office.start()
    await step_until(office, lambda: bool(thoughts_of(office, "zen")))
    assert thoughts_of(office, "zen")[0]["spoke"]


# --------------------------------------------------------------------------- relationships


def rate(office, who_: str, whom: str, affinity: float) -> None:
    office.employees[who_].mind.relationships[whom] = Relation(whom.capitalize(), "", affinity, START)


def _two_rooms(make_office):
    rooms = [
        {"id": "r1", "name": "One", "kind": "work", "members": ["me", "liked", "disliked"]},
        {"id": "r2", "name": "Two", "kind": "work", "members": ["me", "liked", "disliked"]},
    ]
    return office_of(make_office, rooms=rooms, me="old-hand", liked="old-hand", disliked="old-hand")


@pytest.mark.parametrize(("liked", "disliked", "first"), [(80, 30, "r2"), (50, 50, "r1"), (30, 80, "r1")])
def test_who_is_read_first_leans_toward_the_people_one_likes(
    make_office, liked: float, disliked: float, first: str
) -> None:
    office = _two_rooms(make_office)
    rate(office, "me", "liked", liked)
    rate(office, "me", "disliked", disliked)
    for room, sender in (("r1", "disliked"), ("r2", "liked")):
        conv = office.conversations[room]
        conv.add(Message(f"{room}-1", START, room, sender, "news"))
    # One unread each: equal counts go to the first room, unless affinity weighs one more.
    assert office.policy.choose(office, office.employees["me"], START) == (first, None)


def test_more_unread_still_wins_over_a_small_liking(make_office) -> None:
    office = _two_rooms(make_office)
    rate(office, "me", "liked", 60)
    office.conversations["r1"].add(Message("a", START, "r1", "disliked", "one"))
    office.conversations["r1"].add(Message("b", START, "r1", "disliked", "two"))
    office.conversations["r2"].add(Message("c", START, "r2", "liked", "three"))
    assert office.policy.choose(office, office.employees["me"], START) == ("r1", None)


def _dm_nudge(make_office, affinity: float | None, seed: int = 4) -> float:
    office = office_of(make_office, rooms=[], me="old-hand", you="old-hand")
    if affinity is not None:
        rate(office, "me", "you", affinity)
    dm = ConversationState("dm:me:you", ConversationKind.DM, "Me & You", ["me", "you"])
    office.conversations[dm.id] = dm
    office.invalidate_index()
    message = Message("m1", START, dm.id, "you", "got a minute?")
    dm.add(message)
    reach = office.policy.reached_by(office, dm, message, random.Random(seed))
    [wake] = reach.wakes
    assert wake.employee == "me" and wake.trigger == "nudge"
    return (wake.at - START).total_seconds()


def test_a_dm_from_someone_liked_is_answered_sooner(make_office) -> None:
    neutral = _dm_nudge(make_office, None)
    assert _dm_nudge(make_office, 100) == pytest.approx(neutral * 0.5)
    assert _dm_nudge(make_office, 80) == pytest.approx(neutral * 0.7)
    assert _dm_nudge(make_office, 50) == pytest.approx(neutral)
    assert _dm_nudge(make_office, 20) == pytest.approx(neutral * 1.3)  # under 20: strained, no nudge at all


@pytest.mark.parametrize(("mine", "theirs", "nudged"), [(19, 80, False), (80, 19, False), (20, 20, True)])
def test_a_strained_pair_stop_nudging_each_other(
    make_office, mine: float, theirs: float, nudged: bool
) -> None:
    office = office_of(make_office, a="old-hand", b="old-hand", c="old-hand")
    rate(office, "a", "b", mine)
    rate(office, "b", "a", theirs)
    conv = office.conversations[ROOM]
    message = Message("m1", START, ROOM, "b", "I think we should use REST.")
    conv.add(message)
    woken = {w.employee for w in office.policy.reached_by(office, conv, message, random.Random(1)).wakes}
    assert "c" in woken
    assert ("a" in woken) is nudged


def test_a_strained_pair_still_wake_each_other_with_a_mention(make_office) -> None:
    office = office_of(make_office, a="old-hand", b="old-hand")
    rate(office, "a", "b", 5)
    conv = office.conversations[ROOM]
    message = office.make_message(ROOM, "b", "@A can you review this?")
    conv.add(message)
    [wake] = office.policy.reached_by(office, conv, message, random.Random(1)).wakes
    assert (wake.employee, wake.trigger) == ("a", "mention")


# --------------------------------------------------------------------------- ablation switches


@pytest.mark.parametrize("personas", [True, False])
def test_with_personas_switched_off_every_lever_is_the_spec_s_engine(make_office, personas: bool) -> None:
    office = office_of(make_office, chatty="chatterbox", zen="zen-slacker", grinder="ultra-grinder")
    office.config.switches = Switches(personas=personas)
    cfg = office.config.person_levers()
    chatty, zen, grinder = (office.employees[e] for e in ("chatty", "zen", "grinder"))
    if personas:
        assert levers.pace_of(chatty, cfg) == pytest.approx(2**-0.9)
        assert levers.silence_threshold_of(zen, cfg) == 7
        assert levers.dibs(zen, START, cfg) == START + timedelta(seconds=216)
        assert levers.dibs(grinder, START, cfg) == START + timedelta(seconds=12)
    else:  # a blank persona: the spec's timers and gates, no chosen silence, no first dibs
        assert levers.pace_of(chatty, cfg) == 1.0 and levers.pace_of(zen, cfg) == 1.0
        assert levers.gates_of(chatty, office.config.gates, cfg) == office.config.gates
        assert levers.silence_threshold_of(zen, cfg) == 1
        assert levers.dibs(zen, START, cfg) == START == levers.dibs(grinder, START, cfg)
        assert levers.talkativeness_of(chatty, cfg) == 0.5
    # What is not a persona's stays: the red zone still looks twice as far apart.
    chatty.mind.stamina = RED
    assert levers.pace_of(chatty, cfg) == pytest.approx(2 * (2**-0.9 if personas else 1.0))
