"""What a thought changes in its employee's mind, through the engine (spec 2.4-2.6): memory,
summaries, relationships, claims, task urgency and stalls, stamina and escalation, the loop-breaker
reset of a task op, and the state round trip. Each threshold is tested on both sides.
"""

from __future__ import annotations

import json
from collections import defaultdict, deque
from datetime import datetime, timedelta
from typing import Any

import pytest

from ideaco.mind import stamina as stamina_rules
from ideaco.mind import tasks as task_rules
from ideaco.mind.stamina import REFLECTION_QUESTIONS, YELLOW_NOTE, Stamina
from ideaco.mind.tasks import open_claims
from ideaco.office.engine import persistence
from ideaco.office.engine.build import office_from_state
from ideaco.office.engine.clock import SimClock
from ideaco.office.engine.office import Office
from ideaco.office.resolve.journal import MemoryJournal
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import CASUAL, ROOM, prompt_of, since_boss, step_until, thought, who

BOSS_A = "boss:alice"
BOSS_B = "boss:bob"
NAMES = {"alice": "Alice", "bob": "Bob", "charlie": "Charlie", "dana": "Dana"}


class Mind:
    """A scripted model: answers queued per (employee, conversation), silence once a queue is empty."""

    def __init__(self) -> None:
        self.plans: dict[tuple[str, str], deque[Any]] = defaultdict(deque)

    def then(self, employee: str, conversation: str, *answers: Any) -> Mind:
        self.plans[(employee, conversation)].extend(answers)
        return self

    def __call__(self, request: Any) -> Any:
        tag = who(request)
        plan = self.plans[(tag.employee, tag.conversation)]
        return plan.popleft() if plan else thought()


def new_thoughts(office: Office, since: int, employee: str, conversation: str | None = None) -> list[dict]:
    return [
        t
        for t in office.journal.thoughts[since:]
        if t["employee"] == employee and (conversation is None or t["conversation"] == conversation)
    ]


async def think(office: Office, employee: str, conversation: str, text: str = "Your view?") -> dict:
    """The boss writes to `employee` in `conversation`; step until a think of theirs has read it."""
    since = len(office.journal.thoughts)
    addressed = text if conversation.startswith("boss:") else f"@{NAMES[employee]} {text}"
    office.post_as_boss(conversation, addressed)
    posted = office.conversations[conversation].count
    emp = office.employees[employee]
    await step_until(
        office, lambda: emp.desk.cursors.get(conversation, 0) >= posted, within=timedelta(minutes=5)
    )
    return new_thoughts(office, since, employee, conversation)[-1]


def prompt_for(office: Office, record: dict) -> str:
    """The prompt the thought `record` read."""
    at = datetime.fromisoformat(record["at"])
    return next(
        prompt_of(r)
        for r in office.llm.requests
        if who(r).employee == record["employee"] and who(r).at == at and not who(r).repair
    )


def requests_of(office: Office, employee: str) -> list[str]:
    return [prompt_of(r) for r in office.llm.requests if who(r).employee == employee and not who(r).repair]


def create(description: str, **fields: Any) -> dict:
    return {"op": "create", "description": description, "type": "oneshot", **fields}


def memory_add(content: str, *, kind: str = "long_term", category: str = "fact", importance: int = 5) -> dict:
    return {"op": "add", "type": kind, "content": content, "category": category, "importance": importance}


def finished_at(record: dict, office: Office) -> datetime:
    """When a thought's effects were applied: its start plus the think time."""
    return datetime.fromisoformat(record["at"]) + timedelta(seconds=office.config.think_seconds)


# --- memory ----------------------------------------------------------------------------------------


