"""How a resolved think's steps land on the office (resolve/apply.py): who is owed a think and when, what
a post does (logged, counted, read by its sender, a room reopened), holds and the note a release
brings, when the next look comes, the ids and ages handed out, and what a resume takes back."""

from __future__ import annotations

from datetime import timedelta
from types import SimpleNamespace
from typing import Any

from ideaco.cycle import Owed, Phase, Trigger
from ideaco.mind.changes import ListChanges, MindChanges
from ideaco.mind.tasks import Task
from ideaco.mind.thought.model import Action
from ideaco.office.core.conversation import Message
from ideaco.office.core.steps import EmployeeStep, MindStep, NoticeStep, OweAgainStep, OweStep
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.speech import target_for
from ideaco.office.decide.tools import documents
from ideaco.office.engine.office import Office
from ideaco.office.resolve import apply
from ideaco.office.rules.holds import Arrived, batch_note
from tests.office.conftest import ROOM, START

SOON = (timedelta(seconds=1), timedelta(seconds=5))  # "soon": a mention's delay, 1-5 s


def land(office: Office) -> Any:
    """What a resolve lands on now (the office's state, its moment and the event's stream)."""
    return office.landing()


def message(office: Office, conv: str, sender: str, text: str, *, ago: float = 0.0, mentions=()) -> Message:
    msg = office.make_message(conv, sender, text)
    if ago or mentions:
        msg = Message(
            msg.id, office.now() - timedelta(seconds=ago), conv, sender, text, tuple(mentions) or msg.mentions
        )
    return msg


def posted(office: Office, conv: str, sender: str, text: str, **kw: Any) -> Message:
    """A message posted as the office posts one: landed, then what it left done (logged, counted)."""
    msg = message(office, conv, sender, text, **kw)
    office.post(msg)
    return msg


# --- owed thinks --------------------------------------------------------------------------------------


def test_an_owed_think_wakes_its_employee_soon_and_is_owed(make_office) -> None:
    office = make_office()
    owed = Owed("boss:alice", Trigger.SYSTEM, "Tell the boss the spec is approved.")
    step = apply.apply_step(land(office), OweStep("alice", owed), None)
    assert office.now() + SOON[0] <= step.wake_at <= office.now() + SOON[1]
    desk = office.employees["alice"].desk
    assert desk.owed == [owed] and desk.wake_at == step.wake_at and Trigger.SYSTEM in desk.wake_triggers
    replayed = apply.apply_step(
        land(office), OweStep("bob", owed, wake_at=START + timedelta(minutes=3)), None
    )
    assert replayed.wake_at == START + timedelta(minutes=3)  # as logged: nothing drawn again


def test_a_think_owed_again_is_owed_once_and_keeps_its_trigger(make_office) -> None:
    office = make_office()
    desk = office.employees["alice"].desk
    owed = Owed("boss:alice", Trigger.MENTION, "You were addressed here.")
    for _ in range(2):
        apply.apply_step(land(office), OweAgainStep("alice", Trigger.MENTION, owed), None)
    assert desk.owed == [owed] and desk.wake_triggers.count(Trigger.MENTION) == 1
    other_note = Owed("boss:alice", Trigger.MENTION, "Something else.")
    other_room = Owed(ROOM, Trigger.MENTION, "You were addressed here.")
    for again in (other_note, other_room):
        apply.apply_step(land(office), OweAgainStep("alice", Trigger.MENTION, again), None)
    assert desk.owed == [owed, other_note, other_room]


def test_a_look_owed_again_adds_no_trigger_and_no_owed_think(make_office) -> None:
    office = make_office()
    desk = office.employees["alice"].desk
    for trigger in (Trigger.TIMER, Trigger.IDLE):
        apply.apply_step(land(office), OweAgainStep("alice", trigger), None)
    assert desk.owed == [] and desk.wake_triggers == []


# --- posts --------------------------------------------------------------------------------------------


