"""The steps of a resolved think, as values: what the office applies, logs under `applied`, and re-applies on resume.

A think (`decide/decision.decide`) returns its steps in the order they take effect; `Office.resolve`
applies them one by one and writes each, as it landed, into the thought's record. A resume reads
the records back (`from_record`) and resolves them again, so what a thought did is implemented
once. Steps that need the run's random generator (how soon an owed think wakes, a new hire's age)
carry None until the office draws it; the record holds the value drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, ClassVar, get_args

from ideaco.cycle import Gate, LoopRule, Owed, TextRule, Trigger
from ideaco.kinds import StepKind
from ideaco.mind.board import Offer
from ideaco.mind.changes import MindChanges
from ideaco.office.core.conversation import Message
from ideaco.office.core.documents import Document, Review, Version, check_path, with_versions
from ideaco.office.core.refusal import Refusal
from ideaco.store import step_records
from ideaco.store.step_records import StepRecord, step_problem

_TIMES = ("closed_until", "last_boss_at", "reset_at", "reopens_at", "wake_at", "escalated_at")


def _out(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, tuple):
        return list(value)
    return value


def _in(name: str, value: Any) -> Any:
    if name in _TIMES and isinstance(value, str):
        return datetime.fromisoformat(value)
    if name == "blocked_pair" and isinstance(value, list):
        return tuple(value)
    return value


def _rule(value: str | None) -> LoopRule | TextRule | None:
    if not value:
        return None
    return LoopRule(value) if value in LoopRule._value2member_map_ else TextRule(value)


def _fields_out(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: _out(v) for k, v in fields.items()}


def _fields_in(fields: dict[str, Any]) -> dict[str, Any]:
    return {k: _in(k, v) for k, v in fields.items()}


@dataclass(frozen=True)
class MindStep:
    """An employee's mind changed (memory, relationships, tasks, stamina, mood); `read` moved its cursor."""

    RECORD: ClassVar[type[StepRecord]] = step_records.MindStepRecord  # its logged form

    employee: str
    changes: MindChanges
    read: tuple[str, int] | None = None  # (conversation, messages read up to)

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.RECORD.KIND.value, "employee": self.employee}
        if self.read is not None:
            out["read"] = {"conversation": self.read[0], "upto": self.read[1]}
        return out | self.changes.to_record()

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> MindStep:
        read = d.get("read")
        return cls(
            d["employee"], MindChanges.from_record(d), (read["conversation"], read["upto"]) if read else None
        )


@dataclass(frozen=True)
class EmployeeStep:
    """Someone joined (`joined`: the whole employee) or changed (`fields`: role, department, dismissed)."""

    RECORD: ClassVar[type[StepRecord]] = step_records.EmployeeStepRecord  # its logged form

    id: str
    joined: dict[str, Any] | None = None
    fields: dict[str, Any] = field(default_factory=dict)

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.RECORD.KIND.value, "id": self.id}
        if self.joined is not None:
            out["joined"] = self.joined
        return out | ({"fields": _fields_out(self.fields)} if self.fields else {})

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> EmployeeStep:
        return cls(d["id"], d.get("joined"), _fields_in(d.get("fields") or {}))


@dataclass(frozen=True)
class ConversationStep:
    """A conversation opened (`opened`) or changed (`fields`: members, a ring's closure, a reset)."""

    RECORD: ClassVar[type[StepRecord]] = step_records.ConversationStepRecord  # its logged form

    id: str
    opened: dict[str, Any] | None = None
    fields: dict[str, Any] = field(default_factory=dict)

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.RECORD.KIND.value, "id": self.id}
        if self.opened is not None:
            out["opened"] = self.opened
        return out | ({"fields": _fields_out(self.fields)} if self.fields else {})

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> ConversationStep:
        return cls(d["id"], d.get("opened"), _fields_in(d.get("fields") or {}))


@dataclass(frozen=True)
class CompanyStep:
    """The company's departments and requirements changed: the whole company as it is now."""

    RECORD: ClassVar[type[StepRecord]] = step_records.CompanyStepRecord  # its logged form

    company: dict[str, Any]

    def to_record(self) -> dict[str, Any]:
        return {"step": self.RECORD.KIND.value, "company": self.company}

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> CompanyStep:
        return cls(d["company"])


@dataclass(frozen=True)
class OweStep:
    """A think the engine owes `employee`, soon (1-5 s): `wake_at` is drawn when it is applied."""

    RECORD: ClassVar[type[StepRecord]] = step_records.OweStepRecord  # its logged form

    employee: str
    owed: Owed
    wake_at: datetime | None = None

    def to_record(self) -> dict[str, Any]:
        return {
            "step": self.RECORD.KIND.value,
            "employee": self.employee,
            **self.owed.to_dict(),
            "wake_at": _out(self.wake_at),
        }

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> OweStep:
        return cls(d["employee"], Owed.from_dict(d), _in("wake_at", d.get("wake_at")))