async def test_memory_ops_land_in_memory_and_the_next_prompt_shows_them_with_ids(make_office) -> None:
    mind = Mind().then(
        "alice",
        BOSS_A,
        thought(
            memoryOps=[
                memory_add("Bob prefers REST for public APIs", category="preference", importance=7),
                memory_add("The boss wants a decision by Friday", kind="short_term", category="task"),
            ]
        ),
        thought(
            memoryOps=[
                memory_add("bob prefers REST for public APIs.", category="preference", importance=9),
                {"op": "update", "id": "mem-99", "content": "nothing to update"},
            ]
        ),
        thought(memoryOps=[{"op": "delete", "id": "mem-2"}]),
    )
    office = make_office(mind, casual=False)
    office.start()
    emp = office.employees["alice"]

    first = await think(office, "alice", BOSS_A, "Remember: Bob likes REST; I need it by Friday.")
    assert "## Your memories" not in prompt_for(office, first)
    assert first["corrections"] == []
    [long] = emp.mind.memory.long_term
    [short] = emp.mind.memory.short_term
    assert (long.id, long.content, long.category, long.importance) == (
        "mem-1",
        "Bob prefers REST for public APIs",
        "preference",
        7,
    )
    assert (short.id, short.expires_at) == ("mem-2", finished_at(first, office) + timedelta(hours=24))

    # The next prompt lists them with their ids; a duplicate add updates mem-1, an unknown id is a correction.
    second = await think(office, "alice", BOSS_A, "Anything else?")
    prompt = prompt_for(office, second)
    assert "[mem-1] (preference, 7) Bob prefers REST for public APIs" in prompt
    assert "[mem-2] (task, 5) The boss wants a decision by Friday" in prompt
    [long] = emp.mind.memory.long_term
    assert (long.id, long.content, long.importance) == ("mem-1", "bob prefers REST for public APIs.", 9)
    assert any("duplicate of mem-1, updated" in c for c in second["corrections"])
    assert "memoryOps[1]: unknown memory id 'mem-99', dropped" in second["corrections"]

    third = await think(office, "alice", BOSS_A, "Friday is off.")
    assert "[mem-1] (preference, 9) bob prefers REST for public APIs." in prompt_for(office, third)
    assert emp.mind.memory.short_term == [] and third["corrections"] == []
    fourth = await think(office, "alice", BOSS_A, "Still there?")
    assert "mem-2" not in prompt_for(office, fourth)


async def test_the_memory_summary_is_shown_in_that_conversation_only(make_office) -> None:
    summary = "The boss wants REST vs GraphQL settled by Friday."
    mind = Mind().then("alice", BOSS_A, thought(memorySummary=summary), thought(memorySummary=None))
    office = make_office(mind, casual=False)
    office.start()
    emp = office.employees["alice"]

    first = await think(office, "alice", BOSS_A, "REST or GraphQL, by Friday please.")
    assert "## Summary of this conversation" not in prompt_for(office, first)
    assert emp.mind.memory.summaries == {BOSS_A: summary}

    second = await think(office, "alice", BOSS_A, "Any progress?")
    assert f"## Summary of this conversation so far\n{summary}" in prompt_for(office, second)
    assert emp.mind.memory.summaries == {BOSS_A: summary}  # a null summary keeps the old one
    elsewhere = await think(office, "alice", ROOM, "What do you think?")
    assert "## Summary of this conversation" not in prompt_for(office, elsewhere)


# --- relationships --------------------------------------------------------------------------------

TIRED = Stamina(patience=50, fatigue=40, stress=40)
AFTER_CALL = (50.0, 42.0, 40.0)  # TIRED after one llm call
POSITIVE = (55.0, 39.0, 35.0)  # ... and a chat_positive
NEGATIVE = (42.0, 45.0, 50.0)  # ... and a chat_negative


@pytest.mark.parametrize(
    ("asked", "kept", "clamped", "after"),
    [
        (90, 65, "+40 to +15", POSITIVE),
        (10, 35, "-40 to -15", NEGATIVE),
        (56, 56, None, POSITIVE),
        (55, 55, None, AFTER_CALL),
        (45, 45, None, AFTER_CALL),
        (44, 44, None, NEGATIVE),
    ],
)
async def test_an_affinity_change_is_clamped_to_15_and_a_swing_over_5_moves_stamina(
    make_office, asked: int, kept: int, clamped: str | None, after: tuple[float, float, float]
) -> None:
    op = {"employeeId": "bob", "name": "Bob", "impression": "sharp on the backend", "affinity": asked}
    office = make_office(Mind().then("alice", ROOM, thought(relationshipOps=[op])), casual=False)
    office.start()
    emp = office.employees["alice"]
    emp.mind.stamina = TIRED

    record = await think(office, "alice", ROOM, "What do you make of Bob's backend work?")

    assert emp.mind.relationships["bob"].affinity == kept
    assert emp.mind.relationships["bob"].impression == "sharp on the backend"
    notes = [c for c in record["corrections"] if "clamped" in c]
    if clamped:
        assert notes == [f"relationshipOps[0]: affinity change for bob clamped from {clamped}"]
    else:
        assert notes == []
    assert (emp.mind.stamina.patience, emp.mind.stamina.fatigue, emp.mind.stamina.stress) == after


