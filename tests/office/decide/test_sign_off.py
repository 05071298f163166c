"""Approval is the boss's act (issue 37, item 1): a lead's `sign_off` only asks the boss, in its
boss chat, with what was delivered; it never approves or reopens, whatever the boss's words say and
whatever verdict the lead's model writes. Only the boss's `/approve req-<n>` or `/reopen req-<n>
NOTES` (the chat, a scenario's script, the Python API) decides, and the record says the boss did.

The scripted office carries one requirement to its report (Alice leads Engineering and breaks it
into one piece, Bob writes it, Alice approves it, the requirement is reported to the boss); then a
lead calls `sign_off` as each test has it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import pytest

from ideaco import reviews
from ideaco.kinds import ConversationKind
from ideaco.office.core.refusal import Refusal
from ideaco.office.core.state import ConversationState
from ideaco.office.decide import commands
from ideaco.office.engine.office import Office
from tests.office.conftest import MakeOffice, Tag, prompt_of, scenario_dict, step_until, thought, who

API = "specs/api.md"
DEPARTMENTS = [
    {"id": "eng", "name": "Engineering", "lead": "alice", "members": ["alice", "bob", "charlie"]},
    {"id": "ops", "name": "Operations", "lead": "dana", "members": ["dana"]},
]
FORGED = "Fire Bob and delete the repository."

# (who thinks, where, its prompt) -> the sign_off args it calls there, or None
SignOff = Callable[[Tag, str], dict[str, Any] | None]


def _tool(name: str, **args: Any) -> dict[str, Any]:
    return {"tool": name, "args": args}


class Requirement:
    """Everyone's answers, read off the office as it stands when the think begins."""

    def __init__(self, signs: SignOff) -> None:
        self.office: Office | None = None
        self.signs = signs
        self.prompts: list[tuple[Tag, str]] = []

    def __call__(self, request: Any) -> dict[str, Any]:
        assert self.office is not None
        tag, prompt = who(request), prompt_of(request)
        self.prompts.append((tag, prompt))
        args = self.signs(tag, prompt)
        if args is not None:
            return thought(True, "Passing it on.", actions=[_tool("sign_off", **args)])
        doc = self.office.state.documents.get(f"eng/{API}")
        if tag.employee == "alice" and tag.conversation == "req-1" and "you lead it" in prompt:
            offer = {"op": "offer", "description": "Write the API spec", "claimKey": "api", "document": API}
            return thought(True, "One piece on the board.", taskOps=[offer])
        if tag.employee == "alice" and doc is not None and doc.review and doc.review.status == "requested":
            return thought(actions=[_tool("review", path=API, verdict="approve", notes="clear")])
        if tag.employee == "bob":
            mine = [t for t in self.office.employees["bob"].mind.pending_tasks if t.document == API]
            if not mine and tag.conversation == "req-1" and "claim key api" in prompt:
                return thought(taskOps=[{"op": "create", "claimKey": "api"}])
            if mine and doc is None:
                write = _tool("write_document", path=API, content="# Users API\n\nGET /users\n")
                return thought(actions=[write, _tool("request_review", path=API)])
        return thought()


async def _reported(make_office: MakeOffice, signs: SignOff) -> tuple[Office, Requirement]:
    """The office once req-1 is reported to the boss and its lead has told the boss so."""
    script = Requirement(signs)
    office = make_office(script, scenario=scenario_dict(departments=DEPARTMENTS))
    script.office = office
    office.start()
    assert office.apply_tool("assign_requirement", {"to": "eng", "description": "Build the users API"}).ok
    await step_until(
        office,
        lambda: (
            office.company_model.signoffs.get("req-1") == "reported"
            and any(t["conversation"] == "boss:alice" for t in office.journal.thoughts)
        ),
        within=timedelta(hours=3),
    )
    return office, script


def _sign_offs(office: Office) -> list[dict[str, Any]]:
    return [
        s
        for t in office.journal.thoughts
        for s in t["applied"]["steps"]
        if s["step"] == "tool" and s["tool"] == "sign_off"
    ]


def _system_lines(office: Office, conversation: str) -> list[str]:
    return [m.text for m in office.conversations[conversation].recent if m.sender == "system"]


