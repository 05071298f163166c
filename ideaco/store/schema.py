"""What a log line must hold to be a record a reader can use (spec 1.5), checked once as it is read.

A line of messages.jsonl or thoughts.jsonl can be valid JSON and still no record: `{}`, `null`,
a number, a message with a null sender, a time that is no time. Every reader (`report`, `view`,
`interview`, `inspect`, a resume) reads through `RunLog`, which checks each line against these
models: a reader skips a line that is not a record with a one-line warning naming the file and the
line; a resume refuses it, before any model call is paid. The steps a thought or a change applied
are checked against their kinds' records (`step_records.py`). The records themselves stay the plain
dicts the engine wrote: the models only say whether one is sound, never rebuild it.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import AfterValidator, Field, ValidationError

from ideaco.kinds import MessageKind
from ideaco.store.rundir import CHANGES, MESSAGES, THOUGHTS
from ideaco.store.step_records import Count, LogRecord, Moment, StaminaAt, check_steps


class MessageRecord(LogRecord):
    """A line of messages.jsonl."""

    id: str
    at: Moment
    conversation: str
    sender: str
    text: str
    mentions: list[str] = Field(default_factory=list)
    kind: str = MessageKind.CHAT


class UsageRecord(LogRecord):
    """A thought's `llm`: what its model calls cost."""

    model: str | None = None
    prompt_tokens: Count = 0
    completion_tokens: Count = 0
    cached_tokens: Count = 0
    latency_ms: Annotated[float | int, Field(ge=0)] = 0
    calls: Count = 1


class Said(LogRecord):
    content: str = ""


class Act(LogRecord):
    tool: str = ""
    args: dict[str, Any] = Field(default_factory=dict)


class FlowRecord(LogRecord):
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


class Began(LogRecord):
    stamina: StaminaAt | None = None
    notes: list[str] = Field(default_factory=list)


class Applied(LogRecord):
    """A thought's `applied`: when it landed, what starting it took, its steps (`step_records`)."""

    at: Moment | None = None
    began: Began = Field(default_factory=Began)
    steps: Annotated[list[Any], AfterValidator(check_steps)] = Field(default_factory=list)


class ThoughtRecord(LogRecord):
    """A line of thoughts.jsonl."""

    id: str
    at: Moment
    employee: str
    conversation: str
    trigger: str | None = None
    thought: FlowRecord | None = None
    spoke: bool = False
    gate: str | None = None
    llm: UsageRecord | None = None
    corrections: list[str] = Field(default_factory=list)
    next_look_at: Moment | None = None
    messages: list[str] = Field(default_factory=list)
    applied: Applied | None = None
    error: str | None = None


class ChangeRecord(LogRecord):
    """A line of changes.jsonl: what changed between thoughts (office/resolve/change_log.py)."""

    at: Moment
    cause: str
    employee: str | None = None
    thought: str | None = None
    began: Began | None = None
    steps: Annotated[list[Any], AfterValidator(check_steps)] = Field(default_factory=list)


SHAPES: dict[str, type[LogRecord]] = {MESSAGES: MessageRecord, THOUGHTS: ThoughtRecord, CHANGES: ChangeRecord}
WHAT = {MESSAGES: "a message", THOUGHTS: "a thought", CHANGES: "a change"}
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
