"""One description of each step's record (issue 27, item 4): the writer (office/core/steps.py) and the
shapes every reader checks (store/step_records.py) cannot drift apart.

Every step kind is built here with every optional part it can log. Each record must fit its shape,
name no field the shape leaves undeclared, and read back to the same record; together they must
write every field the shapes declare. A field added to one side only fails here.
"""

from __future__ import annotations

import typing
from dataclasses import fields as dataclass_fields
from datetime import datetime, timedelta
from typing import Any

import pytest
from pydantic import BaseModel

from ideaco.cycle import Gate, LoopRule, Owed, TextRule, Trigger
from ideaco.kinds import ConversationKind, StepKind
from ideaco.mind.board import Offer
from ideaco.mind.changes import ListChanges, MindChanges, RelationChange
from ideaco.mind.memory import MemoryItem
from ideaco.mind.relationships import Relation
from ideaco.mind.stamina import Stamina
from ideaco.mind.tasks import Task
from ideaco.office.core import documents as core
from ideaco.office.core import steps
from ideaco.office.core.company import Company, Department, Team
from ideaco.office.core.state import CONVERSATION_FIELDS, IDENTITY, ConversationState, Employee
from ideaco.store import step_records
from ideaco.store.step_records import STEPS, Part, step_problem

T0 = datetime(2026, 1, 5, 9, 0)
LEGACY = {("DocumentStepRecord", "document")}  # read from older logs, written no more


def _memory(n: int) -> MemoryItem:
    return MemoryItem(f"mem-{n}", f"fact {n}", "fact", 5, T0, T0)


def _task(n: int, status: str = "pending") -> Task:
    return Task(id=f"task-{n}", owner="ana", description=f"do {n}", created_at=T0, status=status)


def _mind_step() -> steps.MindStep:
    relation = Relation("Ben", "steady", 60.0, T0)
    changes = MindChanges(
        long_term=ListChanges((_memory(2),), (_memory(1),), ("mem-0",), before=(_memory(9),)),
        short_term=ListChanges((_memory(3),)),
        summaries={"api": "we agreed on REST"},
        relations=(RelationChange("ben", relation, 50.0), RelationChange("cyd", None, 40.0)),
        tasks=ListChanges((_task(2),), (_task(1, "resolved"),), ("task-0",), before=(_task(1),)),
        stamina=Stamina(90.0, 10.0, 5.0),
        stamina_before=Stamina(),
        stamina_events=("llm_call",),
        mood=(7, 3),
        notes=("a note",),
        escalated=True,
        next_memory_id=4,
    )
    return steps.MindStep("ana", changes, ("api", 3))


def _document() -> core.Document:
    version = core.Version("bc49a161", "ben", T0, "t000001")
    review = core.Review("ana", core.REJECTED, 1, 1, "too thin", "it is enough", False, "bc49a161")
    return core.Document("eng", "specs/api.md", "ben", "# API\n", (version,), "task-1", review)


def samples() -> list[Any]:
    """Every step kind, with every part it can log."""
    owed = Owed("boss:ana", Trigger.SYSTEM, "report", True, 1, ("hire_employee",))
    ana = Employee("ana", "Ana", "Lead", 30, "eng", None, {"id": "old-hand"})
    room = ConversationState("api", ConversationKind.WORK, "API", ["ana", "ben"])
    company = Company(
        "Acme", {"eng": Department("eng", "Eng", "Ship", ["ana"], "ana", [Team("t", "T", ["ana"])])}
    )
    company.signoffs = {"req-1": "reported"}
    offer = Offer(
        id="task-5",
        description="Write it",
        claim_key="write-it",
        offered_by="ana",
        offered_at=T0,
        room="req-1",
        department="eng",
        reason="busy",
        origin="boss",
        hint="soon",
        document="docs/it.md",
    )
    identity = {"name": "Ana", "role": "Lead", "age": 31, "department": "eng", "model": "m", "persona": {}}
    return [
        _mind_step(),
        steps.EmployeeStep("ana", joined=ana.to_dict(), fields=identity | {"dismissed": True}),
        steps.ConversationStep(
            "api",
            opened=room.to_dict(),
            fields={
                "name": "API",
                "members": ["ana"],
                "mission": "Ship",
                "department": "eng",
                "escalated_at": T0,
                "closed_until": T0,
                "last_boss_at": T0,
                "reset_at": T0,
                "blocked_pair": ("ana", "ben"),
            },
        ),
        steps.CompanyStep(company.to_dict()),
        steps.OweStep("ana", owed, T0),
        steps.OweAgainStep("ana", Trigger.BOSS, owed),
        steps.DraftStep("messages[0]", "api", message_id="t000001-m1", rule=LoopRule.PAIR_STREAK),
        steps.DraftStep(
            "actions[0]", "api", gate=Gate.LOOP_BREAKER, rule=LoopRule.RING, detail="ring", reopens_at=T0
        ),
        steps.DraftStep(
            "messages[1]", "api", gate=Gate.FILTERED, rule=TextRule.PLACEHOLDER, detail="[x]", kind="hygiene"
        ),
        steps.GateHoldStep("ana", "api", T0 + timedelta(minutes=1), owed),
        steps.BoardStep((offer,), ("task-4",)),
        steps.NoticeStep("req-1", "t000001-n1"),
        steps.ToolStep("hire_employee", False, "refused", cap="per_hour", counted=True),
        steps.DocumentStep.between(None, _document(), "write_document"),
    ]


