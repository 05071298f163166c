"""The office's state: employees (who they are, their mind, their desk) and conversations.

Plain dataclasses with `to_dict`/`from_dict` so the whole office round-trips through state.json.
An employee is its identity, its `Mind` (what a thought changes: `ideaco.mind`) and its `Desk`
(where it is in its cycle: what it has read, when it looks next, what thinks it is owed).
Messages themselves live in messages.jsonl; a conversation keeps a bounded window of recent ones.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from ideaco.cycle import Owed, Phase, Trigger
from ideaco.ids import MESSAGE, THOUGHT, serial_id
from ideaco.kinds import ConversationKind
from ideaco.mind.board import Offer
from ideaco.mind.mind import Mind
from ideaco.mind.stamina import Stamina
from ideaco.office.core.company import Company
from ideaco.office.core.conversation import Message
from ideaco.office.core.documents import Document

RECENT_WINDOW = 60  # messages kept in memory per conversation
# What the office keeps in state.json (`office.format_version`; the file's own layout is store/state.LAYOUT_VERSION):
# 2, employees as identity + mind + desk, thoughts.jsonl records carrying `applied` (store/runlog.APPLIED_FROM).
OFFICE_FORMAT = 2


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


@dataclass(frozen=True)
class Hold:
    """The boss stopped this employee (issue 13): no thinks until released; `reason` as the boss gave it."""

    since: datetime
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"since": self.since.isoformat(), "reason": self.reason}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Hold:
        return cls(datetime.fromisoformat(d["since"]), str(d.get("reason") or ""))


@dataclass(slots=True)
class Desk:
    """Where an employee is in its wake -> read -> think -> speak cycle."""

    cursors: dict[str, int] = field(default_factory=dict)  # conversation -> messages read
    wake_at: datetime | None = None
    wake_triggers: list[str] = field(default_factory=list)
    phase: Phase = Phase.IDLE
    deferred_triggers: list[str] = field(default_factory=list)  # wakes that came while busy
    owed: list[Owed] = field(default_factory=list)  # thinks the engine owes, oldest first
    held_until: dict[str, datetime] = field(default_factory=dict)  # conversation -> gate reopens
    inflight: Owed | None = None  # the owed think being typed or thought now (kept across a kill)
    task_alerts: dict[str, str] = field(default_factory=dict)  # task id -> urgency it woke me for
    hold: Hold | None = None  # stopped by the boss: no thinks until released
    tool_log: list[tuple[str, datetime]] = field(
        default_factory=list
    )  # the secretary's costly calls, last hour

    def take_look(self, alert: tuple[str, str] | None, owed: Owed | None, deferred: Iterable[str]) -> None:
        """A look found what to think about (perceive's `LookPlan`): the task alert it is for noted
        (task id, urgency), the owed think it takes in flight (an idle room's is owed to no one),
        the wake's other causes kept for the look after it; typing."""
        if alert is not None:
            self.task_alerts[alert[0]] = alert[1]
        self.inflight = owed if owed is not None and owed.trigger != Trigger.IDLE else None
        if owed is not None:
            self.owed = [o for o in self.owed if o is not owed]
            self.deferred_triggers.extend(t for t in deferred if t not in self.deferred_triggers)
        self.phase = Phase.TYPING

    def restore_cut_think(self) -> None:
        """A think cut short (a kill, a budget stop) before it finished: its owed think is owed again, soon."""
        if self.phase != Phase.IDLE:
            self.phase = Phase.IDLE
            cut = self.inflight
            if cut is not None and not any(
                o.conversation == cut.conversation and o.note == cut.note for o in self.owed
            ):
                self.owed.insert(0, cut)  # an owed think (a report, an onboarding) is still owed
                self.wake_triggers = [*self.wake_triggers, cut.trigger]
            self.wake_triggers = self.wake_triggers or [Trigger.TIMER]
        self.inflight = None

    def held_while_typing(self) -> bool:
        """Whether a think about to begin is for an employee held meanwhile: then it waits for the
        release (an owed think it answered is owed again)."""
        if self.hold is None:
            return False
        self.restore_cut_think()
        self.wake_at, self.wake_triggers = None, []
        return True

    def copy(self) -> Desk:
        return replace(
            self,
            cursors=dict(self.cursors),
            wake_triggers=list(self.wake_triggers),
            deferred_triggers=list(self.deferred_triggers),
            owed=list(self.owed),
            held_until=dict(self.held_until),
            task_alerts=dict(self.task_alerts),
            tool_log=list(self.tool_log),
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "cursors": self.cursors,
            "wake_at": _iso(self.wake_at),
            "wake_triggers": self.wake_triggers,
            "phase": self.phase.value,
            "deferred_triggers": self.deferred_triggers,
            "owed": [o.to_dict() for o in self.owed],
            "held_until": {k: v.isoformat() for k, v in self.held_until.items()},
            "inflight": self.inflight.to_dict() if self.inflight else None,
            "task_alerts": self.task_alerts,
            "hold": self.hold.to_dict() if self.hold else None,
        } | ({"tool_log": [[tool, at.isoformat()] for tool, at in self.tool_log]} if self.tool_log else {})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Desk:
        return cls(
            cursors=dict(d.get("cursors") or {}),
            wake_at=_dt(d.get("wake_at")),
            wake_triggers=list(d.get("wake_triggers") or []),
            phase=Phase(d.get("phase") or "idle"),
            deferred_triggers=list(d.get("deferred_triggers") or []),
            owed=[Owed.from_dict(o) for o in d.get("owed") or []],
            held_until={k: datetime.fromisoformat(v) for k, v in (d.get("held_until") or {}).items()},
            inflight=Owed.from_dict(d["inflight"]) if d.get("inflight") else None,
            task_alerts=dict(d.get("task_alerts") or {}),
            hold=Hold.from_dict(d["hold"]) if d.get("hold") else None,
            tool_log=[(str(tool), datetime.fromisoformat(at)) for tool, at in d.get("tool_log") or ()],
        )


IDENTITY = ("name", "role", "age", "department", "model", "persona", "dismissed")


@dataclass(frozen=True)
class Begin:
    """What beginning a think takes (issue 38, item 2), as one value: its stamina after the idle
    time's recovery, the notes it reads (then gone), and the task alerts its prompt shows (the
    board's open work among them, not owed again). The live run, the what-if of early calls and the
    replay of a logged think all apply it with `Employee.begin`; a thought's record keeps it as
    `applied.began` (`from_record` reads it back)."""

    stamina: Stamina | None
    notes_read: bool
    task_alerts: Mapping[str, str]

    @classmethod
    def from_record(cls, began: Mapping[str, Any]) -> Begin:
        """A logged think's `began` (older records may lack stamina or alerts)."""
        held = began.get("stamina")
        return cls(
            Stamina.from_dict(held) if held else None,
            bool(began.get("notes")),
            began.get("task_alerts") or {},
        )


@dataclass(slots=True)
class Employee:
    """One employee: who it is, its mind and its desk."""

    id: str
    name: str
    role: str
    age: int | None
    department: str | None
    model: str | None
    persona: dict[str, Any]
    dismissed: bool = False  # left the company (memory kept for a rehire)
    mind: Mind = field(default_factory=Mind)
    desk: Desk = field(default_factory=Desk)

    def copy(self) -> Employee:
        """A scratch copy: the mind and desk copied (their items are shared, never mutated)."""
        return replace(self, mind=self.mind.copy(), desk=self.desk.copy())

    def begin(self, began: Begin) -> None:
        """A think begins: the desk is thinking, the mind takes the think's stamina and has read its notes."""
        self.desk.phase = Phase.THINKING
        if began.stamina is not None:
            self.mind.stamina = began.stamina
        if began.notes_read:
            self.mind.notes = []
        self.desk.task_alerts.update(began.task_alerts)

    def identity(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in IDENTITY}

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, **self.identity(), "mind": self.mind.to_dict(), "desk": self.desk.to_dict()}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Employee:
        return cls(
            id=d["id"],
            name=d["name"],
            role=d["role"],
            age=d.get("age"),
            department=d.get("department"),
            model=d.get("model"),
            persona=d.get("persona") or {},
            dismissed=bool(d.get("dismissed", False)),
            mind=Mind.from_dict(d.get("mind") or {}),
            desk=Desk.from_dict(d.get("desk") or {}),
        )


CONVERSATION_FIELDS = (
    "name",
    "members",
    "mission",
    "department",
    "escalated_at",
    "closed_until",
    "last_boss_at",
    "reset_at",
    "blocked_pair",
)


@dataclass
class ConversationState:
    """A conversation: members, a bounded window of recent messages, loop-breaker state."""

    id: str
    kind: ConversationKind
    name: str
    members: list[str]
    mission: str | None = None
    department: str | None = None  # whose room it is: its lead hears of unanswered threads
    count: int = 0  # messages ever posted here
    recent: deque[Message] = field(default_factory=lambda: deque(maxlen=RECENT_WINDOW))
    closed_until: datetime | None = None  # ring breaker
    last_boss_at: datetime | None = None
    reset_at: datetime | None = None  # last task op: resets the pair streak and the ceiling
    blocked_pair: tuple[str, str] | None = None  # pair streak: these two stop waking each other
    escalated_at: datetime | None = None  # the unanswered ceiling owed someone an escalation then

    def add(self, message: Message) -> None:
        self.recent.append(message)
        self.count += 1

    def since(self, count: int) -> list[Message]:
        """Messages posted after the first `count` (only those still in the window)."""
        missing = self.count - count
        if missing <= 0:
            return []
        return list(self.recent)[-missing:]

    @property
    def last_message_at(self) -> datetime | None:
        return self.recent[-1].at if self.recent else None

    def copy(self) -> ConversationState:
        return replace(self, members=list(self.members), recent=deque(self.recent, maxlen=RECENT_WINDOW))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind.value,
            "name": self.name,
            "members": self.members,
            "mission": self.mission,
            "department": self.department,
            "count": self.count,
            "closed_until": _iso(self.closed_until),
            "last_boss_at": _iso(self.last_boss_at),
            "reset_at": _iso(self.reset_at),
            "blocked_pair": list(self.blocked_pair) if self.blocked_pair else None,
            "escalated_at": _iso(self.escalated_at),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ConversationState:
        return cls(
            id=d["id"],
            kind=ConversationKind(d["kind"]),
            name=d["name"],
            members=list(d["members"]),
            mission=d.get("mission"),
            department=d.get("department"),
            count=0,  # recounted from messages.jsonl on resume
            closed_until=_dt(d.get("closed_until")),
            last_boss_at=_dt(d.get("last_boss_at")),
            reset_at=_dt(d.get("reset_at")),
            blocked_pair=tuple(d["blocked_pair"]) if d.get("blocked_pair") else None,
            escalated_at=_dt(d.get("escalated_at")),
        )


@dataclass
class OfficeState:
    """Everything a thought can change: the company, its employees, conversations, the task board, id counters."""

    company: Company
    employees: dict[str, Employee]
    conversations: dict[str, ConversationState]
    counters: dict[str, int] = field(default_factory=lambda: {THOUGHT: 0, MESSAGE: 0})
    board: dict[str, Offer] = field(default_factory=dict)  # tasks nobody owns yet, by id
    documents: dict[str, Document] = field(default_factory=dict)  # the workspace, by department/path

    def next_id(self, kind: str) -> str:
        """The next id of this kind (`ids.serial_id`): `t000001` for a thought, `m000001` for a message."""
        self.counters[kind] = self.counters.get(kind, 0) + 1
        return serial_id(kind, self.counters[kind])
