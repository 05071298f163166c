"""What a log line must hold to be a record a reader can use (spec 1.5), checked once as it is read.

A line of messages.jsonl or thoughts.jsonl can be valid JSON and still no record: `{}`, `null`,
a number, a message with a null sender, a time that is no time. Every reader (`report`, `view`,
`interview`, `inspect`, a resume) reads through `RunLog`, which checks each line against these
models: a reader skips a line that is not a record with a one-line warning naming the file and the
line; a resume refuses it, before any model call is paid. The records themselves stay the plain
dicts the engine wrote: the models only say whether one is sound, never rebuild it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from ideaco.bounds import check_start


def _moment(value: str) -> str:
    check_start(datetime.fromisoformat(value))  # a time, and one the engine's dates can hold
    return value


Moment = Annotated[str, AfterValidator(_moment)]
Count = Annotated[int, Field(ge=0)]


class _Record(BaseModel):
    # strict: a "5" is not a number nor a 5 a string; fields a reader does not use are not checked.
    model_config = ConfigDict(extra="ignore", strict=True)


class MessageRecord(_Record):
    """A line of messages.jsonl."""

    id: str
    at: Moment
    conversation: str
    sender: str
    text: str
    mentions: list[str] = Field(default_factory=list)
    kind: str = "chat"


class Usage(_Record):
    """A thought's `llm`: what its model calls cost."""

    model: str | None = None
    prompt_tokens: Count = 0
    completion_tokens: Count = 0
    cached_tokens: Count = 0
    latency_ms: Annotated[float | int, Field(ge=0)] = 0
    calls: Count = 1


class Said(_Record):
    content: str = ""


class Act(_Record):
    tool: str = ""
    args: dict[str, Any] = Field(default_factory=dict)


class Thought(_Record):
    """A thought's `thought`: the Flow-of-Thought as validated (mind.thought), in the parts readers use."""

    innerThoughts: str = ""  # noqa: N815 - the wire names
    topicSaturation: int  # noqa: N815
    interestLevel: int  # noqa: N815
    shouldSpeak: bool = False  # noqa: N815
    reason: str = ""
    messages: list[Said] = Field(default_factory=list)
    actions: list[Act] = Field(default_factory=list)
    memorySummary: str | None = None  # noqa: N815
    memoryOps: list[dict[str, Any]] = Field(default_factory=list)  # noqa: N815
    relationshipOps: list[dict[str, Any]] = Field(default_factory=list)  # noqa: N815
    taskOps: list[dict[str, Any]] = Field(default_factory=list)  # noqa: N815


Number = float | int


class StaminaAt(_Record):
    patience: Number
    fatigue: Number
    stress: Number
    zone: str | None = None


class StaminaChange(_Record):
    events: list[str] = Field(default_factory=list)
    delta: dict[str, Number] = Field(default_factory=dict)
    after: StaminaAt


class Relation(_Record):
    employee: str
    removed: bool = False
    before: Number
    after: Number | None = None  # only a forgotten one (removed) has none
    name: str | None = None
    impression: str | None = None

    @model_validator(mode="after")
    def _landed(self) -> Relation:
        if self.after is None and not self.removed:
            raise ValueError("an affinity that changed needs its value after")
        return self


class TaskPatch(_Record):
    id: str
    owner: str | None = None
    description: str | None = None
    status: str | None = None
    result: str | None = None
    created_at: Moment | None = None
    resolved_at: Moment | None = None


class TaskChanges(_Record):
    added: list[TaskPatch] = Field(default_factory=list)
    updated: list[TaskPatch] = Field(default_factory=list)


class MemoryItem(_Record):
    id: str
    content: str | None = None


class MemoryLayer(_Record):
    added: list[MemoryItem] = Field(default_factory=list)
    updated: list[MemoryItem] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)


class MemoryChanges(_Record):
    long_term: MemoryLayer | None = None
    short_term: MemoryLayer | None = None
    summaries: dict[str, str] = Field(default_factory=dict)


class MindStep(_Record):
    employee: str
    stamina: StaminaChange = Field(default=None)  # absent, or a change: readers test `"stamina" in step`
    relationships: list[Relation] = Field(default_factory=list)
    tasks: TaskChanges | None = None
    memory: MemoryChanges | None = None
    notes: list[str] = Field(default_factory=list)


