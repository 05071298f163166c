"""THE Flow-of-Thought (spec 1.4): one pydantic model, with every bound on its fields.

Each bounded field carries a `Bound`: what the engine keeps (`keep`) and what the wire schema
asks a model for (`ask`, and `compact` for small local models). The wire schemas (`wire.py`),
the lenient validation (`lenient.py`) and the limit tables (`LIMITS`, `WIRE_LIMITS`,
`COMPACT_WIRE_LIMITS`) are all read off these declarations; nothing restates a number.
The secretary's tool arguments are declared here too (`TOOL_ARGS`): their wire form and their
validation come from the same models.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, get_args

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field

from ideaco.bounds import check_name, check_person_name, one_paragraph
from ideaco.kinds import ConversationKind, RoomKind, ToolName, Verdict


@dataclass(frozen=True)
class Bound:
    """A string's length or a list's items: kept by the engine, asked of the model on the wire.

    `name` is the entry in the limit tables; `ask=None` keeps the field off the wire schema;
    `compact=None` asks as much in the compact schema as in the full one.
    """

    name: str
    keep: int
    ask: int | None = None
    compact: int | None = None

    def asked(self, compact: bool) -> int | None:
        if self.ask is None:
            return None
        return self.compact if compact and self.compact is not None else self.ask


@dataclass(frozen=True)
class Range:
    """An integer's range: clamped by the engine, and the wire schema's minimum and maximum."""

    low: int
    high: int
    default: int | None = None  # used for an unusable number; None: the number is required


@dataclass(frozen=True)
class Choice:
    """A field whose wire form is an enum of real ids (people, tasks, memories, targets).

    `blank`: "" is one of the choices (an op that needs no id). The enum is used when the
    context lists any ids, or, with `when_listed`, whenever the context gives the list at all.
    """

    source: str
    blank: bool = False
    when_listed: bool = False


@dataclass(frozen=True)
class OffWire:
    """Kept when a model sends it, never asked for on the wire."""


OFF_WIRE = OffWire()


@dataclass(frozen=True)
class WireOnly:
    """Asked for on one wire only: the compact one (small local models) or the full one."""

    compact: bool


def _text(name: str, keep: int, ask: int | None = None, compact: int | None = None) -> Any:
    return Bound(name, keep, ask, compact)


# The numbers, once. keep: what the engine stores; ask/compact: what the wire schema requests
# (smaller, so a grammar-constrained model always finishes within max_tokens).
INNER = _text("innerThoughts", 2000, 200, 120)
REASON = _text("reason", 500, 80, 60)
CONTENT = _text("content", 2000, 240, 160)
SUMMARY = _text("memorySummary", 2000, 200, 120)
IMPRESSION = _text("impression", 200, 80, 60)
DESCRIPTION = _text("description", 500, 100, 80)
RESULT = _text("result", 1000, 120, 80)
HINT = _text("hint", 300, 80, 60)
CONDITION = _text("condition", 300, 80)
CLAIM_KEY = _text("claimKey", 80, 40)
ID = _text("id", 80, 24)
TOOL = _text("tool", 40, 16)
TO = _text("to", 80, 40)
NAME = _text("name", 80)
PATH = _text("path", 120, 60)
DOCUMENT = _text(
    "document", 64_000, 1200, 600
)  # what a model may send; office/rules/documents.py bounds what is kept

MemoryCategory = Literal[
    "preference", "fact", "instruction", "task", "context", "relationship", "experience", "decision"
]
TaskType = Literal["oneshot", "long-running", "conditional"]
Feeling = Literal["same", "warmer", "cooler"]
MEMORY_CATEGORIES: tuple[str, ...] = get_args(MemoryCategory)
TASK_TYPES: tuple[str, ...] = get_args(TaskType)


class _Part(BaseModel):
    # Fields the wire asks for but a part lacks are filled in by the model's defaults; the
    # wire's `required` lists every field unless `wire_required` says otherwise.
    wire_required: ClassVar[tuple[str, ...] | None] = None


class OutMessage(_Part):
    content: Annotated[str, CONTENT]


class SendMessageArgs(_Part):
    """send_message: DM a colleague, write to the boss, or post in another room."""

    to: Annotated[str, TO, Choice("targets")]
    content: Annotated[str, CONTENT]


class Action(_Part):
    tool: Annotated[str, TOOL]
    args: dict[str, Any] = Field(default_factory=dict)
    # An action's args, bounded like every other field: keys, list items, argument names.
    ARG_KEYS: ClassVar[int] = 10
    ARG_ITEMS: ClassVar[int] = 20


class MemoryOp(_Part):
    op: Literal["add", "update", "delete"]
    id: Annotated[str | None, ID, Choice("memory_ids", blank=True, when_listed=True)] = None
    type: Literal["long_term", "short_term"] = "short_term"
    content: Annotated[str | None, CONTENT] = None
    category: MemoryCategory = "context"
    importance: Annotated[int, Range(1, 10, default=5)] = 5
    ttl: Annotated[int | None, OFF_WIRE] = None


class RelationshipOp(_Part):
    employeeId: Annotated[str, ID, Choice("people")]  # noqa: N815 - the wire name
    name: Annotated[str, NAME, OFF_WIRE] = ""
    impression: Annotated[str, IMPRESSION] = ""
    # The full wire asks for the new affinity. A small model's numbers are noise (SmolLM2 wrote
    # 1-45 for three colleagues in four, whatever it had read), so the compact wire asks only which
    # way the feeling went, "same" first, and the engine moves the affinity one step
    # (RelationshipConfig.feeling_step).
    affinity: Annotated[int, Range(1, 100, default=50), WireOnly(compact=False)] = 50
    feeling: Annotated[Feeling | None, WireOnly(compact=True)] = None


class TaskOp(_Part):
    wire_required: ClassVar[tuple[str, ...] | None] = ("op",)

    op: Literal["create", "resolve", "fail", "release", "offer"]
    taskId: Annotated[str | None, ID, Choice("task_ids", blank=True)] = None  # noqa: N815
    description: Annotated[str | None, DESCRIPTION] = None
    type: TaskType = "oneshot"
    condition: Annotated[str | None, CONDITION, OFF_WIRE] = None
    onResolveTarget: Annotated[str | None, _text("id", 80, 24), Choice("targets", blank=True)] = None  # noqa: N815
    onResolveHint: Annotated[str | None, HINT] = None  # noqa: N815
    claimKey: Annotated[str | None, CLAIM_KEY] = None  # noqa: N815
    document: Annotated[str | None, PATH, WireOnly(compact=False)] = None  # an offer's expected document
    result: Annotated[str | None, RESULT] = None
    reason: Annotated[str | None, RESULT, OFF_WIRE] = None


class Thought(_Part):
    """A validated Flow-of-Thought."""

    model_config = ConfigDict(extra="ignore")

    innerThoughts: Annotated[str, INNER]  # noqa: N815
    topicSaturation: Annotated[int, Range(1, 10)]  # noqa: N815
    interestLevel: Annotated[int, Range(1, 10)]  # noqa: N815
    shouldSpeak: bool  # noqa: N815
    reason: Annotated[str, REASON] = ""
    messages: Annotated[list[OutMessage], Bound("messages", 3, 1)] = Field(default_factory=list)
    actions: Annotated[list[Action], Bound("actions", 3, 1)] = Field(default_factory=list)
    memorySummary: Annotated[str | None, SUMMARY] = None  # noqa: N815
    memoryOps: Annotated[list[MemoryOp], Bound("memoryOps", 5, 1)] = Field(default_factory=list)  # noqa: N815
    relationshipOps: Annotated[list[RelationshipOp], Bound("relationshipOps", 5, 1)] = Field(  # noqa: N815
        default_factory=list
    )
    taskOps: Annotated[list[TaskOp], Bound("taskOps", 5, 1)] = Field(default_factory=list)  # noqa: N815

    def to_record(self) -> dict[str, Any]:
        out = self.model_dump(mode="json", exclude_none=False)
        for op in out["taskOps"]:  # written only when set (issue 20): records without it read as before
            if op.get("document") is None:
                op.pop("document", None)
        return out


REQUIRED = tuple(name for name, info in Thought.model_fields.items() if info.is_required())


# --------------------------------------------------------------------------- the secretary's tools


class ToolArgs(BaseModel):
    """Arguments of one organization tool: validated whole before the tool changes anything."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)