def _models(annotation: Any) -> list[type[BaseModel]]:
    """The models an annotation holds (in lists, unions and Annotated)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [m for arg in typing.get_args(annotation) for m in _models(arg)]


def _walk(record: dict[str, Any], model: type[BaseModel], seen: dict[str, set[str]]) -> list[str]:
    """Keys of `record` its model does not declare (a Part declares only what is read); notes what was seen."""
    undeclared = []
    seen.setdefault(model.__name__, set()).update(record)
    for key, value in record.items():
        field = model.model_fields.get(key)
        if field is None:
            undeclared += [] if issubclass(model, Part) else [f"{model.__name__}.{key}"]
            continue
        for sub in _models(field.annotation):
            for item in value if isinstance(value, list) else [value]:
                if isinstance(item, dict):
                    undeclared += _walk(item, sub, seen)
    return undeclared


def _declared(model: type[BaseModel], out: dict[str, set[str]]) -> dict[str, set[str]]:
    if model.__name__ in out:
        return out
    out[model.__name__] = set() if issubclass(model, Part) else set(model.model_fields)
    for field in model.model_fields.values():
        for sub in _models(field.annotation):
            _declared(sub, out)
    return out


def test_every_step_kind_has_one_shape() -> None:
    assert set(STEPS) == set(steps._KINDS) == set(StepKind)
    assert all(cls.RECORD is STEPS[kind] for kind, cls in steps._KINDS.items())
    assert {type(s).__name__ for s in samples()} == {k.__name__ for k in steps._KINDS.values()}


@pytest.mark.parametrize("step", samples(), ids=lambda s: type(s).__name__)
def test_what_a_step_writes_fits_its_shape_and_reads_back(step: Any) -> None:
    record = step.to_record()
    assert step_problem(record) is None, step_problem(record)
    assert _walk(record, STEPS[record["step"]], {}) == []
    again = steps.step_from_record(record).to_record()
    if "stamina" in record:  # its delta is for readers: a resume applies the stamina after
        again["stamina"]["delta"] = record["stamina"]["delta"]
    assert again == record


def test_every_field_a_shape_declares_is_one_a_step_writes() -> None:
    seen: dict[str, set[str]] = {}
    for step in samples():
        record = step.to_record()
        _walk(record, STEPS[record["step"]], seen)
    declared: dict[str, set[str]] = {}
    for model in STEPS.values():
        _declared(model, declared)
    declared.pop("WholeDocument")  # an older ideaco's document step (LEGACY), read, never written
    unwritten = {
        (name, f)
        for name, fs in declared.items()
        for f in fs - seen.get(name, set())
        if (name, f) not in LEGACY
    }
    assert unwritten == set()


def test_the_fields_a_step_may_set_are_the_offices() -> None:
    assert set(step_records.EmployeeFields.model_fields) == set(IDENTITY)
    assert set(step_records.ConversationFields.model_fields) == set(CONVERSATION_FIELDS)
    assert {f.name for f in dataclass_fields(Offer)} == set(step_records.OfferRecord.model_fields)


def test_the_checker_finds_a_field_one_side_does_not_know() -> None:
    record = steps.ToolStep("x", True, "done").to_record() | {"cost": 3}
    assert _walk(record, STEPS["tool"], {}) == ["ToolStepRecord.cost"]
