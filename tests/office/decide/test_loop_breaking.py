"""Spec 2.3 through the engine, each rule reached from an empty office: duplicate, ring, pair streak,
unanswered ceiling, superseded thoughts."""

from __future__ import annotations

from datetime import datetime, timedelta

from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.speech import gate_draft
from tests.office.conftest import (
    CASUAL,
    ROOM,
    messages_in,
    prompt_of,
    since_boss,
    step_until,
    thought,
    thoughts_of,
    who,
)

NAMES = {"alice": "Alice", "bob": "Bob", "charlie": "Charlie", "dana": "Dana"}


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def in_turn(plan: list[str], room: str = ROOM):
    """Speak only when it is your turn: plan[n], n = agent lines since the boss's last line.

    Each line @-mentions the next speaker, so the next turn is not left to a 10-300 s nudge.
    """

    def answer(request):
        tag = who(request)
        if tag.conversation != room:
            return thought()
        n = len(since_boss(request))
        if n < len(plan) and plan[n] == tag.employee:
            text = f"point {n} from {NAMES[tag.employee]}"
            if n + 1 < len(plan):
                text += f", over to you @{NAMES[plan[n + 1]]}"
            return thought(True, text, interest=10, saturation=1)
        return thought(interest=10, saturation=1)

    return answer


def agent_posts(office, room: str = ROOM) -> list[dict]:
    return [m for m in messages_in(office, room) if m["sender"] not in ("boss", "system")]


# --- duplicate -----------------------------------------------------------------------------------


async def test_the_same_text_within_60_s_is_refused(make_office) -> None:
    def answer(request):
        if who(request).conversation == "boss:alice":
            return thought(True, "Working on it.", interest=9)
        return thought()

    office = make_office(
        answer, casual=False, script=[{"at": "00:00", "to": "boss:alice", "text": "Status?"}]
    )
    office.start()

    def mine() -> list[dict]:
        return [m for m in messages_in(office, "boss:alice") if m["sender"] == "alice"]

    await step_until(office, lambda: len(mine()) == 1)
    first = _dt(mine()[0]["at"])
    office.post_as_boss("boss:alice", "Status, please?")
    await step_until(office, lambda: any(t["gate"] == "loop_breaker" for t in thoughts_of(office, "alice")))
    refused = [t for t in thoughts_of(office, "alice") if t["gate"] == "loop_breaker"][0]
    assert refused["trigger"] == "boss" and refused["spoke"] is False
    assert office.clock.now() - first < timedelta(seconds=60)
    assert len(mine()) == 1

    # A minute after her first answer the same words are fine again: the refusal did not count.
    await step_until(office, lambda: office.clock.now() >= first + timedelta(seconds=60))
    office.post_as_boss("boss:alice", "And now?")
    await step_until(office, lambda: len(mine()) == 2, within=timedelta(minutes=2))
    assert mine()[1]["text"] == "Working on it."


async def test_a_reply_and_a_send_message_with_the_same_words_post_once(make_office) -> None:
    def answer(request):
        if who(request).conversation == "boss:alice":
            copy = {"tool": "send_message", "args": {"to": ROOM, "content": "Working on it."}}
            return thought(True, "Working on it.", interest=9, actions=[copy])
        return thought()

    office = make_office(
        answer, casual=False, script=[{"at": "00:00", "to": "boss:alice", "text": "Status?"}]
    )
    office.start()
    await step_until(office, lambda: any(m["sender"] == "alice" for m in messages_in(office, "boss:alice")))
    await office.run(timedelta(seconds=5))
    assert [m["text"] for m in messages_in(office, "boss:alice") if m["sender"] == "alice"] == [
        "Working on it."
    ]
    assert [m for m in messages_in(office, ROOM) if m["sender"] == "alice"] == []


# --- ring ----------------------------------------------------------------------------------------