# What a tool names is shown in transcripts and prompts: the scenario's checks (ideaco.bounds).
_Label = AfterValidator(check_name)
_Prose = BeforeValidator(one_paragraph)


class CreateDepartment(ToolArgs):
    id: Annotated[str, ID] = ""
    name: Annotated[str, Field(min_length=1, max_length=60), ID, _Label]
    mission: Annotated[str, Field(max_length=300), DESCRIPTION, _Prose] = ""


class HireEmployee(ToolArgs):
    name: Annotated[str, Field(min_length=1, max_length=40), ID, AfterValidator(check_person_name)]
    role: Annotated[str, Field(min_length=1, max_length=80), DESCRIPTION, _Label]
    archetype: Annotated[str, ID]
    department: Annotated[str, ID]
    age: Annotated[int | None, Field(ge=18, le=80), Range(18, 80)] = None


class CreateRoom(ToolArgs):
    id: Annotated[str, ID] = ""
    name: Annotated[str, Field(min_length=1, max_length=60), ID, _Label]
    kind: RoomKind = ConversationKind.WORK.value
    members: Annotated[list[Annotated[str, ID]], Field(min_length=1), Bound("members", 20, 8)]


class CreateTeam(ToolArgs):
    id: Annotated[str, ID] = ""
    name: Annotated[str, Field(min_length=1, max_length=60), ID, _Label]
    department: Annotated[str, ID]
    members: Annotated[list[Annotated[str, ID]], Field(min_length=1), Bound("members", 20, 8)]


