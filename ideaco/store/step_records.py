"""The record of each step kind under a thought's `applied.steps` (and a change's `steps`), described once.

`office/core/steps.py` writes these records and reads them back on a resume; `report`, `view`,
`inspect` and `interview` read them through `RunLog`. Both sides check a record here: `RunLog`
skips (a reader) or refuses (a resume) a line whose steps do not fit, naming the file and the
line, and `steps.step_from_record` reads only what fits. `tests/store/test_step_records.py` holds
the writer to it: every field a step writes is declared here, and every field declared here is
written, so the two cannot drift apart.

A `Record` is a logged form the step owns: every field it has is declared. A `Part` is an
object of another module as it logs itself (a task, a memory, an employee who joined): only the
fields a reader or the resume's step reads are declared, the rest are its own.
"""

from __future__ import annotations

from datetime import datetime
from enum import Enum
from typing import Annotated, Any, ClassVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from ideaco.bounds import check_start
from ideaco.cycle import Gate, Trigger
from ideaco.kinds import StepKind
from ideaco.mind.tasks import SELF


def _moment(value: str) -> str:
    check_start(datetime.fromisoformat(value))  # a time, and one the engine's dates can hold
    return value


def _word(words: type[Enum]) -> AfterValidator:
    """A string that is one of an enum's values (strict pydantic takes no string for an enum)."""
    allowed = {w.value for w in words}

    def check(value: str) -> str:
        if value not in allowed:
            raise ValueError(f"{value!r} is not a {words.__name__.lower()}")
        return value

    return AfterValidator(check)


Moment = Annotated[str, AfterValidator(_moment)]
Count = Annotated[int, Field(ge=0)]
Number = float | int
TriggerWord = Annotated[str, _word(Trigger)]
GateWord = Annotated[str, _word(Gate)]


class LogRecord(BaseModel):
    # strict: a "5" is not a number nor a 5 a string; a field nobody reads is not checked.
    model_config = ConfigDict(extra="ignore", strict=True)


class Part(LogRecord):
    """An object of another module in its own logged form: the fields read are declared."""


# ---------------------------------------------------------------------------- mind


class StaminaAt(Part):
    patience: Number
    fatigue: Number
    stress: Number
    zone: str | None = None


class StaminaChange(LogRecord):
    events: list[str] = Field(default_factory=list)
    delta: dict[str, Number] = Field(default_factory=dict)
    after: StaminaAt


class RelationRecord(Part):
    employee: str
    removed: bool = False
    before: Number
    after: Number | None = None  # only a forgotten one (removed) has none
    name: str | None = None
    impression: str | None = None

    @model_validator(mode="after")
    def _landed(self) -> RelationRecord:
        if self.after is None and not self.removed:
            raise ValueError("an affinity that changed needs its value after")
        return self


class TaskPatch(Part):
    id: str
    owner: str | None = None
    description: str | None = None
    status: str | None = None
    result: str | None = None
    created_at: Moment | None = None
    resolved_at: Moment | None = None


class TaskChanges(LogRecord):
    added: list[TaskPatch] = Field(default_factory=list)
    updated: list[TaskPatch] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)


class MemoryItemRecord(Part):
    id: str
    content: str | None = None


class MemoryLayer(LogRecord):
    added: list[MemoryItemRecord] = Field(default_factory=list)
    updated: list[MemoryItemRecord] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)


class MemoryChanges(LogRecord):
    long_term: MemoryLayer | None = None
    short_term: MemoryLayer | None = None
    summaries: dict[str, str] = Field(default_factory=dict)
    next_id: Count | None = None


class Read(LogRecord):
    conversation: str
    upto: Count


class Mood(LogRecord):
    interest: int
    saturation: int


class StepRecord(LogRecord):
    """A step's record; `KIND`, the name it carries in `step`."""

    KIND: ClassVar[StepKind]
    step: str


