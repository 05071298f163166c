"""The issue's must-show, on the shipped scenario: the boss asks Alice to research REST vs GraphQL,
she opens a task and DMs Bob, resolves the task from his answer, and the engine brings her back to
the boss chat (trigger `on_resolve`) where she reports.

The scripted model knows no workflow: each answer depends only on who thinks, where, and what the
prompt shows (an unread boss line, a task line, a system note). Everything else is silence.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from ideaco.llm.base import ChatRequest
from ideaco.mind.tasks import open_claims
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import SimClock
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.scenario import load_scenario
from tests.fakes.llm import ScriptedLLM
from tests.office.conftest import chat_lines, messages_in, prompt_of, thought, who

SCENARIO = Path(__file__).resolve().parents[3] / "scenarios" / "rest-vs-graphql.yaml"
DM = "dm:alice:bob"
ASK_BOB = {"tool": "send_message", "args": {"to": "bob", "content": "@Bob REST or GraphQL for the new API?"}}
BOB_SAYS = "REST: plain HTTP caching, and every partner already speaks it."
REPORT = "Boss, I asked Bob: he recommends REST (HTTP caching, partners know it). I agree."


def unread_from(request: ChatRequest, sender: str) -> list[str]:
    return [line.text for line in chat_lines(request) if line.unread and line.sender == sender]


def answer(request: ChatRequest) -> dict:
    """One colleague's mind, as a script: who, where, and what the prompt shows."""
    tag, prompt = who(request), prompt_of(request)
    if tag.employee == "alice" and tag.conversation == "boss:alice":
        if "is done. Result:" in prompt:
            return thought(True, REPORT, interest=8)
        if any("research it" in t for t in unread_from(request, "Boss")):
            create = {
                "op": "create",
                "description": "Ask Bob: REST or GraphQL",
                "type": "oneshot",
                "onResolveTarget": "boss:alice",
                "claimKey": "api-research",
            }
            return thought(True, "On it, I'll ask Bob.", interest=9, taskOps=[create], actions=[ASK_BOB])
    if tag.employee == "bob" and tag.conversation == DM:
        if any("REST or GraphQL" in t for t in unread_from(request, "Alice")):
            return thought(True, BOB_SAYS, interest=8)
    if tag.employee == "alice" and tag.conversation == DM and "[task-1] Ask Bob" in prompt:
        if any(t.startswith("REST") for t in unread_from(request, "Bob")):
            resolve = {"op": "resolve", "taskId": "task-1", "result": "Bob says REST"}
            return thought(False, interest=8, taskOps=[resolve])
    return thought()


async def test_alice_asks_bob_resolves_her_task_and_reports_to_the_boss() -> None:
    scenario = load_scenario(SCENARIO)
    llm = ScriptedLLM(handler=answer)
    office = office_from_scenario(
        scenario, SCENARIO.parent, llm=llm, clock=SimClock(scenario.start), seed=7, journal=MemoryJournal()
    )
    office.start()
    await office.run(timedelta(hours=1))

    def one(records: list[dict]) -> dict:
        assert len(records) == 1, records
        return records[0]

    at = datetime.fromisoformat
    boss_ask = one([m for m in messages_in(office, "boss:alice") if m["sender"] == "boss"])
    assert at(boss_ask["at"]) == scenario.start + timedelta(minutes=5)

    # Alice, woken by the boss in her boss chat, opens the task and DMs Bob on her own.
    opened = one(
        [
            t
            for t in office.journal.thoughts
            if t["thought"] and t["thought"]["taskOps"][:1] and t["thought"]["taskOps"][0]["op"] == "create"
        ]
    )
    assert (opened["employee"], opened["conversation"], opened["trigger"]) == ("alice", "boss:alice", "boss")
    ask = one([m for m in messages_in(office, DM) if m["sender"] == "alice"])
    assert ask["id"] in opened["messages"] and ask["mentions"] == ["bob"]

    # Bob, woken in the DM by the mention, answers there.
    reply = one([m for m in messages_in(office, DM) if m["sender"] == "bob"])
    assert reply["text"] == BOB_SAYS and at(reply["at"]) > at(ask["at"])
    bob_thought = next(t for t in office.journal.thoughts if reply["id"] in t["messages"])
    assert (bob_thought["conversation"], bob_thought["trigger"]) == (DM, "mention")

    # Alice reads the DM with her task on the prompt and resolves it.
    resolving = one(
        [
            t
            for t in office.journal.thoughts
            if t["thought"] and any(op["op"] == "resolve" for op in t["thought"]["taskOps"])
        ]
    )
    assert (resolving["employee"], resolving["conversation"]) == ("alice", DM)
    # Bob's reply woke her (he mentioned nobody): a minute-old task is no `task` wake.
    assert resolving["trigger"] == "nudge"
    assert not any(t["trigger"] == "task" for t in office.journal.thoughts)
    assert at(resolving["at"]) > at(reply["at"])
    seen = next(r for r in llm.requests if who(r).employee == "alice" and who(r).conversation == DM)
    assert "[task-1] Ask Bob: REST or GraphQL" in prompt_of(seen)
    assert resolving["corrections"] == []

    # The engine owes her a think in the boss chat: trigger on_resolve, the result in a system note.
    back = one([t for t in office.journal.thoughts if t["trigger"] == "on_resolve"])
    assert (back["employee"], back["conversation"]) == ("alice", "boss:alice")
    assert at(back["at"]) > at(resolving["at"])
    note_prompt = next(
        prompt_of(r) for r in llm.requests if who(r).employee == "alice" and who(r).at == at(back["at"])
    )
    assert (
        "[system] Your task [task-1] 'Ask Bob: REST or GraphQL' is done. Result: Bob says REST."
        in note_prompt
    )

    # ... and she reports there, after the resolve, in her own words.
    report = one(
        [m for m in messages_in(office, "boss:alice") if m["sender"] == "alice" and m["text"] == REPORT]
    )
    assert report["id"] in back["messages"] and back["spoke"] is True
    assert at(report["at"]) > at(resolving["at"])

    task = one(office.employees["alice"].mind.tasks)
    assert (task.id, task.status, task.result) == ("task-1", "resolved", "Bob says REST")
    assert (task.on_resolve_target, task.origin, task.claim_key) == ("boss:alice", "boss", "api-research")
    assert task.resolved_at is not None and task.resolved_at <= at(back["at"])
    assert open_claims(t for e in office.employees.values() for t in e.mind.tasks) == {}
    # Nobody else said anything: the story is the script's answers and the engine's wiring alone.
    senders = {(m["conversation"], m["sender"]) for m in office.journal.messages if m["sender"] != "boss"}
    assert senders == {("boss:alice", "alice"), (DM, "alice"), (DM, "bob")}
    assert office.clock.now() == scenario.start + timedelta(hours=1)
