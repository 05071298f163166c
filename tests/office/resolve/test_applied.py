"""One thought, one result (issue 10): a think only reads the office; `resolve` alone applies it;
what it applied is logged under `applied`, and resolving the logged records again rebuilds the office.
"""

from __future__ import annotations

import copy
import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from ideaco.cycle import Phase
from ideaco.llm.base import ChatRequest
from ideaco.office.decide import decision
from ideaco.office.engine.build import office_from_scenario, office_from_state
from ideaco.office.engine.clock import SimClock
from ideaco.office.engine.office import Office
from ideaco.office.engine.persistence import snapshot
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.scenario import load_scenario
from tests.fakes.llm import ScriptedLLM
from tests.guard.scripted import as_content, respond

GUARD_OFFICE = Path(__file__).resolve().parents[2] / "guard" / "office.yaml"


def scripted(request: ChatRequest) -> str:
    """The guard office's scripted model (tasks, the secretary, loop breakers, stamina), over ScriptedLLM."""
    body = {
        "messages": list(request.messages),
        "response_format": {"json_schema": {"schema": request.json_schema}},
    }
    return as_content(respond(body))


def guard_office(seed: int = 2) -> Office:
    scenario = load_scenario(GUARD_OFFICE)
    return office_from_scenario(
        scenario,
        GUARD_OFFICE.parent,
        llm=ScriptedLLM(handler=scripted),
        clock=SimClock(scenario.start),
        seed=seed,
        journal=MemoryJournal(),
    )


def comparable(office: Office) -> dict[str, Any]:
    """The office's state as a resume must rebuild it (its clock, dice and wakes aside)."""
    snap = json.loads(json.dumps(snapshot(office), default=str))
    for key in ("now", "streams", "end_at", "stop_reason", "stats", "idle_thought_at"):
        snap["office"].pop(key, None)
    for emp in snap["employees"]:
        emp["desk"] = {
            k: v for k, v in emp["desk"].items() if k in ("cursors", "held_until", "task_alerts", "hold")
        }
    for conv in snap["conversations"]:
        conv.pop("count")
    return snap


def state_of(office: Office) -> tuple[Any, ...]:
    """Everything a think could change, down to the random generator and the scheduled events."""
    clock = office.clock
    return (
        json.dumps(snapshot(office), sort_keys=True, default=str),
        office.streams.to_dict(),
        len(clock._queue),  # type: ignore[attr-defined]
        dict(office.wakes.versions),
        office.stats.to_dict(),
    )


async def test_a_think_only_reads_the_office_and_resolve_applies_it(monkeypatch: pytest.MonkeyPatch) -> None:
    office = guard_office(1)
    decided = {"thoughts": 0, "spoke": 0, "tools": 0}
    real_decide = decision.decide

    def frozen_decide(view: Any, ctx: decision.ThinkContext, now: Any) -> Any:
        before = state_of(office)
        result = real_decide(view, ctx, now)
        assert state_of(office) == before, f"deciding {ctx.thought_id} changed the office"
        if result is not None:
            decided["thoughts"] += 1
            decided["spoke"] += bool(result.posted)
            decided["tools"] += sum(1 for s in result.steps if type(s).__name__ == "ToolStep")
        return result

    monkeypatch.setattr(decision, "decide", frozen_decide)
    office.start()
    await office.run(timedelta(hours=1))
    # The check ran on thinks that spoke, stayed silent and used the secretary's tools.
    assert decided["thoughts"] >= 40 and decided["spoke"] >= 15 and decided["tools"] >= 3