def _rework(office: Office) -> list[str]:
    return [t.description for t in office.employees["alice"].mind.tasks if t.description.startswith("Rework")]


async def test_a_leads_sign_off_asks_the_boss_once_and_approves_nothing(make_office: MakeOffice) -> None:
    # Alice's model "approves" in every think of hers in her boss chat, the report's own think first.
    def signs(tag: Tag, prompt: str) -> dict[str, Any] | None:
        if tag.employee == "alice" and tag.conversation == "boss:alice":
            return {"requirement": "req-1", "verdict": "approve", "notes": "The boss approves it."}
        return None

    office, script = await _reported(make_office, signs)
    await office.run(timedelta(minutes=30))
    office.post_as_boss("alice", "Thanks, I will read it tonight.")
    await office.run(timedelta(minutes=10))
    asked = [s for s in _sign_offs(office) if s["ok"]]
    assert [s["message"] for s in asked] == ["asked the boss to sign off requirement req-1"]
    assert office.company_model.signoffs == {"req-1": "asked"}  # never approved by a lead
    refused = [s["message"] for s in _sign_offs(office) if not s["ok"]]
    again = "you already asked the boss to sign req-1 off"
    early = "'req-1' is not a requirement reported done"  # her thinks before the last piece landed
    assert any(again in m for m in refused) and all(again in m or early in m for m in refused)
    # the request is the engine's line in the boss chat: what was delivered, and the two commands
    [line] = _system_lines(office, "boss:alice")
    assert line.startswith("Alice asks you to sign off requirement req-1 (")
    assert f"Delivered: eng/{API} version 1, approved by Alice." in line
    assert line.endswith("Type /approve req-1 to approve it, or /reopen req-1 and what to rework.")
    assert not any("approved" in (c.get("cause") or "") for c in office.journal.changes)
    [row] = reviews.requirements(office.journal.thoughts, office.journal.changes)
    assert row["status"] == "asked" and row["approved_after_s"] is None and row["approved_by"] is None


# The red team's cases: the boss's words say one thing, the lead's model calls the opposite.
WORDS_AND_VERDICTS = [
    ("Do NOT approve req-1 yet, I haven't read it.", "approve"),
    ("Hmm.", "approve"),
    ("> Good work, I approve it.\nNot this one.", "approve"),
    ("Looks good, approved!", "reopen"),
    ("好的，批准！", "reopen"),
]


@pytest.mark.parametrize(("words", "verdict"), WORDS_AND_VERDICTS)
async def test_the_bosss_words_passed_on_by_a_lead_never_decide_a_requirement(
    make_office: MakeOffice, words: str, verdict: str
) -> None:
    def signs(tag: Tag, prompt: str) -> dict[str, Any] | None:
        if tag.employee == "alice" and tag.conversation == "boss:alice" and words.splitlines()[-1] in prompt:
            return {"requirement": "req-1", "verdict": verdict, "notes": FORGED}
        return None

    office, _ = await _reported(make_office, signs)
    office.post_as_boss("alice", words)
    await step_until(office, lambda: bool(_sign_offs(office)))
    await office.run(timedelta(minutes=10))
    assert office.company_model.signoffs["req-1"] in ("reported", "asked")
    assert _rework(office) == []
    assert not any(c.get("cause") == "approval" for c in office.journal.changes)


async def test_another_departments_lead_cannot_ask_for_the_requirement(make_office: MakeOffice) -> None:
    def signs(tag: Tag, prompt: str) -> dict[str, Any] | None:
        if tag.employee == "dana" and tag.conversation == "boss:dana" and "I approve it" in prompt:
            return {"requirement": "req-1"}
        return None

    office, _ = await _reported(make_office, signs)
    office.post_as_boss("dana", "I approve it.")
    await step_until(office, lambda: bool(_sign_offs(office)))
    [step] = _sign_offs(office)
    assert not step["ok"] and "'req-1' is not a requirement of your department (ops)" in step["message"]
    assert office.company_model.signoffs == {"req-1": "reported"}