@pytest.mark.parametrize(
    ("boss_says", "kept"),
    [("What do you make of Bob's work?", 60), ("@bob, your view?", 60), ("How is the team?", 50)],
)
async def test_an_affinity_moves_only_for_someone_the_thought_read_or_read_about(
    make_office, boss_says: str, kept: int
) -> None:
    op = {"employeeId": "bob", "impression": "knows the backend", "affinity": 60}
    office = make_office(Mind().then("alice", BOSS_A, thought(relationshipOps=[op])), casual=False)
    office.start()

    record = await think(office, "alice", BOSS_A, boss_says)

    assert office.employees["alice"].mind.relationships["bob"].affinity == kept
    assert office.employees["alice"].mind.relationships["bob"].impression == "knows the backend"
    note = "relationshipOps[0]: affinity for bob kept: nothing of theirs was read"
    assert (note in record["corrections"]) == (kept == 50)


async def test_one_colleague_affinity_moves_at_most_25_in_an_hour(make_office) -> None:
    ops = [{"employeeId": "bob", "impression": "unreliable", "affinity": a} for a in (35, 20, 5)]
    mind = Mind().then("alice", BOSS_A, *(thought(relationshipOps=[op]) for op in ops))
    office = make_office(mind, casual=False)
    office.start()
    rel = office.employees["alice"].mind.relationships

    first = await think(office, "alice", BOSS_A, "Bob missed the deadline.")
    assert (rel["bob"].affinity, first["corrections"]) == (35, [])
    second = await think(office, "alice", BOSS_A, "Bob missed another one.")
    assert rel["bob"].affinity == pytest.approx(25, abs=0.01)  # 15 + 10 = the hour's 25 (drift aside)
    assert (
        "relationshipOps[0]: affinity change for bob clamped from -15 to -10 (moved 15 this hour)"
        in (second["corrections"])
    )
    await office.clock.run_until(office.now() + timedelta(hours=1))  # a new hour: the whole budget again
    third = await think(office, "alice", BOSS_A, "And Bob again.")
    assert rel["bob"].affinity < 11  # a whole 15 again (from the drifted ~25)
    assert not any("this hour" in c for c in third["corrections"])


async def test_only_the_people_present_appear_in_the_impressions_block(make_office) -> None:
    ops = [
        {"employeeId": "bob", "impression": "knows the backend", "affinity": 60},
        {"employeeId": "dana", "impression": "kind designer", "affinity": 58},
    ]
    office = make_office(Mind().then("alice", BOSS_A, thought(relationshipOps=ops)), casual=False)
    office.start()

    await think(office, "alice", BOSS_A, "How are Bob and Dana doing?")
    in_room = prompt_for(office, await think(office, "alice", ROOM))
    assert "## What you think of the people here\nBob (bob): affinity 60 — knows the backend" in in_room
    assert "Dana" not in in_room.split("## What you think of the people here")[1].split("##")[0]
    assert "Charlie (charlie): affinity" not in in_room  # present but never rated
    alone = prompt_for(office, await think(office, "alice", BOSS_A, "And now?"))
    assert "## What you think of the people here" not in alone


# --- claims ---------------------------------------------------------------------------------------


