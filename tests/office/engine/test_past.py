"""A fork's logged past (office/engine/past.py): which thinks it answers, what it draws again, and
its journal, silent and checking until the moment."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from ideaco.office.core.steps import EmployeeStep, OweStep
from ideaco.office.engine.past import Past, PastDiverged, PastJournal, _drawn_look, _undrawn
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.office.resolve.records import result_from_record

DATA = Path(__file__).resolve().parents[2] / "guard" / "data" / "office-s1"
MOMENT = datetime(2026, 1, 5, 9, 30)


def logged(name: str) -> list[dict]:
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line]


@pytest.fixture(scope="module")
def past() -> Past:
    return Past(MOMENT, logged("messages.jsonl"), logged("thoughts.jsonl"))


def test_the_past_holds_the_thinks_that_landed_by_the_moment(past: Past) -> None:
    thoughts = logged("thoughts.jsonl")
    landed = [t for t in thoughts if t["applied"]["at"] <= MOMENT.isoformat()]
    later = [t for t in thoughts if t["applied"]["at"] > MOMENT.isoformat()]
    assert past.thoughts == landed and later
    first, after = landed[0], later[0]
    assert past.holds(first["employee"], datetime.fromisoformat(first["at"]))
    assert not past.holds(after["employee"], datetime.fromisoformat(after["at"]))
    assert not past.holds(first["employee"], datetime.fromisoformat(after["at"]))  # another employee's moment
    assert [m["at"] <= MOMENT.isoformat() for m in past.messages] == [True] * len(past.messages)


def test_what_applying_a_step_drew_is_drawn_again() -> None:
    thoughts = logged("thoughts.jsonl")
    owing = next(t for t in thoughts if any(s["step"] == "owe" for s in t["applied"]["steps"]))
    step = next(s for s in result_from_record(owing).steps if isinstance(s, OweStep))
    assert step.wake_at is not None and _undrawn(step, owing).wake_at is None

    hiring = next(
        t for t in thoughts if any(s["step"] == "employee" and "joined" in s for s in t["applied"]["steps"])
    )
    joined = next(s for s in result_from_record(hiring).steps if isinstance(s, EmployeeStep) and s.joined)
    assert joined.joined["age"] is not None
    assert _undrawn(joined, hiring).joined["age"] is None  # the tool gave no age: it was drawn
    stated = json.loads(json.dumps(hiring))
    for action in stated["thought"]["actions"]:
        if action["tool"] == "hire_employee":
            action["args"]["age"] = joined.joined["age"]
    assert _undrawn(joined, stated).joined["age"] == joined.joined["age"]  # stated: kept


def test_a_next_look_is_drawn_again_only_for_a_thought_that_stood() -> None:
    thoughts = logged("thoughts.jsonl")
    stood = next(t for t in thoughts if t["thought"] and not t.get("error") and t["gate"] != "superseded")
    superseded = next(t for t in thoughts if t["gate"] == "superseded")
    assert _drawn_look(stood, result_from_record(stood)) == (
        stood["thought"]["interestLevel"],
        stood["thought"]["topicSaturation"],
    )
    assert _drawn_look(superseded, result_from_record(superseded)) is None


def test_the_journal_writes_nothing_before_the_moment_and_checks_each_message(past: Past) -> None:
    inner = MemoryJournal()
    journal = PastJournal(inner, past)
    first, second = past.messages[0], past.messages[1]
    journal.message(dict(first))
    journal.thought({"id": "t1"})
    journal.change({"at": "x"})
    journal.checkpoint({"office": {}})
    assert inner.messages == inner.thoughts == inner.changes == [] and inner.state is None
    with pytest.raises(PastDiverged, match=second["id"]):
        journal.message({**second, "text": second["text"] + " (not what was said)"})
    journal.open()
    journal.message({"id": "fork-1"})
    journal.thought({"id": "t2"})
    assert inner.messages == [{"id": "fork-1"}] and inner.thoughts == [{"id": "t2"}]


def test_a_think_run_again_as_another_thought_or_in_another_room_is_a_divergence(past: Past) -> None:
    from dataclasses import replace

    record = past.thoughts[3]
    ctx = result_from_record(record).ctx
    assert past.outcome(ctx) is not None  # as logged: its outcome
    with pytest.raises(PastDiverged, match=record["id"]):
        past.outcome(replace(ctx, thought_id="t999999"))  # the same room, another id
    with pytest.raises(PastDiverged, match=record["id"]):
        past.outcome(replace(ctx, conversation="elsewhere"))  # the same id, another room