def test_a_post_is_logged_counted_once_and_read_by_its_sender(make_office) -> None:
    office = make_office()
    alice = office.employees["alice"].desk
    first = posted(office, ROOM, "alice", "REST, I think.")
    assert alice.cursors[ROOM] == 1 and office.stats.messages == 1
    assert [m["id"] for m in office.journal.messages] == [first.id]
    apply.post(land(office), first)  # the same id again: nothing
    assert office.conversations[ROOM].count == 1 and office.stats.messages == 1
    posted(office, ROOM, "bob", "GraphQL.")
    posted(office, ROOM, "alice", "Why?")  # bob's line is still unread: so is hers, after it
    assert alice.cursors[ROOM] == 1 and office.stats.messages == 3


def test_a_first_post_in_a_new_dm_is_read_by_its_sender(make_office) -> None:
    office = make_office()
    scratch = Scratch(office.state)
    target_for(scratch, "bob", "Alice", scratch.people())
    for step in scratch.take(office.now()):
        apply.apply_step(land(office), step, None)
    posted(office, "dm:alice:bob", "bob", "Got a minute?")
    assert office.employees["bob"].desk.cursors["dm:alice:bob"] == 1
    assert office.employees["alice"].desk.cursors.get("dm:alice:bob", 0) == 0


def test_a_boss_post_reopens_a_room_a_ring_closed_and_an_agents_does_not(make_office) -> None:
    office = make_office()
    conv = office.conversations[ROOM]
    conv.closed_until, conv.blocked_pair = office.now() + timedelta(minutes=5), ("alice", "bob")
    posted(office, ROOM, "charlie", "Anyone?")
    assert conv.closed_until is not None and conv.blocked_pair == ("alice", "bob")
    boss = posted(office, ROOM, "boss", "Carry on.")
    assert (conv.closed_until, conv.last_boss_at, conv.blocked_pair) == (None, boss.at, None)


def test_a_notice_is_posted_like_any_message(make_office) -> None:
    office = make_office()
    notice = Message("m-9", office.now(), "boss:secretary", "system", "The secretary stopped.", kind="system")
    landing = land(office)
    apply.apply_step(landing, NoticeStep("boss:secretary", "m-9", notice), None)
    assert [m.text for m in office.conversations["boss:secretary"].recent] == ["The secretary stopped."]
    assert landing.effects().posted == (notice,)  # handed back for the engine to log and show


# --- holds --------------------------------------------------------------------------------------------


def test_a_second_stop_keeps_the_hold_and_takes_a_new_reason_only_if_it_gives_one(make_office) -> None:
    office = make_office()
    office.post_as_boss(ROOM, "@Alice stop: too chatty")
    since = office.employees["alice"].desk.hold.since
    office.post_as_boss(ROOM, "@Alice stop")
    assert (office.employees["alice"].desk.hold.since, office.employees["alice"].desk.hold.reason) == (
        since,
        "too chatty",
    )
    office.post_as_boss(ROOM, "@Alice stop: wait for the review")
    assert office.employees["alice"].desk.hold.reason == "wait for the review"


def _release(office: Office) -> tuple[str, Any]:
    office.post_as_boss(ROOM, "@Alice continue")
    desk = office.employees["alice"].desk
    return office.employees["alice"].mind.notes[-1], desk


def test_a_release_with_nothing_addressed_wakes_soon_on_a_timer(make_office) -> None:
    office = make_office()
    office.post_as_boss(ROOM, "@Alice stop")
    posted(office, ROOM, "bob", "Lunch, anyone?")  # addressed to no one
    posted(office, ROOM, "alice", "@Bob me!", mentions=("bob",))  # her own
    note, desk = _release(office)
    assert note == batch_note([], office.now().strftime("%H:%M"))
    assert office.now() + SOON[0] <= desk.wake_at <= office.now() + SOON[1]
    assert desk.wake_triggers[0] == Trigger.TIMER  # (then the continue order's own, the boss's)


