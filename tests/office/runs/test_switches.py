"""Ablation switches (docs/evaluation.md): each part of the engine, off, really is off.

Every switch defaults to today's engine; off, it changes what the engine does (a draft the gates
would hold is posted, a post owes every member a think, ops are dropped), not only the prompt.
"""

from __future__ import annotations

from datetime import timedelta

import pytest

from ideaco.office.resolve.policies import BroadcastWakes
from ideaco.office.resolve.waking import AdaptiveWakes
from ideaco.office.rules.config import Switches
from tests.office.conftest import ROOM, messages_in, prompt_of, step_until, thought, thoughts_of, who

BOSS_LINE = [{"at": "00:00", "to": ROOM, "text": "REST or GraphQL, everyone?"}]


def always_speaks(saturation: int = 9):
    """Everyone speaks, however saturated, a fresh line each time."""

    def answer(request):
        tag = who(request)
        return thought(True, f"{tag.employee} at {tag.at:%H:%M:%S}", saturation=saturation)

    return answer


def rich_thought(request):
    """A silent thought that remembers, judges a colleague and takes a task."""
    tag = who(request)
    other = "bob" if tag.employee != "bob" else "alice"
    return thought(
        memoryOps=[
            {
                "op": "add",
                "type": "long_term",
                "content": "REST it is",
                "category": "decision",
                "importance": 7,
            }
        ],
        memorySummary="We talked about REST.",
        relationshipOps=[{"employeeId": other, "name": other.title(), "impression": "sharp", "affinity": 65}],
        taskOps=[{"op": "create", "description": f"{tag.employee}: write it up", "type": "oneshot"}],
    )


def test_switches_default_to_todays_engine_and_read_on_off() -> None:
    assert Switches().is_default
    assert Switches().to_dict() == {
        "gates": "on",
        "wake": "adaptive",
        "memory": "on",
        "relationships": "on",
        "personas": "on",
        "stamina": "on",
    }
    off = Switches.from_dict({"gates": "off", "wake": "broadcast", "stamina": False})
    assert (off.gates, off.wake, off.stamina, off.memory) == (False, "broadcast", False, True)
    assert Switches.from_dict(off.to_dict()) == off
    with pytest.raises(ValueError, match="loudness: unknown switch"):
        Switches.from_dict({"loudness": "off"})
    with pytest.raises(ValueError, match="gates=maybe: expected on or off"):
        Switches.from_dict({"gates": "maybe"})
    with pytest.raises(ValueError, match="wake=polling"):
        Switches.from_dict({"wake": "polling"})


async def test_gates_off_posts_what_saturation_would_hold(make_office) -> None:
    # Only two speakers: no ring (it needs three) closes the room before the gates matter.
    speakers = always_speaks()

    def answer(request):
        return speakers(request) if who(request).employee in ("alice", "bob") else thought()

    on = make_office(answer, casual=False, script=BOSS_LINE)
    off = make_office(answer, casual=False, script=BOSS_LINE, switches=Switches(gates=False))
    for office in (on, off):
        office.start()
        await office.run(timedelta(minutes=10))
    nudged = [t for t in thoughts_of(on) if t["trigger"] == "nudge" and t["employee"] in ("alice", "bob")]
    assert nudged and {t["gate"] for t in nudged} <= {"saturation", "cooldown", "anti_spam"}
    gated = {"saturation", "cooldown", "anti_spam"}
    assert not any(t["gate"] in gated for t in thoughts_of(off))
    assert any(t["spoke"] for t in thoughts_of(off) if t["trigger"] == "nudge")
    assert len(messages_in(off, ROOM)) > len(messages_in(on, ROOM))


async def test_gates_off_still_refuses_a_duplicate(make_office) -> None:
    # The boss asks Alice twice, 30 s apart: she answers both with the same line within 60 s.
    asks = [
        {"at": "00:00", "to": ROOM, "text": "@Alice REST?"},
        {"at": "00:00:30", "to": ROOM, "text": "@Alice sure?"},
    ]
    office = make_office(
        lambda r: thought(True, "Same line.", saturation=2) if who(r).employee == "alice" else thought(),
        casual=False,
        script=asks,
        switches=Switches(gates=False),
    )
    office.start()
    await office.run(timedelta(minutes=10))
    rules = {
        step.get("rule")
        for t in thoughts_of(office)
        for step in t["applied"]["steps"]
        if step["step"] == "draft"
    }
    assert "duplicate" in rules


