"""A requirement's parts as pure reads of a scratch copy (decide/tools/requirements.py): the lead's
task, whether its pieces are done, what they delivered, who leads its room, the lead's request to
the boss and the boss's reopen (issue 37, item 1)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

import pytest

from ideaco.kinds import ConversationKind
from ideaco.mind.board import Offer
from ideaco.mind.tasks import Task
from ideaco.office.core.documents import Document, Version
from ideaco.office.core.refusal import Refusal
from ideaco.office.core.state import ConversationState
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.tools import requirements
from tests.office.conftest import START

NOW = datetime(2026, 1, 5, 10, 0, 0)


def _room(scratch: Scratch, room: str, name: str) -> None:
    scratch.add_conversation(
        ConversationState(room, ConversationKind.WORK, name, ["alice", "bob"], department="eng")
    )


def _task(scratch: Scratch, who: str, task_id: str, room: str, origin: str, **kw: Any) -> Task:
    task = Task(
        id=task_id,
        owner=who,
        description=f"{task_id} of {room}",
        created_at=START,
        origin=origin,
        requirement=room,
        **kw,
    )
    scratch.employee(who).mind.tasks.append(task)
    return task


def _doc(scratch: Scratch, path: str, author: str = "bob") -> Document:
    doc = Document("eng", path, author, "# text\n", (Version("abcd1234", author, START, "t-1"),))
    scratch.documents[doc.key] = doc
    return doc


@pytest.fixture
def scratch(make_office) -> Scratch:
    office = make_office()
    office.state.company.departments["eng"].lead = "alice"
    s = Scratch(office.state)
    _room(s, "req-1", "Requirement 1: the users API")
    _room(s, "req-2", "req-2")
    return s


def test_the_requirement_task_is_the_leads_from_the_boss_not_a_piece(scratch: Scratch) -> None:
    _task(scratch, "alice", "task-3", "req-2", "boss")  # another requirement of hers, first
    _task(scratch, "bob", "task-2", "req-1", "self", document="specs/api.md")
    lead = _task(scratch, "alice", "task-1", "req-1", "boss")
    assert requirements.requirement_task(scratch, "req-1") is lead


def test_pieces_are_done_only_when_resolved_and_none_waits_on_the_board(scratch: Scratch) -> None:
    piece = _task(scratch, "bob", "task-2", "req-1", "self")
    assert not requirements.pieces_done(scratch, "req-1")  # pending
    tasks = scratch.employee("bob").mind.tasks
    tasks[tasks.index(piece)] = replace(piece, status="resolved")
    assert requirements.pieces_done(scratch, "req-1")
    scratch.board["task-9"] = Offer(
        id="task-9", description="more", claim_key="more", offered_by="alice", offered_at=START, room="req-2"
    )
    assert requirements.pieces_done(scratch, "req-1")  # another room's offer
    scratch.board["task-8"] = Offer(
        id="task-8", description="docs", claim_key="docs", offered_by="alice", offered_at=START, room="req-1"
    )
    assert not requirements.pieces_done(scratch, "req-1")  # one of its own still waits


def test_only_the_rooms_own_pieces_deliver_its_documents(scratch: Scratch) -> None:
    _task(scratch, "bob", "task-2", "req-1", "self", document="specs/api.md")
    _task(scratch, "bob", "task-4", "req-2", "self", document="specs/other.md")
    _task(scratch, "bob", "task-5", "req-1", "self")  # a piece with no document
    api, _, _ = _doc(scratch, "specs/api.md"), _doc(scratch, "specs/other.md"), _doc(scratch, "notes.md")
    assert requirements.delivered(scratch, "req-1") == [api]


def test_a_room_is_led_by_its_departments_lead_while_it_works_here(scratch: Scratch) -> None:
    assert requirements.lead_of_room(scratch, "req-1") == "alice"
    assert requirements.lead_of_room(scratch, "req-9") is None  # no such room
    scratch.edit_company().departments["eng"].lead = "zoe"  # not (or no longer) an employee here
    assert requirements.lead_of_room(scratch, "req-1") is None


def test_the_request_names_the_title_only_when_the_room_has_one(scratch: Scratch) -> None:
    for room in ("req-1", "req-2"):
        scratch.edit_company().signoffs[room] = "reported"
    asked = requirements.request(scratch, "alice", "req-1", "t-1-signoff", NOW)
    plain = requirements.request(scratch, "alice", "req-2", "t-2-signoff", NOW)
    assert not isinstance(asked, Refusal) and not isinstance(plain, Refusal)
    assert "sign off requirement req-1 (Requirement 1: the users API). Delivered: no documents." in (
        asked[1].message.text
    )
    assert "sign off requirement req-2. Delivered" in plain[1].message.text  # named by its id alone


def test_a_reopens_feedback_is_the_bosss_notes_cut_at_its_bound(scratch: Scratch) -> None:
    scratch.edit_company().signoffs["req-1"] = "asked"
    notes = "word " * 150
    outcome = requirements.sign_off(scratch, "req-1", "reopen", notes, NOW)
    assert not isinstance(outcome, Refusal)
    [task] = [t for t in scratch.employees["alice"].mind.tasks if t.description.startswith("Rework")]
    said = task.description.removeprefix("Rework requirement req-1; the boss said: ")
    assert len(said) == requirements.FEEDBACK_CHARS == 400 and said == " ".join(notes.split())[:400]