def test_a_release_brings_one_note_of_what_was_addressed_to_the_held_since_the_hold(make_office) -> None:
    office = make_office()
    posted(office, ROOM, "bob", "@Alice before your hold", mentions=("alice",), ago=1)  # before: not counted
    office.post_as_boss(ROOM, "@Alice stop")
    posted(office, ROOM, "bob", "@Alice are you there?", mentions=("alice",))  # at the very moment: counted
    posted(office, ROOM, "charlie", "@Alice and the schema?", mentions=("alice",))
    scratch = Scratch(office.state)
    target_for(scratch, "bob", "Alice", scratch.people())
    for step in scratch.take(office.now()):
        apply.apply_step(land(office), step, None)
    posted(office, "dm:alice:bob", "bob", "A word in private.")  # a DM needs no mention
    posted(office, "dm:alice:bob", "alice", "Back soon.")  # her own (a think under way when held)
    note, desk = _release(office)
    since = office.now().strftime("%H:%M")
    assert note == batch_note(
        [
            Arrived("API design", "work", ("Bob", "Charlie"), 2, False),
            Arrived("Alice & Bob", "dm", ("Bob",), 1, False),
        ],
        since,
    )
    assert desk.wake_triggers[0] == Trigger.MENTION


def test_the_bosss_words_to_the_held_make_the_release_a_boss_wake(make_office) -> None:
    office = make_office()
    office.post_as_boss(ROOM, "@Alice stop")
    office.post_as_boss("boss:alice", "When you are back: the spec.")  # her boss chat: no mention needed
    office.post_as_boss(ROOM, "@Alice the schema too.")
    note, desk = _release(office)
    assert note == batch_note(
        [
            Arrived("API design", "work", ("the boss",), 1, True),
            Arrived("Boss and Alice", "boss", ("the boss",), 1, True),
        ],
        office.now().strftime("%H:%M"),
    )
    assert desk.wake_triggers == [Trigger.BOSS]
    assert office.now() + SOON[0] <= desk.wake_at <= office.now() + SOON[1]


# --- what a think leaves: its reading, its task ids, a hire's age ---------------------------------------


def test_a_thinks_reading_never_moves_a_cursor_back(make_office) -> None:
    office = make_office()
    for text in ("one", "two", "three"):
        posted(office, ROOM, "bob", text)
    desk = office.employees["alice"].desk
    desk.cursors[ROOM] = 3
    apply.apply_step(land(office), MindStep("alice", MindChanges(), read=(ROOM, 1)), None)
    assert desk.cursors[ROOM] == 3
    apply.apply_step(land(office), MindStep("alice", MindChanges(), read=("boss:alice", 0)), None)
    assert desk.cursors["boss:alice"] == 0  # an empty chat read: nothing of it skipped later


def test_task_ids_go_on_from_the_highest_handed_out(make_office) -> None:
    office = make_office()
    task = Task(id="task-7", owner="alice", description="Write it", created_at=START)
    apply.apply_step(land(office), MindStep("alice", MindChanges(tasks=ListChanges(added=(task,)))), None)
    assert office.counters["task"] == 7
    lower = Task(id="task-3", owner="bob", description="Read it", created_at=START)
    apply.apply_step(land(office), MindStep("bob", MindChanges(tasks=ListChanges(added=(lower,)))), None)
    assert office.counters["task"] == 7


def test_a_hire_of_no_stated_age_is_24_to_58(make_office) -> None:
    office = make_office()
    joined = office.employees["dana"].to_dict()
    ages = set()
    for n in range(400):
        step = apply.apply_step(
            land(office), EmployeeStep(f"hire{n}", joined={**joined, "id": f"hire{n}", "age": None}), None
        )
        ages.add(step.joined["age"])
        assert office.employees[f"hire{n}"].age == step.joined["age"]  # drawn once, logged as drawn
    assert ages == set(range(24, 59))


# --- the next look ------------------------------------------------------------------------------------