async def test_broadcast_wakes_every_member_for_every_message_and_never_on_a_timer(make_office) -> None:
    office = make_office(
        lambda r: thought(), casual=False, script=BOSS_LINE, switches=Switches(wake="broadcast")
    )
    assert isinstance(office.policy, BroadcastWakes)
    assert isinstance(make_office().policy, AdaptiveWakes) and not isinstance(
        make_office().policy, BroadcastWakes
    )
    office.start()
    await office.run(timedelta(minutes=30))
    thinkers = sorted(t["employee"] for t in thoughts_of(office))
    assert thinkers == ["alice", "bob", "charlie"]  # one think each for the one message, nothing else
    assert {t["trigger"] for t in thoughts_of(office)} == {"boss"}


async def test_memory_and_relationships_off_drop_their_ops(make_office) -> None:
    on = make_office(rich_thought, casual=False, script=BOSS_LINE)
    off = make_office(
        rich_thought, casual=False, script=BOSS_LINE, switches=Switches(memory=False, relationships=False)
    )
    for office in (on, off):
        office.start()
        await step_until(office, lambda o=office: len(thoughts_of(o)) >= 3)
    alice_on, alice_off = on.employees["alice"].mind, off.employees["alice"].mind
    assert alice_on.memory.long_term and alice_on.memory.summaries and alice_on.relationships
    assert not alice_off.memory.long_term and not alice_off.memory.summaries
    assert not alice_off.relationships
    assert alice_off.tasks  # the other parts of the mind still work
    step = next(s for s in thoughts_of(off, "alice")[0]["applied"]["steps"] if s["step"] == "mind")
    assert "memory" not in step and "relationships" not in step


async def test_stamina_off_never_changes_stamina(make_office) -> None:
    on = make_office(rich_thought, casual=False, script=BOSS_LINE)
    off = make_office(rich_thought, casual=False, script=BOSS_LINE, switches=Switches(stamina=False))
    for office in (on, off):
        office.start()
        await step_until(office, lambda o=office: len(thoughts_of(o)) >= 3)
    events = [
        e
        for t in thoughts_of(on)
        for step in t["applied"]["steps"]
        for e in (step.get("stamina") or {}).get("events", [])
    ]
    assert {"llm_call", "task_assigned"} <= set(events)
    st = off.employees["alice"].mind.stamina
    assert (st.patience, st.fatigue, st.stress) == (100, 0, 0)
    for record in thoughts_of(off):
        for step in record["applied"]["steps"]:
            assert not (step.get("stamina") or {}).get("events")


async def test_personas_off_give_everyone_a_blank_persona(make_office) -> None:
    prompts: dict[str, list[str]] = {}
    dynamic: dict[str, list[str]] = {}

    def answer(request):
        prompts.setdefault(who(request).employee, []).append(request.messages[0]["content"])
        dynamic.setdefault(who(request).employee, []).append(prompt_of(request))
        return thought()

    on = make_office(answer, casual=False, script=BOSS_LINE)
    on.start()
    await step_until(on, lambda: "alice" in prompts)
    assert "Personality:" in prompts["alice"][0]
    prompts.clear()
    first_off = len(dynamic["alice"])
    off = make_office(answer, casual=False, script=BOSS_LINE, switches=Switches(personas=False))
    off.start()
    await step_until(off, lambda: "alice" in prompts)
    system = prompts["alice"][0]
    assert system.startswith("You are Alice, Frontend engineer, 29 years old")
    assert "Personality:" not in system and "Tone:" not in system and "Tendencies:" not in system
    assert off.employees["alice"].persona["archetype"] == "anxious-perfectionist"  # kept, not read
    on_read, off_read = dynamic["alice"][0], dynamic["alice"][first_off]
    assert "REST or GraphQL, everyone?" in off_read  # the dynamic part is untouched: the boss's line
    assert off_read.split("## Recent messages", 1)[1] == on_read.split("## Recent messages", 1)[1]
