"""Spec 1.5 records, model failures (1.2) and the send_message action, through the engine."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from ideaco.llm.base import BudgetExhausted, LLMConnectionError, LLMServerError
from ideaco.office import rules
from tests.office.conftest import ROOM, messages_in, thought, thoughts_of, who

THOUGHT_FIELDS = {
    "id",
    "at",
    "employee",
    "conversation",
    "trigger",
    "thought",
    "spoke",
    "gate",
    "llm",
    "corrections",
    "next_look_at",
}
MESSAGE_FIELDS = {"id", "at", "conversation", "sender", "text", "mentions", "kind"}
TRIGGERS = {"timer", "nudge", "mention", "boss", "task", "on_resolve", "idle", "system"}
GATES = {
    None,
    "chose_silence",
    "saturation",
    "anti_spam",
    "cooldown",
    "loop_breaker",
    "superseded",
    "budget",
    "error",
}
SCRIPT = [{"at": "00:00", "to": ROOM, "text": "@Alice @Bob REST or GraphQL?"}]


def _dt(text: str) -> datetime:
    return datetime.fromisoformat(text)


def _seconds(later: str, earlier: str) -> float:
    return (_dt(later) - _dt(earlier)).total_seconds()


# --- records -------------------------------------------------------------------------------------


async def test_thought_and_message_records_have_the_spec_fields(make_office) -> None:
    levels = {"alice": (10, 1), "bob": (1, 10), "charlie": (5, 5)}

    def answer(request):
        tag = who(request)
        interest, saturation = levels[tag.employee]
        speaks = tag.employee == "alice"
        return thought(speaks, "REST it is." if speaks else None, interest=interest, saturation=saturation)

    office = make_office(answer, casual=False, script=SCRIPT)
    office.start()
    await office.run(timedelta(minutes=10))

    assert office.journal.thoughts and office.journal.messages
    for rec in office.journal.messages:
        assert set(rec) == MESSAGE_FIELDS
        assert rec["kind"] == "chat" and isinstance(rec["mentions"], list)
        _dt(rec["at"])
    for rec in office.journal.thoughts:
        # Each employee's own timers: the spec's, scaled by its pace (talkativeness; all green here).
        timers = office.policy.timers_for(office, office.employees[rec["employee"]])
        assert THOUGHT_FIELDS <= set(rec)
        assert rec["trigger"] in TRIGGERS and rec["gate"] in GATES
        assert rec["spoke"] is (rec["gate"] is None)
        assert set(rec["llm"]) >= {
            "model",
            "prompt_tokens",
            "completion_tokens",
            "cached_tokens",
            "latency_ms",
        }
        assert rec["llm"]["model"] == "default" and rec["llm"]["prompt_tokens"] == 10
        assert rec["thought"]["innerThoughts"] and isinstance(rec["corrections"], list)
        # next_look_at = at + the adaptive delay of the thought's interest and saturation
        interest, saturation = levels[rec["employee"]]
        base = rules.base_delay(interest, saturation, timers)
        delay = _seconds(rec["next_look_at"], rec["at"])
        assert timers.min_s <= delay <= timers.max_s
        assert max(timers.min_s, base * 0.9) - 1e-6 <= delay <= min(timers.max_s, base * 1.1) + 1e-6
    spoke = [t for t in office.journal.thoughts if t["spoke"]]
    assert spoke and all(t["messages"] for t in spoke)
    assert {m["id"] for m in office.journal.messages if m["sender"] != "boss"} == {
        mid for t in spoke for mid in t["messages"]
    }


# --- model failures ------------------------------------------------------------------------------


async def test_an_answer_that_is_not_json_twice_is_an_error_and_alice_tries_again(make_office) -> None:
    alice_calls: list[str] = []

    def answer(request):
        tag = who(request)
        if tag.employee == "alice":
            alice_calls.append(request.tag)
            if len(alice_calls) <= 2:
                return "I think REST is better, honestly."
            return thought(True, "REST, because caching is simpler.", interest=8)
        return thought()

    office = make_office(answer, casual=False, script=SCRIPT)
    office.start()
    await office.run(timedelta(minutes=10))

    first, *later = thoughts_of(office, "alice")
    assert first["gate"] == "error" and first["spoke"] is False and first["thought"] is None
    assert first["llm"]["calls"] == 2
    assert alice_calls[1].endswith("(repair)")
    assert first["corrections"] and first["corrections"][0].startswith("repair: ")
    assert "error" in first and first["next_look_at"] is not None
    assert later, "she tries again later"
    assert later[0]["spoke"] is True and _dt(later[0]["at"]) >= _dt(first["next_look_at"])
    assert office.stats.errors == {"invalid_output": 1}
    assert any(m["sender"] == "bob" or m["sender"] == "alice" for m in messages_in(office, ROOM)[1:])


async def test_a_repaired_answer_is_used_and_the_repair_is_noted(make_office) -> None:
    alice_calls: list[str] = []

    def answer(request):
        if who(request).employee == "alice":
            alice_calls.append(request.tag)
            if len(alice_calls) == 1:
                return '{"innerThoughts": "hmm", "shouldSpeak": true}'  # required fields missing
            return thought(True, "GraphQL for the mobile app.", interest=8)
        return thought()

    office = make_office(answer, casual=False, script=SCRIPT)
    office.start()
    await office.run(timedelta(minutes=1))
    [alice] = thoughts_of(office, "alice")
    assert alice["spoke"] is True and alice["llm"]["calls"] == 2
    assert alice["corrections"][0].startswith("repair: missing required field")


@pytest.mark.parametrize(
    ("error", "kind"),
    [(LLMServerError("HTTP 503", status=503), "server"), (LLMConnectionError("refused"), "connection")],
)
async def test_an_llm_error_is_logged_and_the_employee_retries_later(make_office, error, kind) -> None:
    failed: list[bool] = []

    def answer(request):
        if who(request).employee == "alice" and not failed:
            failed.append(True)
            return error
        return thought(who(request).employee == "alice", "Back online: REST.", interest=8)

    office = make_office(answer, casual=False, script=SCRIPT)
    office.start()
    await office.run(timedelta(minutes=10))
    first, *later = thoughts_of(office, "alice")
    assert first["gate"] == "error" and first["llm"] is None and first["thought"] is None
    assert str(error) in first["error"]
    assert office.stats.errors == {kind: 1}
    assert later and later[0]["spoke"] is True
    assert _dt(later[0]["at"]) >= _dt(first["next_look_at"])
    assert office.stop_reason is None


async def test_budget_exhausted_stops_the_office_cleanly(make_office) -> None:
    calls: list[str] = []

    def answer(request):
        calls.append(request.tag)
        if len(calls) > 2:
            return BudgetExhausted("--max-calls 2 reached")
        return thought(True, f"{who(request).employee} answers", interest=8)

    office = make_office(
        answer, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "Everyone: REST or GraphQL?"}]
    )
    office.start()
    await office.run(timedelta(hours=1))

    assert office.stop_reason == "--max-calls 2 reached"
    assert office.clock.now() < office.end_at
    budget = [t for t in office.journal.thoughts if t["gate"] == "budget"]
    assert len(budget) == 1 and budget[0]["llm"] is None
    assert budget[0] is office.journal.thoughts[-1]  # nothing is thought after the stop
    assert office.journal.state is not None  # checkpointed on the way out


# --- send_message --------------------------------------------------------------------------------


async def test_send_message_opens_a_dm_and_reaches_the_colleague(make_office) -> None:
    def answer(request):
        tag = who(request)
        if tag.employee == "charlie" and tag.conversation == "boss:charlie":
            return thought(
                False,
                actions=[
                    {
                        "tool": "send_message",
                        "args": {"to": "Bob", "content": "Bob, how many QPS can the API take?"},
                    }
                ],
            )
        if tag.employee == "bob" and tag.conversation == "dm:bob:charlie":
            return thought(True, "About 2k QPS on one node.", interest=7)
        return thought()

    office = make_office(
        answer, casual=False, script=[{"at": "00:00", "to": "boss:charlie", "text": "Find out our capacity."}]
    )
    office.start()
    await office.run(timedelta(minutes=10))

    assert "dm:bob:charlie" in office.conversations
    assert office.conversations["dm:bob:charlie"].members == ["bob", "charlie"]
    dm = messages_in(office, "dm:bob:charlie")
    assert [(m["sender"], m["text"]) for m in dm[:2]] == [
        ("charlie", "Bob, how many QPS can the API take?"),
        ("bob", "About 2k QPS on one node."),
    ]
    [sent] = [t for t in thoughts_of(office, "charlie") if t["conversation"] == "boss:charlie"]
    assert sent["spoke"] is True and sent["messages"] == [dm[0]["id"]]
    bob = [t for t in thoughts_of(office, "bob") if t["conversation"] == "dm:bob:charlie"][0]
    assert bob["trigger"] == "nudge"
    assert 15 <= _seconds(bob["at"], dm[0]["at"]) <= 320  # nudged 10-300 s later, then typing


async def test_send_message_to_a_room_with_a_mention(make_office) -> None:
    def answer(request):
        tag = who(request)
        if tag.employee == "alice" and tag.conversation == "boss:alice":
            return thought(
                False,
                actions=[{"tool": "send_message", "args": {"to": ROOM, "content": "@Bob thoughts on REST?"}}],
            )
        return thought()

    office = make_office(
        answer, casual=False, script=[{"at": "00:00", "to": "boss:alice", "text": "Ask Bob."}]
    )
    office.start()
    await office.run(timedelta(minutes=2))
    [posted] = messages_in(office, ROOM)
    assert posted["sender"] == "alice" and posted["mentions"] == ["bob"]
    assert thoughts_of(office, "bob")[0]["trigger"] == "mention"


async def test_send_message_to_an_unknown_target_is_a_correction(make_office) -> None:
    def answer(request):
        if who(request).employee == "alice":
            return thought(
                False, actions=[{"tool": "send_message", "args": {"to": "zed", "content": "hello?"}}]
            )
        return thought()

    office = make_office(
        answer, casual=False, script=[{"at": "00:00", "to": "boss:alice", "text": "Say hi to Zed."}]
    )
    office.start()
    await office.run(timedelta(minutes=2))
    [rec] = thoughts_of(office, "alice")
    assert rec["spoke"] is False and rec["gate"] == "chose_silence"
    assert any("unknown target" in c and "zed" in c for c in rec["corrections"])
    assert [m["sender"] for m in office.journal.messages] == ["boss"]
    assert not any(c.startswith("dm:") for c in office.conversations)