class MindStepRecord(StepRecord):
    KIND: ClassVar[StepKind] = StepKind.MIND
    employee: str
    read: Read | None = None
    memory: MemoryChanges | None = None
    relationships: list[RelationRecord] = Field(default_factory=list)
    tasks: TaskChanges | None = None
    stamina: StaminaChange = Field(default=None)  # absent, or a change: readers test `"stamina" in step`
    mood: Mood | None = None
    notes: list[str] = Field(default_factory=list)
    escalated: bool | None = None


# ---------------------------------------------------------------------------- people, rooms, company


class Joined(Part):
    id: str
    name: str
    role: str
    mind: dict[str, Any]


class _Fields(LogRecord):
    # The fields a step sets on an employee or a conversation: no others (the office sets them by name).
    model_config = ConfigDict(extra="forbid", strict=True)


class EmployeeFields(_Fields):
    """What an employee step may change (office/core/state.py's IDENTITY), each only when logged."""

    name: str = Field(default=None)
    role: str = Field(default=None)
    age: int | None = None
    department: str | None = None
    model: str | None = None
    persona: dict[str, Any] = Field(default=None)
    dismissed: bool = Field(default=None)


class EmployeeStepRecord(StepRecord):
    KIND: ClassVar[StepKind] = StepKind.EMPLOYEE
    id: str
    joined: Joined | None = None
    fields: EmployeeFields = Field(default_factory=EmployeeFields)


class Opened(Part):
    id: str
    kind: str
    name: str
    members: list[str]


class ConversationFields(_Fields):
    """What a conversation step may change (office/core/state.py's CONVERSATION_FIELDS)."""

    name: str = Field(default=None)
    members: list[str] = Field(default=None)
    mission: str | None = None
    department: str | None = None
    escalated_at: Moment | None = None
    closed_until: Moment | None = None
    last_boss_at: Moment | None = None
    reset_at: Moment | None = None
    blocked_pair: Annotated[list[str], Field(min_length=2, max_length=2)] | None = None


class ConversationStepRecord(StepRecord):
    KIND: ClassVar[StepKind] = StepKind.CONVERSATION
    id: str
    opened: Opened | None = None
    fields: ConversationFields = Field(default_factory=ConversationFields)


class TeamRecord(LogRecord):
    id: str
    name: str
    members: list[str] = Field(default_factory=list)
    lead: str | None = None


class DepartmentRecord(LogRecord):
    id: str
    name: str
    mission: str = ""
    members: list[str] = Field(default_factory=list)
    lead: str | None = None
    teams: list[TeamRecord] = Field(default_factory=list)


class CompanyRecord(LogRecord):
    name: str
    departments: list[DepartmentRecord] = Field(default_factory=list)
    requirements: Count = 0
    signoffs: dict[str, str] = Field(default_factory=dict)


class CompanyStepRecord(StepRecord):
    KIND: ClassVar[StepKind] = StepKind.COMPANY
    company: CompanyRecord


# ---------------------------------------------------------------------------- owed thinks, posts, holds


class OwedRecord(LogRecord):
    conversation: str
    trigger: TriggerWord
    note: str = ""
    escalation: bool = False
    round: Count = 0
    refused: list[str] = Field(default_factory=list)


class OweStepRecord(StepRecord, OwedRecord):
    KIND: ClassVar[StepKind] = StepKind.OWE
    employee: str
    wake_at: Moment | None = None


class OweAgainStepRecord(StepRecord):
    KIND: ClassVar[StepKind] = StepKind.OWE_AGAIN
    employee: str
    trigger: TriggerWord
    owed: OwedRecord | None = None


class DraftStepRecord(StepRecord):
    KIND: ClassVar[StepKind] = StepKind.DRAFT
    where: str
    conversation: str
    posted: str | None = None
    gate: GateWord | None = None
    rule: str | None = None
    kind: str | None = None  # a text rule's kind: guarantee or hygiene
    detail: str | None = None
    reopens_at: Moment | None = None