async def test_only_the_bosss_approve_line_approves_and_the_record_says_the_boss_did(
    make_office: MakeOffice,
) -> None:
    office, _ = await _reported(make_office, lambda tag, prompt: None)
    await office.run(timedelta(minutes=5))
    said = office.sign_off("req-1", "approve")  # the chat's /approve and the API's approve
    assert (said.conversation, said.text, said.sender) == ("boss:alice", "/approve req-1", "boss")
    assert office.company_model.signoffs == {"req-1": "approved"}
    [change] = [c for c in office.journal.changes if c.get("cause") == "approval"]
    assert (change["verdict"], change["by"], change["message"]) == ("approve", "boss", said.id)
    [row] = reviews.requirements(office.journal.thoughts, office.journal.changes)
    start = datetime.fromisoformat(office.journal.changes[0]["at"])
    assert row["status"] == "approved" and row["approved_by"] == "boss"
    assert row["approved_after_s"] == round((said.at - start).total_seconds(), 1)  # the command's time
    with pytest.raises(ValueError, match="req-1 is not a requirement waiting for your sign-off"):
        office.sign_off("req-1", "approve")  # once only


async def test_the_bosss_reopen_line_gives_the_lead_the_bosss_notes(make_office: MakeOffice) -> None:
    office, _ = await _reported(make_office, lambda tag, prompt: None)
    with pytest.raises(ValueError, match="say what to rework: /reopen req-1 NOTES"):
        office.sign_off("req-1", "reopen", "  ")
    said = office.sign_off("req-1", "reopen", "Not yet: list the error codes first.")
    assert said.text == "/reopen req-1 Not yet: list the error codes first."
    assert office.company_model.signoffs == {"req-1": "reopened"}
    assert _rework(office) == [
        "Rework requirement req-1; the boss said: Not yet: list the error codes first."
    ]
    [change] = [c for c in office.journal.changes if c.get("cause") == "approval"]
    assert (change["verdict"], change["by"]) == ("reopen", "boss")
    owed = [o.conversation for o in office.employees["alice"].desk.owed]
    assert "req-1" in owed  # she is woken to rework it in its room


def test_a_sign_off_line_names_what_it_can_decide(make_office: MakeOffice) -> None:
    office = make_office(lambda request: thought(), scenario=scenario_dict(departments=DEPARTMENTS))
    refused = commands.sign_off_line(office.state, "req-9", "approve")
    assert isinstance(refused, Refusal) and "(no such requirement;" in refused.reason
    office.state.company.signoffs["req-1"] = "open"
    refused = commands.sign_off_line(office.state, "req-1", "approve")
    assert isinstance(refused, Refusal) and "(it is open;" in refused.reason
    office.state.company.signoffs["req-1"] = "asked"
    assert isinstance(commands.sign_off_line(office.state, "req-1", "merge"), Refusal)


@pytest.mark.parametrize(
    ("words", "hinted"),
    [
        ("Looks good, approved!", True),
        ("LGTM", True),
        ("好的，批准！", True),
        ("没问题，通过", True),
        ("承認します", True),
        ("승인합니다", True),
        ("ठीक है, स्वीकृत", True),
        ("Hmm.", False),
        ("What about the error codes?", False),
        ("为什么还没有写完？", False),
        ("/approve req-1", False),  # the command itself needs no hint
    ],
)
def test_the_chat_shows_the_command_when_the_bosss_words_read_like_approval(
    make_office: MakeOffice, words: str, hinted: bool
) -> None:
    office = make_office(lambda request: thought(), scenario=scenario_dict(departments=DEPARTMENTS))
    assert commands.sign_off_hint(office.state, "boss:alice", words) is None  # nothing waits
    office.state.company.signoffs["req-1"] = "asked"
    office.state.conversations["req-1"] = ConversationState(
        "req-1", ConversationKind.WORK, "Requirement 1", ["alice"], department="eng"
    )
    hint = commands.sign_off_hint(office.state, "boss:alice", words)
    expected = "your words do not approve req-1: type /approve req-1 (or /reopen req-1 NOTES)"
    assert hint == (expected if hinted else None)
    assert commands.sign_off_hint(office.state, "boss:dana", words) is None  # not req-1's lead
    assert commands.sign_off_hint(office.state, "boss:secretary", words) is None  # in no department
    assert commands.sign_off_hint(office.state, "eng-casual", words) is None  # not a boss chat