class AssignRequirement(ToolArgs):
    to: Annotated[str, Field(min_length=1), TO]
    description: Annotated[str, Field(min_length=1, max_length=500), DESCRIPTION, _Prose]


class DismissEmployee(ToolArgs):
    id: Annotated[str, Field(min_length=1), ID]


class Summarize(ToolArgs):
    conversation: Annotated[str, ID] = ""


TOOL_ARGS: dict[ToolName, type[ToolArgs]] = {
    ToolName.CREATE_DEPARTMENT: CreateDepartment,
    ToolName.HIRE_EMPLOYEE: HireEmployee,
    ToolName.CREATE_ROOM: CreateRoom,
    ToolName.CREATE_TEAM: CreateTeam,
    ToolName.ASSIGN_REQUIREMENT: AssignRequirement,
    ToolName.DISMISS_EMPLOYEE: DismissEmployee,
    ToolName.SUMMARIZE: Summarize,
}


# --------------------------------------------------------------------------- the document tools


class DocumentArgs(_Part):
    """The arguments of every document tool (issue 20), as the wire asks for them: the union."""

    wire_required: ClassVar[tuple[str, ...] | None] = ("path",)

    path: Annotated[str, PATH]
    content: Annotated[str, DOCUMENT] = ""
    base: Annotated[str, ID] = ""
    task: Annotated[str, ID] = ""
    verdict: Literal[("", *(v.value for v in Verdict))] = ""  # type: ignore[valid-type]
    requirement: Annotated[str, ID] = ""  # sign_off: the requirement's work room
    notes: Annotated[str, RESULT] = ""
    argument: Annotated[str, RESULT] = ""