async def test_a_ring_is_refused_and_closes_the_room_until_the_boss_writes(make_office) -> None:
    handler = {"answer": in_turn(["alice", "bob", "charlie", "alice"])}
    office = make_office(
        lambda r: handler["answer"](r), casual=False, script=[{"at": "00:00", "to": ROOM, "text": "Ideas?"}]
    )
    office.start()

    def refusals() -> list[dict]:
        return [t for t in office.journal.thoughts if t["gate"] == "loop_breaker"]

    await step_until(office, lambda: bool(refusals()), within=timedelta(minutes=10))

    [ring] = refusals()
    assert ring["employee"] == "alice" and ring["conversation"] == ROOM
    assert [m["sender"] for m in agent_posts(office)] == ["alice", "bob", "charlie"]
    assert _dt(ring["at"]) - _dt(agent_posts(office)[0]["at"]) < timedelta(minutes=2)
    conv = office.conversations[ROOM]
    closed_at = office.clock.now()
    assert conv.closed_until == closed_at + timedelta(minutes=5)

    # While closed, no agent post goes through, whoever wants to speak.
    handler["answer"] = lambda r: thought(
        True, f"{who(r).employee} insists at {who(r).at:%H:%M:%S}", interest=10, saturation=1
    )
    await office.run(until=conv.closed_until - timedelta(seconds=60))
    assert len(agent_posts(office)) == 3
    assert {t["gate"] for t in office.journal.thoughts if t["at"] > ring["at"]} <= {"loop_breaker"}
    for emp in ("alice", "bob", "charlie"):  # cooldowns are long over: only the closure holds them
        verdict = gate_draft(
            Scratch(office.state), emp, conv, "a brand new point", 1, True, office.now(), office.config.gates
        )
        assert verdict is not None and (verdict.gate, verdict.rule) == ("loop_breaker", "ring")
        assert verdict.detail.startswith("closed to agent posts until")

    office.post_as_boss(ROOM, "Let's hear it, one at a time.")
    assert conv.closed_until is None
    await step_until(office, lambda: len(agent_posts(office)) == 4, within=timedelta(seconds=40))
    assert office.clock.now() < closed_at + timedelta(minutes=5)  # reopened by the boss, not by time


# --- pair streak ---------------------------------------------------------------------------------


async def test_a_pair_streak_stops_the_pair_waking_each_other_and_asks_for_a_summary(
    make_office, spy
) -> None:
    turns = in_turn(["alice", "bob", "alice", "bob"])

    def answer(request):
        if "Summarize where you landed" in prompt_of(request):
            return thought(True, "Summary: REST for partners, GraphQL later.", interest=6)
        return turns(request)

    office = make_office(answer, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "Go."}])
    wakes = spy(office)
    office.start()
    await step_until(office, lambda: len(agent_posts(office)) == 4, within=timedelta(minutes=15))

    posts = agent_posts(office)
    assert [m["sender"] for m in posts] == ["alice", "bob", "alice", "bob"]
    # The first three woke the partner; the fourth completes the streak and does not.
    for m in posts[:3]:
        partner = "bob" if m["sender"] == "alice" else "alice"
        assert partner in {w.employee for w in wakes.caused_by(m["id"])}
    fourth = wakes.caused_by(posts[3]["id"])
    assert [w.trigger for w in fourth if w.employee == "alice"] == ["system"]
    assert "charlie" in {w.employee for w in fourth}  # the others are still nudged
    assert office.conversations[ROOM].blocked_pair == ("alice", "bob")

    await step_until(office, lambda: any(t["trigger"] == "system" for t in thoughts_of(office, "alice")))
    summary = next(
        r
        for r in office.llm.requests
        if who(r).employee == "alice" and "Summarize where you landed" in prompt_of(r)
    )
    assert "Bob" in prompt_of(summary)

    # The summary the engine asked for is delivered, even if a gate makes it wait (she has just
    # posted twice in this work room, so anti-spam holds it first); it wakes the others, not Bob.
    def said() -> list[dict]:
        return [m for m in agent_posts(office) if m["text"].startswith("Summary:")]

    await step_until(office, lambda: bool(said()), within=timedelta(minutes=6))
    [done] = said()
    assert done["sender"] == "alice"
    assert next(t for t in thoughts_of(office, "alice") if done["id"] in t["messages"])["trigger"] == "system"
    assert "bob" not in {w.employee for w in wakes.caused_by(done["id"]) if w.trigger in ("nudge", "mention")}
    # From now on neither wakes the other by posting.
    later = office.make_message(ROOM, "bob", "one more thing")
    office.post(later)
    assert "alice" not in {w.employee for w in wakes.caused_by(later.id)}
    # A boss message ends the streak.
    office.post_as_boss(ROOM, "Thanks both.")
    assert office.conversations[ROOM].blocked_pair is None


# --- unanswered ceiling --------------------------------------------------------------------------