async def test_a_claim_already_held_is_refused_and_the_next_prompt_names_the_owner(make_office) -> None:
    mind = (
        Mind()
        .then(
            "alice",
            BOSS_A,
            thought(taskOps=[create("Research REST vs GraphQL", claimKey="api-research")]),
            thought(taskOps=[{"op": "resolve", "taskId": "task-1", "result": "REST"}]),
        )
        .then(
            "bob",
            BOSS_B,
            thought(taskOps=[create("Look into REST vs GraphQL", claimKey="API research")]),
            thought(),
            thought(),
            thought(taskOps=[create("Look into REST vs GraphQL", claimKey="api-research")]),
        )
    )
    office = make_office(mind, casual=False)
    office.start()
    alice, bob = office.employees["alice"], office.employees["bob"]

    await think(office, "alice", BOSS_A, "Please research REST vs GraphQL.")
    assert [(t.id, t.claim_key) for t in alice.mind.tasks] == [("task-1", "api-research")]

    refused = await think(office, "bob", BOSS_B, "Could you research REST vs GraphQL?")
    assert bob.mind.tasks == []
    assert refused["corrections"] == []  # a refusal is told to Bob, not logged as a bad op
    refusal = "[system] Your task claim 'api-research' was refused: Alice (alice) already owns it as task-1."
    assert refusal not in prompt_for(office, refused)
    told = await think(office, "bob", BOSS_B, "Well?")
    assert requests_of(office, "bob")[1] == prompt_for(office, told)  # his very next prompt
    assert refusal in prompt_for(office, told)
    assert refusal not in prompt_for(office, await think(office, "bob", BOSS_B, "Hm?"))  # told once

    # Once Alice closes her task the key is free again.
    await think(office, "alice", BOSS_A, "Done?")
    assert alice.mind.tasks[0].status == "resolved"
    await think(office, "bob", BOSS_B, "Now take it.")
    assert [(t.id, t.claim_key, t.status) for t in bob.mind.tasks] == [("task-2", "api-research", "pending")]


# --- urgency --------------------------------------------------------------------------------------


async def test_an_open_task_wakes_its_owner_when_overdue_and_again_when_critical(make_office) -> None:
    mind = Mind().then("alice", BOSS_A, thought(taskOps=[create("Write the API comparison")]))
    office = make_office(mind, casual=False)
    office.start()
    await think(office, "alice", BOSS_A, "Write me a comparison of REST and GraphQL.")
    [task] = office.employees["alice"].mind.tasks
    born = task.created_at
    typing = timedelta(seconds=office.config.timers.typing_max_s)

    def task_thoughts() -> list[dict]:
        return [t for t in office.journal.thoughts if t["employee"] == "alice" and t["trigger"] == "task"]

    # Nothing unread and the task not yet overdue: no think.
    await office.run(until=born + timedelta(minutes=15) - timedelta(seconds=1))
    assert task_thoughts() == []
    assert len([t for t in office.journal.thoughts if t["employee"] == "alice"]) == 1

    await step_until(office, lambda: len(task_thoughts()) == 1, within=timedelta(minutes=10))
    [overdue] = task_thoughts()
    assert overdue["conversation"] == BOSS_A
    assert (
        born + timedelta(minutes=15)
        <= datetime.fromisoformat(overdue["at"])
        <= born + timedelta(minutes=15) + typing
    )
    assert "[task-1] Write the API comparison — oneshot, overdue: needs immediate attention" in prompt_for(
        office, overdue
    )

    await office.run(until=born + timedelta(minutes=30) - timedelta(seconds=1))
    assert len(task_thoughts()) == 1
    await step_until(office, lambda: len(task_thoughts()) == 2, within=timedelta(minutes=10))
    critical = task_thoughts()[1]
    assert (
        born + timedelta(minutes=30)
        <= datetime.fromisoformat(critical["at"])
        <= born + timedelta(minutes=30) + typing
    )
    assert "[task-1] Write the API comparison — oneshot, critical: escalate or resolve now" in prompt_for(
        office, critical
    )

    # Each urgency wakes her once.
    await office.run(timedelta(minutes=30))
    assert len(task_thoughts()) == 2
    assert task.status == "pending"


# --- stalls ---------------------------------------------------------------------------------------


async def test_three_thoughts_not_advancing_a_task_stall_it_and_ask_for_a_report(make_office) -> None:
    mind = Mind().then("alice", BOSS_A, thought(taskOps=[create("Benchmark REST and GraphQL")]))
    office = make_office(mind, casual=False)
    office.start()
    await think(office, "alice", BOSS_A, "Benchmark both, please.")
    [task] = office.employees["alice"].mind.tasks

    def system_thoughts() -> list[dict]:
        return [t for t in office.journal.thoughts if t["employee"] == "alice" and t["trigger"] == "system"]

    for n in (1, 2):
        await think(office, "alice", ROOM, f"Unrelated question {n}?")
    await office.run(timedelta(minutes=1))
    [task] = office.employees["alice"].mind.tasks  # tasks are frozen: a changed one is a new object
    assert (task.quiet_thoughts, task.stalled) == (2, False)
    assert system_thoughts() == []

    await think(office, "alice", ROOM, "Unrelated question 3?")
    [task] = office.employees["alice"].mind.tasks
    assert (task.stalled, task.status) == (True, "pending")
    await step_until(office, lambda: bool(system_thoughts()), within=timedelta(minutes=1))
    [report] = system_thoughts()
    assert report["conversation"] == BOSS_A
    prompt = prompt_for(office, report)
    assert "[system] Your task [task-1] has not moved for three thoughts." in prompt
    assert "[task-1] Benchmark REST and GraphQL — oneshot, normal (stalled)" in prompt