@dataclass(frozen=True)
class OweAgainStep:
    """A think that did not happen (the model failed) stays owed: its trigger, and its note if any."""

    RECORD: ClassVar[type[StepRecord]] = step_records.OweAgainStepRecord  # its logged form

    employee: str
    trigger: Trigger
    owed: Owed | None = None

    def to_record(self) -> dict[str, Any]:
        out = {"step": self.RECORD.KIND.value, "employee": self.employee, "trigger": self.trigger.value}
        return out | ({"owed": self.owed.to_dict()} if self.owed else {})

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> OweAgainStep:
        owed = d.get("owed")
        return cls(d["employee"], Trigger(d["trigger"]), Owed.from_dict(owed) if owed else None)


@dataclass(frozen=True)
class DraftStep:
    """One draft's verdict: posted (`message`), or held by a gate (and the loop-breaker rule)."""

    RECORD: ClassVar[type[StepRecord]] = step_records.DraftStepRecord  # its logged form

    where: str  # messages[0], actions[1]
    conversation: str
    message: Message | None = None  # posted
    message_id: str | None = None  # the posted message's id (also when read back from a record)
    gate: Gate | None = None
    rule: LoopRule | TextRule | None = None
    detail: str = ""
    reopens_at: datetime | None = None
    kind: str = ""  # a text rule's kind: guarantee or hygiene (office/rules/text/)

    @property
    def posted(self) -> bool:
        return self.message_id is not None

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "step": self.RECORD.KIND.value,
            "where": self.where,
            "conversation": self.conversation,
        }
        if self.posted:  # a rule here limited whom the post woke (pair streak, unanswered ceiling)
            return out | {"posted": self.message_id} | ({"rule": self.rule.value} if self.rule else {})
        out["gate"] = self.gate.value if self.gate else None
        if self.rule is not None:
            out["rule"] = self.rule.value
        if self.kind:
            out["kind"] = self.kind
        if self.detail:
            out["detail"] = self.detail
        if self.reopens_at is not None:
            out["reopens_at"] = self.reopens_at.isoformat()
        return out

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> DraftStep:
        return cls(
            d["where"],
            d["conversation"],
            message_id=d.get("posted"),
            gate=Gate(d["gate"]) if d.get("gate") else None,
            rule=_rule(d.get("rule")),
            detail=d.get("detail") or "",
            reopens_at=_in("reopens_at", d.get("reopens_at")),
            kind=d.get("kind") or "",
        )


@dataclass(frozen=True)
class GateHoldStep:
    """A mentioned employee held back by a gate: re-woken when it opens, its reply owed (spec 2.2)."""

    RECORD: ClassVar[type[StepRecord]] = step_records.GateHoldStepRecord  # its logged form

    employee: str
    conversation: str
    reopens_at: datetime
    owed: Owed

    def to_record(self) -> dict[str, Any]:
        return {
            "step": self.RECORD.KIND.value,
            "employee": self.employee,
            "conversation": self.conversation,
            "reopens_at": self.reopens_at.isoformat(),
            "owed": self.owed.to_dict(),
        }

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> GateHoldStep:
        return cls(
            d["employee"],
            d["conversation"],
            datetime.fromisoformat(d["reopens_at"]),
            Owed.from_dict(d["owed"]),
        )


@dataclass(frozen=True)
class BoardStep:
    """The task board changed: work put on it (`added`), and ids taken off it (claimed)."""

    RECORD: ClassVar[type[StepRecord]] = step_records.BoardStepRecord  # its logged form

    added: tuple[Offer, ...] = ()
    removed: tuple[str, ...] = ()

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {"step": self.RECORD.KIND.value}
        if self.added:
            out["added"] = [o.to_dict() for o in self.added]
        return out | ({"removed": list(self.removed)} if self.removed else {})

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> BoardStep:
        return cls(tuple(Offer.from_dict(o) for o in d.get("added") or ()), tuple(d.get("removed") or ()))


@dataclass(frozen=True)
class NoticeStep:
    """A line the engine posts for a think (sender `system`): a room told of work put on the board."""

    RECORD: ClassVar[type[StepRecord]] = step_records.NoticeStepRecord  # its logged form

    conversation: str
    message_id: str
    message: Message | None = None  # None when read back from a record (the log has the message)

    def to_record(self) -> dict[str, Any]:
        return {"step": self.RECORD.KIND.value, "conversation": self.conversation, "posted": self.message_id}

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> NoticeStep:
        return cls(d["conversation"], d["posted"])