async def test_after_ten_agent_messages_agent_posts_wake_nobody(make_office, spy) -> None:
    def answer(request):
        tag = who(request)
        if tag.conversation == CASUAL:
            return thought(True, f"{tag.employee} riffs at {tag.at:%H:%M:%S}", interest=10, saturation=1)
        return thought()

    office = make_office(answer, script=[{"at": "00:00", "to": CASUAL, "text": "Coffee or tea?"}])
    wakes = spy(office)
    office.start()
    await step_until(office, lambda: len(agent_posts(office, CASUAL)) >= 13, within=timedelta(hours=2))

    posts = agent_posts(office, CASUAL)
    for n, m in enumerate(posts, start=1):
        woken = wakes.caused_by(m["id"])
        if n < 10:
            assert woken, f"agent message {n} should still nudge"
        elif n == 10:  # the ceiling: nobody is nudged, the department's lead is owed an escalation
            assert [(w.employee, w.trigger) for w in woken] == [("alice", "system")]
        else:
            assert woken == [], f"agent message {n} came after the ceiling"
    # The boss writing lifts it.
    boss = office.post_as_boss(CASUAL, "Back to work, everyone.")
    assert len(wakes.caused_by(boss.id)) == 4
    await step_until(
        office, lambda: len(agent_posts(office, CASUAL)) > len(posts), within=timedelta(minutes=10)
    )
    assert wakes.caused_by(agent_posts(office, CASUAL)[len(posts)]["id"])


# --- superseded ----------------------------------------------------------------------------------


async def test_a_superseded_draft_gets_exactly_one_rethink(make_office) -> None:
    def answer(request):
        tag = who(request)
        if tag.employee in ("alice", "bob") and tag.conversation == ROOM:
            return thought(True, f"{NAMES[tag.employee]}: we should use REST ({tag.at:%H:%M:%S})", interest=9)
        return thought()

    office = make_office(
        answer, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice @Bob REST or GraphQL?"}]
    )
    office.config.think_seconds = 30  # both certainly think at the same time
    office.start()
    await step_until(office, lambda: len(agent_posts(office)) == 2, within=timedelta(minutes=5))

    thoughts = [
        t for t in office.journal.thoughts if t["conversation"] == ROOM and t["employee"] in ("alice", "bob")
    ]
    first, second = sorted(thoughts[:2], key=lambda t: t["at"])
    assert first["spoke"] is True and first["gate"] is None and first["rethink"] is False
    assert second["gate"] == "superseded" and second["spoke"] is False and second["rethink"] is False
    assert second["thought"]["shouldSpeak"] is True  # the draft is logged
    rethinks = [t for t in thoughts if t["rethink"]]
    assert len(rethinks) == 1
    [redo] = rethinks
    assert redo["employee"] == second["employee"] and redo["trigger"] == second["trigger"] == "boss"
    assert redo["gate"] is None and redo["spoke"] is True  # a re-think is never superseded again
    redo_request = [r for r in office.llm.requests if who(r).employee == redo["employee"]][1]
    prompt = prompt_of(redo_request)
    [note] = [line for line in prompt.splitlines() if line.startswith("[system] While you were thinking")]
    first_post = agent_posts(office)[0]
    assert "1 new message(s)" in note and NAMES[first_post["sender"]] in note
    # The colleague's words reach the re-think as (unread) chat history, never inside a system note.
    assert first_post["text"] not in note
    assert f"* [09:00] {NAMES[first_post['sender']]}: {first_post['text']}" in prompt


async def test_a_silent_thought_is_never_superseded(make_office) -> None:
    office = make_office(casual=False, script=[{"at": "00:00", "to": ROOM, "text": "REST or GraphQL?"}])
    office.config.think_seconds = 30
    office.start()
    office.post_as_boss(ROOM, "Anyone?")
    await office.run(timedelta(minutes=3))
    assert office.journal.thoughts
    assert all(t["gate"] == "chose_silence" and not t["rethink"] for t in office.journal.thoughts)


async def test_a_task_id_in_what_is_posted_reads_as_the_task(make_office) -> None:
    """Issue 21: "My task [task-1] has not moved" reached the chat; colleagues know tasks by what they are."""

    def answer(request):
        if who(request).conversation != "boss:alice":
            return thought()
        if "[task-1]" not in request.messages[-1]["content"]:
            create = [{"op": "create", "description": "Draft the API plan"}]
            return thought(False, taskOps=create)
        return thought(True, "Still on [task-1], almost done.")

    office = make_office(
        answer, casual=False, script=[{"at": "00:00", "to": "boss:alice", "text": "Status?"}]
    )
    office.start()
    await step_until(office, lambda: any(m["sender"] == "alice" for m in messages_in(office, "boss:alice")))
    (said,) = [m["text"] for m in messages_in(office, "boss:alice") if m["sender"] == "alice"][:1]
    assert said == "Still on 'Draft the API plan', almost done."