class Joined(_Record):
    id: str
    name: str | None = None
    role: str | None = None
    mind: dict[str, Any] = Field(default_factory=dict)


class EmployeeStep(_Record):
    id: str
    joined: Joined | None = None
    fields: dict[str, Any] = Field(default_factory=dict)


class Opened(_Record):
    id: str


class ConversationStep(_Record):
    id: str
    opened: Opened | None = None
    fields: dict[str, Any] = Field(default_factory=dict)


class DraftStep(_Record):
    where: str | None = None
    conversation: str | None = None
    posted: str | None = None
    gate: str | None = None
    rule: str | None = None
    detail: str | None = None
    reopens_at: Moment | None = None


class ToolStep(_Record):
    tool: str
    ok: bool
    message: str


class OweStep(_Record):
    employee: str
    conversation: str
    trigger: str | None = None
    note: str | None = None


# The steps whose insides a reader uses (report, view, inspect, interview --at); others are mappings.
STEPS: dict[str, type[_Record]] = {
    "mind": MindStep,
    "employee": EmployeeStep,
    "conversation": ConversationStep,
    "draft": DraftStep,
    "tool": ToolStep,
    "owe": OweStep,
}


def _steps(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for i, step in enumerate(steps):
        shape = STEPS.get(step.get("step")) if isinstance(step.get("step"), str) else None
        if not isinstance(step.get("step"), str):
            raise ValueError(f"steps[{i}] names no step")
        if shape is not None:
            try:
                shape.model_validate(step)
            except ValidationError as exc:
                err = exc.errors()[0]
                where = ".".join(str(p) for p in err["loc"]) or "step"
                raise ValueError(f"steps[{i}] ({step['step']}).{where}: {err['msg']}") from None
    return steps


class Began(_Record):
    stamina: StaminaAt | None = None
    notes: list[str] = Field(default_factory=list)


class Applied(_Record):
    """A thought's `applied`: when it landed, what starting it took, the steps (those a reader looks into checked)."""

    at: Moment | None = None
    began: Began = Field(default_factory=Began)
    steps: Annotated[list[dict[str, Any]], AfterValidator(_steps)] = Field(default_factory=list)


class ThoughtRecord(_Record):
    """A line of thoughts.jsonl."""

    id: str
    at: Moment
    employee: str
    conversation: str
    trigger: str | None = None
    thought: Thought | None = None
    spoke: bool = False
    gate: str | None = None
    llm: Usage | None = None
    corrections: list[str] = Field(default_factory=list)
    next_look_at: Moment | None = None
    messages: list[str] = Field(default_factory=list)
    applied: Applied | None = None
    error: str | None = None


class ChangeRecord(_Record):
    """A line of changes.jsonl: what changed between thoughts (office/resolve/between.py)."""

    at: Moment
    cause: str
    employee: str | None = None
    thought: str | None = None
    began: Began | None = None
    steps: Annotated[list[dict[str, Any]], AfterValidator(_steps)] = Field(default_factory=list)


SHAPES: dict[str, type[_Record]] = {
    "messages.jsonl": MessageRecord,
    "thoughts.jsonl": ThoughtRecord,
    "changes.jsonl": ChangeRecord,
}
WHAT = {"messages.jsonl": "a message", "thoughts.jsonl": "a thought", "changes.jsonl": "a change"}
_JSON_TYPE = {bool: "true or false", int: "number", float: "number", str: "string", list: "list"}
SAID = 160  # a problem quotes at most this much of what it found


def problem(file_name: str, record: Any) -> str | None:
    """Why `record`, a line of the log named `file_name`, is not a record; None if it is one
    (or the log has no declared shape)."""
    shape = SHAPES.get(file_name)
    if shape is None:
        return None
    if not isinstance(record, dict):
        return f"not {WHAT[file_name]} record (a JSON {_JSON_TYPE.get(type(record), 'null')})"
    try:
        shape.model_validate(record)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "record"
        cause = (err.get("ctx") or {}).get("error")
        said = str(cause) if isinstance(cause, ValueError) else err["msg"]
        said = said if len(said) <= SAID else said[: SAID - 1] + "…"
        return f"not {WHAT[file_name]} record ({where}: {said})"
    return None