@dataclass(frozen=True)
class ToolStep:
    """One organization tool call of the secretary: done or refused, and what it said (its changes follow)."""

    RECORD: ClassVar[type[StepRecord]] = step_records.ToolStepRecord  # its logged form

    tool: str
    ok: bool
    message: str
    cap: str | None = None  # refused by a cap of office/rules/toolcaps.py: which one
    counted: bool = False  # a costly call made: it counts against the per-hour cap

    def to_record(self) -> dict[str, Any]:
        out = {"step": self.RECORD.KIND.value, "tool": str(self.tool), "ok": self.ok, "message": self.message}
        return out | ({"cap": self.cap} if self.cap else {}) | ({"counted": True} if self.counted else {})

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> ToolStep:
        return cls(d["tool"], bool(d["ok"]), d["message"], d.get("cap"), bool(d.get("counted")))


@dataclass(frozen=True)
class DocumentStep:
    """What a document tool did (`office/rules/documents.py`): the versions it added with the text
    they made, and the review as it stands. `on(before)` is the document after it: the office, a
    resume and every reader (`ideaco/reviews.history`) rebuild a document from its steps in order,
    so the log grows with the versions, not with their square (issue 28, item 6)."""

    RECORD: ClassVar[type[StepRecord]] = step_records.DocumentStepRecord  # its logged form

    department: str
    path: str
    author: str
    tool: str = ""  # what did it: write_document, revise_document, request_review, review, rebut
    added: tuple[Version, ...] = ()
    content: str | None = None  # the text now, when versions were added (and only then)
    review: Review | None = None
    task: str | None = None
    whole: bool = False  # read from an older ideaco's record: the whole document, every version

    @property
    def key(self) -> str:
        return f"{self.department}/{self.path}"

    @classmethod
    def between(cls, before: Document | None, after: Document, tool: str) -> DocumentStep:
        """The step that turned `before` (None: no such document yet) into `after`."""
        new = after.count - (before.count if before else 0)
        added = after.versions[-new:] if new > 0 else ()
        content = after.content if added else None
        return cls(after.department, after.path, after.author, tool, added, content, after.review, after.task)

    def on(self, before: Document | None) -> Document:
        """The document after this step, from the document before it (None: not written yet)."""
        if before is None or self.whole:
            if self.content is None:
                raise ValueError(f"document {self.key} was never written: no version to start from")
            new = Document(self.department, self.path, self.author, "", (), self.task, self.review)
            return with_versions(new, self.added, self.content)
        after = with_versions(before, self.added, self.content) if self.content is not None else before
        return replace(after, review=self.review)

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "step": self.RECORD.KIND.value,
            "tool": str(self.tool),
            "department": self.department,
        }
        out |= {"path": self.path, "author": self.author, "task": self.task}
        if self.added:
            out |= {"versions": [v.to_dict() for v in self.added], "content": self.content}
        return out | {"review": self.review.to_dict() if self.review else None}

    @classmethod
    def from_record(cls, d: dict[str, Any]) -> DocumentStep:
        whole = d.get("document")  # an older ideaco logged the whole document every time
        part = whole if whole is not None else d
        _workspace_path(part["department"], part["path"])
        review = part.get("review")
        return cls(
            part["department"],
            part["path"],
            part["author"],
            d.get("tool") or "",
            tuple(Version.from_dict(v) for v in part.get("versions") or ()),
            part.get("content"),
            Review.from_dict(review) if review else None,
            part.get("task"),
            whole is not None,
        )


def _workspace_path(department: str, path: str) -> None:
    """ValueError unless `department/path` is where the workspace keeps a document."""
    for part, what in ((department, "department"), (path, "path")):
        checked = check_path(part)
        if isinstance(checked, Refusal) or checked != part or (what == "department" and "/" in part):
            reason = checked.reason if isinstance(checked, Refusal) else "not one folder's name"
            raise ValueError(f"document {what} {part!r} is no workspace path ({reason})")


Step = (
    MindStep
    | EmployeeStep
    | ConversationStep
    | CompanyStep
    | OweStep
    | OweAgainStep
    | DraftStep
    | GateHoldStep
    | BoardStep
    | NoticeStep
    | ToolStep
    | DocumentStep
)

# Each step kind's class, by the name its records carry in `step` (every `StepKind` has one).
_KINDS: dict[StepKind, Any] = {cls.RECORD.KIND: cls for cls in get_args(Step)}


def step_from_record(d: dict[str, Any]) -> Step:
    """A step read back from a record's steps; ValueError unless it fits its shape (`store/step_records.py`)."""
    problem = step_problem(d)
    if problem is not None:
        raise ValueError(f"step {problem}")
    return _KINDS[d["step"]].from_record(d)


def landed(step: Step, **drawn: Any) -> Step:
    """The step with the values the office drew while applying it (a wake time, an age)."""
    return replace(step, **drawn) if drawn else step