# --- stamina --------------------------------------------------------------------------------------


async def test_each_llm_call_of_a_thought_adds_fatigue_2(make_office) -> None:
    mind = Mind().then("bob", BOSS_B, "REST, obviously.", thought())  # not JSON: one repair call
    office = make_office(mind, casual=False)
    office.start()

    once = await think(office, "alice", BOSS_A, "Hi")
    twice = await think(office, "bob", BOSS_B, "Hi")
    assert (once["llm"]["calls"], twice["llm"]["calls"]) == (1, 2)
    assert office.employees["alice"].mind.stamina.fatigue == 2.0
    assert office.employees["bob"].mind.stamina.fatigue == 4.0
    assert office.employees["charlie"].mind.stamina == Stamina()  # no think, no cost


@pytest.mark.parametrize(
    ("second_op", "delta"),
    [
        ({"op": "resolve", "taskId": "task-1", "result": "done"}, (20, -15 + 2, -15)),
        ({"op": "fail", "taskId": "task-1", "reason": "blocked"}, (-10, 10 + 2, 25)),
    ],
)
async def test_task_events_move_stamina(make_office, second_op: dict, delta: tuple[int, int, int]) -> None:
    mind = Mind().then(
        "alice", BOSS_A, thought(taskOps=[create("Draft the API spec")]), thought(taskOps=[second_op])
    )
    office = make_office(mind, casual=False)
    office.start()
    emp = office.employees["alice"]
    emp.mind.stamina = TIRED

    await think(office, "alice", BOSS_A, "Draft the spec.")
    assert (emp.mind.stamina.patience, emp.mind.stamina.fatigue, emp.mind.stamina.stress) == (
        60.0,
        42.0,
        40.0,
    )  # assigned: +10
    before = emp.mind.stamina
    await think(office, "alice", BOSS_A, "Done?")
    got = (
        emp.mind.stamina.patience - before.patience,
        emp.mind.stamina.fatigue - before.fatigue,
        emp.mind.stamina.stress - before.stress,
    )
    # A few idle seconds of natural recovery (5 an hour) sit on top of the event.
    assert got == pytest.approx(delta, abs=0.1)


@pytest.mark.parametrize(
    ("patience", "zone"),
    [(100, "green"), (70.5, "green"), (70, "yellow"), (40, "yellow"), (39.5, "red"), (5, "red")],
)
async def test_the_comfort_zone_sets_the_stamina_note(make_office, patience: float, zone: str) -> None:
    office = make_office(casual=False)
    office.start()
    office.employees["alice"].mind.stamina = Stamina(patience=patience)

    prompt = prompt_for(office, await think(office, "alice", BOSS_A, "How are you?"))
    assert (YELLOW_NOTE in prompt) is (zone == "yellow")
    for question in REFLECTION_QUESTIONS:
        assert (question in prompt) is (zone == "red")


async def test_comfort_under_30_with_a_pending_task_escalates_once_per_slump(
    make_office, monkeypatch
) -> None:
    monkeypatch.setattr(task_rules, "STALL_AFTER", 100)  # stalls are another test's business
    mind = Mind().then("alice", BOSS_A, thought(taskOps=[create("Migrate the API gateway")]))
    office = make_office(mind, casual=False)
    office.start()
    alice, bob = office.employees["alice"], office.employees["bob"]
    await think(office, "alice", BOSS_A, "Please migrate the gateway.")

    def escalations(who_: str = "alice") -> list[dict]:
        return [t for t in office.journal.thoughts if t["employee"] == who_ and t["trigger"] == "system"]

    async def low(employee: str, patience: float) -> None:
        office.employees[employee].mind.stamina = Stamina(patience=patience)
        await think(office, employee, f"boss:{employee}", "How is it going?")
        await office.run(timedelta(minutes=1))  # time for an owed think

    await low("alice", 31)  # 30.2 after the call's fatigue: not under 30
    assert escalations() == [] and not alice.mind.escalated
    await low("bob", 10)  # under 30, but nothing pending to escalate
    assert escalations("bob") == [] and not bob.mind.escalated

    await low("alice", 30.5)  # 29.7
    [first] = escalations()
    assert first["conversation"] == BOSS_A and alice.mind.escalated
    prompt = prompt_for(office, first)
    assert "Escalate to the boss" in prompt and "[task-1] Migrate the API gateway" in prompt
    await low("alice", 20)  # the same slump: no second request
    assert len(escalations()) == 1

    await low("alice", 80)  # recovered
    assert not alice.mind.escalated
    await low("alice", 25)  # a new slump
    assert len(escalations()) == 2