class GateHoldStepRecord(StepRecord):
    KIND: ClassVar[StepKind] = StepKind.GATE_HOLD
    employee: str
    conversation: str
    reopens_at: Moment
    owed: OwedRecord


class OfferRecord(LogRecord):
    id: str
    description: str
    claim_key: str
    offered_by: str
    offered_at: Moment
    room: str | None = None
    department: str | None = None
    reason: str = ""
    origin: str = SELF
    type: str = "oneshot"
    hint: str | None = None
    document: str | None = None


class BoardStepRecord(StepRecord):
    KIND: ClassVar[StepKind] = StepKind.BOARD
    added: list[OfferRecord] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)


class NoticeStepRecord(StepRecord):
    KIND: ClassVar[StepKind] = StepKind.NOTICE
    conversation: str
    posted: str


class ToolStepRecord(StepRecord):
    KIND: ClassVar[StepKind] = StepKind.TOOL
    tool: str
    ok: bool
    message: str
    cap: str | None = None
    counted: bool = False


# ---------------------------------------------------------------------------- documents


class VersionRecord(LogRecord):
    hash: str
    author: str
    at: Moment
    thought: str = ""


class ReviewRecord(LogRecord):
    reviewer: str
    status: str
    round: Count = 0
    streak: Count = 0
    notes: str = ""
    argument: str = ""
    final: bool = False
    judged: str = ""


class WholeDocument(LogRecord):
    """A document step of an ideaco before issue 28 (item 6) logged the whole document each time."""

    department: str
    path: str
    author: str
    content: str
    versions: Annotated[list[VersionRecord], Field(min_length=1)]
    task: str | None = None
    review: ReviewRecord | None = None


class DocumentStepRecord(StepRecord):
    """What a document tool changed: the versions it added with the text now, the review after."""

    KIND: ClassVar[StepKind] = StepKind.DOCUMENT
    tool: str = ""
    department: str = ""
    path: str = ""
    author: str = ""
    task: str | None = None
    versions: list[VersionRecord] = Field(default_factory=list)  # those this step added
    content: str | None = None  # the text now: with the versions added, and only then
    review: ReviewRecord | None = None
    document: WholeDocument | None = None  # an older ideaco's record (then none of the above)

    @model_validator(mode="after")
    def _whole(self) -> DocumentStepRecord:
        if self.document is not None:
            return self
        if not (self.department and self.path and self.author):
            raise ValueError("a document step names its department, path and author")
        if bool(self.versions) != (self.content is not None):
            raise ValueError("a document step has the versions it added and their content, or neither")
        return self


# Every step kind's record, by the name its records carry in `step` (every `StepKind` has one).
STEPS: dict[StepKind, type[StepRecord]] = {
    shape.KIND: shape
    for shape in (
        MindStepRecord,
        EmployeeStepRecord,
        ConversationStepRecord,
        CompanyStepRecord,
        OweStepRecord,
        OweAgainStepRecord,
        DraftStepRecord,
        GateHoldStepRecord,
        BoardStepRecord,
        NoticeStepRecord,
        ToolStepRecord,
        DocumentStepRecord,
    )
}


def step_problem(step: Any) -> str | None:
    """Why `step` is not a step record ("(document).path: Field required"); None if it is one."""
    if not isinstance(step, dict) or not isinstance(step.get("step"), str):
        return "names no step"
    shape = STEPS.get(step["step"])
    if shape is None:
        return f"is no step kind ({step['step']!r})"
    try:
        shape.model_validate(step)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        cause = (err.get("ctx") or {}).get("error")
        said = str(cause) if isinstance(cause, ValueError) else err["msg"]
        return f"({step['step']}){'.' + where if where else ''}: {said}"
    return None


def check_steps(steps: list[Any]) -> list[Any]:
    """`steps` if each is a step record; else ValueError naming the first that is not."""
    for i, step in enumerate(steps):
        problem = step_problem(step)
        if problem is not None:
            raise ValueError(f"steps[{i}] {problem}")
    return steps