def test_the_next_look_comes_its_adaptive_delay_after_the_think_began_and_never_in_the_past(
    make_office,
) -> None:
    office = make_office()
    emp = office.employees["secretary"]  # the default pace: 10 to 300 s
    now = office.now()
    began = now - timedelta(seconds=5)
    recent = SimpleNamespace(look=(10, 1), look_at=None, ctx=SimpleNamespace(at=began))
    at = apply.next_look(land(office), emp, recent)  # interest 10, saturation 1: about 22 s (spec 2.1)
    assert timedelta(seconds=19.4) <= at - began <= timedelta(seconds=23.8)
    long_ago = SimpleNamespace(
        look=(10, 1), look_at=None, ctx=SimpleNamespace(at=now - timedelta(minutes=10))
    )
    assert apply.next_look(land(office), emp, long_ago) == now + timedelta(seconds=10)  # never in the past
    failed = SimpleNamespace(look=None, look_at=now + timedelta(minutes=2), ctx=None)
    assert apply.next_look(land(office), emp, failed) == now + timedelta(minutes=2)


# --- documents on disk ----------------------------------------------------------------------------------


def test_each_version_of_a_document_is_written_to_the_workspace(make_office) -> None:
    office = make_office()
    scratch = Scratch(office.state)
    think = SimpleNamespace(
        employee="bob", thought_id="thought-1", conversation="boss:bob", read_upto=0, at=office.now()
    )

    def call(tool: str, **args: Any) -> tuple[tuple[str, str], ...]:
        """The workspace files the tool's steps hand back for the engine to write."""
        called = documents.act(
            office, scratch, think, Action(tool=tool, args=args), "actions[0]", office.now()
        )
        assert called.steps[0].ok, called.steps[0].message
        landing = land(office)
        for step in called.steps:
            apply.apply_step(landing, step, None)
        return landing.effects().documents

    assert call("write_document", path="plan.md", content="one") == (("eng/plan.md", "one"),)
    base = office.state.documents["eng/plan.md"].version
    assert call("revise_document", path="plan.md", content="two", base=base) == (("eng/plan.md", "two"),)


# --- what a resume takes back ---------------------------------------------------------------------------


def _began(at, **began: Any) -> Any:
    return SimpleNamespace(at=at, began=began)


def test_a_replayed_think_spends_the_wake_due_by_its_start_and_the_think_it_answered(make_office) -> None:
    office = make_office()
    emp, at = office.employees["alice"], office.now() + timedelta(seconds=30)
    owed = Owed("boss:alice", Trigger.SYSTEM, "Report.")
    emp.desk.owed, emp.desk.wake_at, emp.desk.wake_triggers = [owed], at, [Trigger.SYSTEM]
    apply.replay_began(
        emp, _began(at, owed=owed.to_dict(), task_alerts={"task-1": "overdue"}), superseded=False
    )
    assert (emp.desk.wake_at, emp.desk.wake_triggers, emp.desk.owed) == (None, [], [])
    assert emp.desk.phase is Phase.THINKING and emp.desk.task_alerts == {"task-1": "overdue"}


def test_a_replayed_think_keeps_a_later_wake_and_a_superseded_ones_owed_think(make_office) -> None:
    office = make_office()
    emp, at = office.employees["alice"], office.now() + timedelta(seconds=30)
    owed = Owed("boss:alice", Trigger.SYSTEM, "Report.")
    later = at + timedelta(seconds=1)
    emp.desk.owed, emp.desk.wake_at, emp.desk.wake_triggers = [owed], later, [Trigger.TIMER]
    apply.replay_began(emp, _began(at, owed=owed.to_dict()), superseded=True)
    assert (emp.desk.wake_at, emp.desk.owed) == (later, [owed])
    other = office.employees["bob"]
    apply.replay_began(other, _began(at, owed=owed.to_dict()), superseded=False)  # not owed any more
    assert other.desk.owed == [] and other.desk.wake_at is None