# --- loop-breaker reset -----------------------------------------------------------------------------


@pytest.mark.parametrize("task_op", [False, True])
async def test_a_task_op_resets_the_pair_streak(make_office, task_op: bool) -> None:
    plan = ["alice", "bob", "alice", "bob"]

    def answer(request):
        tag = who(request)
        if tag.conversation != ROOM:
            return thought()
        n = len(since_boss(request))
        if n < len(plan) and plan[n] == tag.employee:
            text = f"point {n} from {NAMES[tag.employee]}"
            if n + 1 < len(plan):
                text += f", over to you @{NAMES[plan[n + 1]]}"
            ops = [create("Write up the REST decision")] if task_op and n == 3 else []
            return thought(True, text, interest=10, saturation=1, taskOps=ops)
        return thought(interest=10, saturation=1)

    office = make_office(answer, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "Go."}])
    office.start()
    conv = office.conversations[ROOM]

    def agent() -> list[dict]:
        return [m for m in office.journal.messages if m["conversation"] == ROOM and m["sender"] != "boss"]

    await step_until(office, lambda: len(agent()) == 4, within=timedelta(minutes=15))

    assert [m["sender"] for m in agent()] == plan
    if task_op:
        assert conv.reset_at == datetime.fromisoformat(agent()[3]["at"])
        assert conv.blocked_pair is None
        assert not any(f.trigger == "system" for f in office.employees["alice"].desk.owed)
    else:
        assert conv.reset_at is None
        assert conv.blocked_pair == ("alice", "bob")


@pytest.mark.parametrize("task_op", [False, True])
async def test_a_task_op_lifts_the_unanswered_ceiling(make_office, spy, task_op: bool) -> None:
    ops = [create("Organise the team lunch")] if task_op else []
    office = make_office(Mind().then("alice", CASUAL, thought(taskOps=ops)))
    wakes = spy(office)
    office.start()
    riffers = ["bob", "charlie", "dana"]  # three of them: no pair streak
    for n in range(10):
        office.post(office.make_message(CASUAL, riffers[n % 3], f"riff {n}"))
    # The tenth: ceiling reached, nobody is nudged; Alice (the lead) is owed an escalation think.
    assert [(w.employee, w.trigger) for w in wakes.caused_by(office.journal.messages[-1]["id"])] == [
        ("alice", "system")
    ]

    since = len(office.journal.thoughts)
    await step_until(
        office, lambda: bool(new_thoughts(office, since, "alice", CASUAL)), within=timedelta(minutes=6)
    )
    after = office.make_message(CASUAL, "bob", "riff 10")
    office.post(after)
    assert bool(wakes.caused_by(after.id)) is task_op


# --- state round trip -----------------------------------------------------------------------------