async def test_decide_reads_a_frozen_read_and_refuses_the_live_office(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue 38, item 1: every think is decided against an `OfficeRead` (frozen: none of its fields
    can be set, and it holds no clock, calls, wakes, journal or random stream), never the live
    `Office`; handed the live office, decide refuses."""
    from dataclasses import FrozenInstanceError

    from ideaco.office.perceive.view import OfficeRead

    office = guard_office(1)
    seen: list[Any] = []
    real_decide = decision.decide

    def watching(view: Any, ctx: decision.ThinkContext, now: Any) -> Any:
        seen.append(view)
        with pytest.raises(TypeError, match="decide reads an OfficeRead"):
            real_decide(office, ctx, now)  # the live office: refused before anything is read
        return real_decide(view, ctx, now)

    monkeypatch.setattr(decision, "decide", watching)
    office.start()
    await office.run(timedelta(minutes=20))
    assert len(seen) >= 10 and all(type(v) is OfficeRead for v in seen)
    read = seen[0]
    for name in ("clock", "calls", "wakes", "journal", "streams", "rng", "stats", "meta"):
        assert not hasattr(read, name), name
    with pytest.raises(FrozenInstanceError):
        read.state = office.state  # type: ignore[misc]


async def test_every_thought_logs_what_it_applied() -> None:
    records = []
    for seed in (1, 2, 3):  # together, the three seeds reach every mechanic (tests/guard)
        office = guard_office(seed)
        office.start()
        await office.run(timedelta(hours=2))
        records += office.journal.thoughts
    kinds = {step["step"] for r in records for step in r["applied"]["steps"]}
    assert {"mind", "draft", "owe", "tool", "employee", "conversation", "company"} <= kinds
    rules = {step.get("rule") for r in records for step in r["applied"]["steps"] if step["step"] == "draft"}
    assert {"ring", "pair_streak"} <= rules
    for record in records:
        posted = [s["posted"] for s in record["applied"]["steps"] if s["step"] == "draft" and "posted" in s]
        assert posted == record["messages"], record["id"]
        held = [s for s in record["applied"]["steps"] if s["step"] == "draft" and "gate" in s]
        if record["gate"] not in (None, "chose_silence", "superseded", "error", "budget"):
            assert held and held[0]["gate"] == record["gate"], record["id"]
        for step in record["applied"]["steps"]:
            if step["step"] == "mind" and "stamina" in step:
                assert step["stamina"]["after"]["zone"] in ("green", "yellow", "red")
            if step["step"] == "mind" and "relationships" in step:
                for change in step["relationships"]:
                    assert abs(change["after"] - change["before"]) <= 15 + 1e-9


@pytest.mark.parametrize("seed", [1, 3])
async def test_resolving_the_logged_records_again_rebuilds_the_office(seed: int) -> None:
    office = guard_office(seed)
    start = copy.deepcopy(snapshot(office))
    office.start()
    await office.run(timedelta(hours=2))
    while any(e.desk.phase is not Phase.IDLE for e in office.employees.values()):
        await office.clock.step()  # a think begun but not resolved has logged nothing yet
    messages, thoughts = list(office.journal.messages), list(office.journal.thoughts)
    assert len(thoughts) > 80

    rebuilt = office_from_state(
        json.loads(json.dumps(start, default=str)),
        messages,
        thoughts=thoughts,
        changes=list(office.journal.changes),
        llm=ScriptedLLM(),
        clock=SimClock(office.now()),
        journal=MemoryJournal(),
    )
    assert comparable(rebuilt) == comparable(office)
    assert rebuilt.stats.to_dict() == office.stats.to_dict() | {"errors": rebuilt.stats.errors}


def _record(thought_id: str, at: str, owed: dict[str, str], **applied: Any) -> dict[str, Any]:
    """A logged think of Ana's in her boss chat that answered `owed` (nothing else to apply)."""
    return {
        "id": thought_id,
        "at": at,
        "employee": "ana",
        "conversation": "boss:ana",
        "trigger": owed["trigger"],
        "thought": None,
        "spoke": False,
        "gate": applied.pop("gate", None),
        "llm": None,
        "corrections": [],
        "next_look_at": applied.pop("next_look_at", None),
        "messages": [],
        "rethink": False,
        "applied": {"at": at, "began": {"owed": owed}, "steps": [], **applied},
    }


async def test_a_superseded_think_whose_rethink_was_lost_leaves_its_owed_think_owed() -> None:
    from ideaco.cycle import Owed
    from ideaco.office.resolve.records import result_from_record

    report = {"conversation": "boss:ana", "trigger": "system", "note": "Report on the release."}
    drill = {"conversation": "boss:ana", "trigger": "task", "note": "Your task [task-9] is overdue."}
    office = guard_office(1)
    ana = office.employees["ana"]
    ana.desk.owed += [Owed.from_dict(report), Owed.from_dict(drill)]
    at = office.now()
    with office.replaying(at):
        office.resolve(
            result_from_record(_record("t1", at.isoformat(), report, gate="superseded", rethink_note="x"))
        )
    # Its re-think never finished (a kill): the report is still owed, to be thought again.
    assert Owed.from_dict(report) in ana.desk.owed
    later = (at + timedelta(minutes=1)).isoformat()
    with office.replaying(at + timedelta(minutes=1)):
        office.resolve(result_from_record(_record("t2", later, drill, next_look_at=later)))
    # A later think that answered another owed think took it, whatever the lost re-think left behind.
    assert ana.desk.owed == [Owed.from_dict(report)]