async def test_the_mind_survives_a_snapshot_and_restore(make_office) -> None:
    mind = (
        Mind()
        .then(
            "alice",
            BOSS_A,
            thought(
                memorySummary="REST vs GraphQL research.",
                memoryOps=[
                    memory_add("Bob prefers REST", category="preference", importance=8),
                    memory_add("Lunch at noon", kind="short_term", category="context"),
                ],
                relationshipOps=[{"employeeId": "bob", "impression": "helpful", "affinity": 62}],
                taskOps=[
                    create("Research REST vs GraphQL", claimKey="api-research", onResolveHint="cite Bob"),
                    create("Book a room"),
                ],
            ),
            thought(taskOps=[{"op": "resolve", "taskId": "task-2", "result": "room 4 booked"}]),
        )
        .then("bob", BOSS_B, thought(taskOps=[create("Research it too", claimKey="api-research")]))
    )
    office = make_office(mind, casual=False)
    office.start()
    await think(office, "alice", BOSS_A, "Research it; and book a room.")
    await think(office, "alice", BOSS_A, "Room?")
    await think(office, "bob", BOSS_B, "Help Alice.")
    office.employees["charlie"].mind.stamina = Stamina(patience=33.3, fatigue=12.5, stress=7.25)

    state = json.loads(json.dumps(persistence.snapshot(office)))  # what state.json holds
    restored = office_from_state(
        state,
        list(office.journal.messages),
        llm=ScriptedLLM(default=thought()),
        clock=SimClock(office.clock.now()),
        thoughts=list(office.journal.thoughts),
        journal=MemoryJournal(),
    )
    for emp_id, before in office.employees.items():
        after = restored.employees[emp_id]
        assert after.mind.memory == before.mind.memory
        assert after.mind.relationships == before.mind.relationships
        assert after.mind.tasks == before.mind.tasks
        assert after.mind.stamina == before.mind.stamina
        assert (after.mind.notes, after.desk.task_alerts, after.mind.escalated) == (
            before.mind.notes,
            before.desk.task_alerts,
            before.mind.escalated,
        )
    alice = restored.employees["alice"]
    assert alice.mind.memory.summaries == {BOSS_A: "REST vs GraphQL research."}
    assert [(t.id, t.status) for t in alice.mind.tasks] == [("task-1", "pending"), ("task-2", "resolved")]
    assert restored.employees["bob"].mind.notes  # the refusal he has yet to read
    assert stamina_rules.comfort(restored.employees["charlie"].mind.stamina) == stamina_rules.comfort(
        office.employees["charlie"].mind.stamina
    )
    # Ids go on where they stopped: no task or memory id is handed out twice.
    assert restored.counters["task"] == 2  # the next task is task-3
    assert alice.mind.memory.next_id == office.employees["alice"].mind.memory.next_id == 3
    assert open_claims(t for e in restored.employees.values() for t in e.mind.tasks) == {
        "api-research": ("alice", "task-1")
    }


# --- onResolve under the gates ----------------------------------------------------------------------


async def test_a_report_held_by_a_gate_is_delayed_not_dropped(make_office) -> None:
    report = "Done: the check is fine."

    def answer(request):
        tag, prompt = who(request), prompt_of(request)
        if tag.conversation == ROOM and "is done. Result:" in prompt:
            return thought(True, report, interest=7, saturation=3)
        if tag.conversation == ROOM and tag.employee == "alice":
            return thought(True, "Heads up: checking now.", interest=9)
        if tag.conversation == BOSS_A and "[task-1]" in prompt:
            return thought(taskOps=[{"op": "resolve", "taskId": "task-1", "result": "fine"}])
        if tag.conversation == BOSS_A:
            return thought(taskOps=[create("Run the check", onResolveTarget=ROOM)])
        return thought()

    office = make_office(answer, casual=False)
    office.start()
    await think(office, "alice", BOSS_A, "Run the check; tell the room.")
    await think(office, "alice", ROOM, "Status?")  # she speaks: the work room's 60 s cooldown starts
    await think(office, "alice", BOSS_A, "Done?")  # resolved: the report is owed in the room
    await office.run(timedelta(minutes=5))

    [back, *_] = [t for t in office.journal.thoughts if t["trigger"] == "on_resolve"]
    assert back["conversation"] == ROOM
    said = [m for m in office.journal.messages if m["sender"] == "alice" and m["text"] == report]
    assert len(said) == 1


@pytest.mark.parametrize("shown", ["[task-1]", "(task-1)", "task-1", "Task-1"])
async def test_a_posted_message_shows_a_task_by_what_it_is_never_by_its_id(make_office, shown) -> None:
    said = f"Status of {shown}: almost done."
    mind = Mind().then("alice", BOSS_A, thought(taskOps=[create("Benchmark REST and GraphQL")]))
    mind.then("alice", BOSS_A, thought(True, said))
    office = make_office(mind, casual=False)
    office.start()
    await think(office, "alice", BOSS_A, "Benchmark both, please.")
    record = await think(office, "alice", BOSS_A, "Where is it?")
    [posted] = [m["text"] for m in office.journal.messages if m["id"] in record["messages"]]
    assert posted == "Status of 'Benchmark REST and GraphQL': almost done."
    assert "messages[0]: ids named as what they name" in record["corrections"]
