"""The office's mutable state: employees' runtime state and conversations.

Plain dataclasses with `to_dict`/`from_dict` so the whole office round-trips through
state.json. Messages themselves live in messages.jsonl; a conversation keeps only a bounded
window of recent ones in memory (enough for the prompt, the gates and the loop breakers).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ideaco.mind.memory import Memory
from ideaco.mind.relationships import Relation, table_from_dict, table_to_dict
from ideaco.mind.stamina import Stamina
from ideaco.mind.tasks import Task
from ideaco.office.conversation import ConversationKind, Message

RECENT_WINDOW = 60  # messages kept in memory per conversation


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


@dataclass
class Focus:
    """A think the engine owes an employee in a given conversation, with a note to read."""

    conversation: str
    trigger: str
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"conversation": self.conversation, "trigger": self.trigger, "note": self.note}


@dataclass
class EmployeeState:
    """One employee: identity plus where it is in its wake-think-speak cycle."""

    id: str
    name: str
    role: str
    age: int | None
    department: str | None
    model: str | None
    persona: dict[str, Any]
    cursors: dict[str, int] = field(default_factory=dict)  # conversation -> messages read
    wake_at: datetime | None = None
    wake_triggers: list[str] = field(default_factory=list)
    phase: str = "idle"  # idle | typing | thinking
    deferred_triggers: list[str] = field(default_factory=list)
    focus: list[Focus] = field(default_factory=list)
    held_until: dict[str, datetime] = field(default_factory=dict)  # conversation -> gate reopens
    interest: int = 5
    saturation: int = 5
    memory: Memory = field(default_factory=Memory)
    relationships: dict[str, Relation] = field(default_factory=dict)
    tasks: list[Task] = field(default_factory=list)
    stamina: Stamina = field(default_factory=Stamina)
    notes: list[str] = field(default_factory=list)  # for the next thought (refused claims, ...)
    task_alerts: dict[str, str] = field(default_factory=dict)  # task id -> urgency it woke me for
    escalated: bool = False  # asked to escalate to the boss since comfort last fell under 30
    dismissed: bool = False  # left the company (memory kept for a rehire)
    inflight: Focus | None = None  # the owed think being typed or thought now (kept across a kill)

    @property
    def pending_tasks(self) -> list[Task]:
        return [t for t in self.tasks if t.pending]

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "role": self.role,
            "age": self.age,
            "department": self.department,
            "model": self.model,
            "persona": self.persona,
            "cursors": self.cursors,
            "wake_at": _iso(self.wake_at),
            "wake_triggers": self.wake_triggers,
            "phase": self.phase,
            "deferred_triggers": self.deferred_triggers,
            "focus": [f.to_dict() for f in self.focus],
            "held_until": {k: v.isoformat() for k, v in self.held_until.items()},
            "interest": self.interest,
            "saturation": self.saturation,
            "memory": self.memory.to_dict(),
            "relationships": table_to_dict(self.relationships),
            "tasks": [t.to_dict() for t in self.tasks],
            "stamina": self.stamina.to_dict(),
            "notes": self.notes,
            "task_alerts": self.task_alerts,
            "escalated": self.escalated,
            "dismissed": self.dismissed,
            "inflight": self.inflight.to_dict() if self.inflight else None,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> EmployeeState:
        return cls(
            id=d["id"],
            name=d["name"],
            role=d["role"],
            age=d.get("age"),
            department=d.get("department"),
            model=d.get("model"),
            persona=d.get("persona") or {},
            cursors=dict(d.get("cursors") or {}),
            wake_at=_dt(d.get("wake_at")),
            wake_triggers=list(d.get("wake_triggers") or []),
            phase=d.get("phase", "idle"),
            deferred_triggers=list(d.get("deferred_triggers") or []),
            focus=[Focus(**f) for f in d.get("focus") or []],
            held_until={k: datetime.fromisoformat(v) for k, v in (d.get("held_until") or {}).items()},
            interest=d.get("interest", 5),
            saturation=d.get("saturation", 5),
            memory=Memory.from_dict(d["memory"]) if d.get("memory") else Memory(),
            relationships=table_from_dict(d.get("relationships") or {}),
            tasks=[Task.from_dict(t) for t in d.get("tasks") or []],
            stamina=Stamina.from_dict(d["stamina"]) if d.get("stamina") else Stamina(),
            notes=list(d.get("notes") or []),
            task_alerts=dict(d.get("task_alerts") or {}),
            escalated=bool(d.get("escalated", False)),
            dismissed=bool(d.get("dismissed", False)),
            inflight=Focus(**d["inflight"]) if d.get("inflight") else None,
        )


@dataclass
class ConversationState:
    """A conversation: members, a bounded window of recent messages, loop-breaker state."""

    id: str
    kind: ConversationKind
    name: str
    members: list[str]
    mission: str | None = None
    count: int = 0  # messages ever posted here
    recent: deque[Message] = field(default_factory=lambda: deque(maxlen=RECENT_WINDOW))
    closed_until: datetime | None = None  # ring breaker
    last_boss_at: datetime | None = None
    reset_at: datetime | None = None  # last task op: resets the pair streak and the ceiling
    blocked_pair: tuple[str, str] | None = None  # pair streak: these two stop waking each other

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

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind.value,
            "name": self.name,
            "members": self.members,
            "mission": self.mission,
            "count": self.count,
            "closed_until": _iso(self.closed_until),
            "last_boss_at": _iso(self.last_boss_at),
            "reset_at": _iso(self.reset_at),
            "blocked_pair": list(self.blocked_pair) if self.blocked_pair else None,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ConversationState:
        return cls(
            id=d["id"],
            kind=ConversationKind(d["kind"]),
            name=d["name"],
            members=list(d["members"]),
            mission=d.get("mission"),
            count=0,  # recounted from messages.jsonl on resume
            closed_until=_dt(d.get("closed_until")),
            last_boss_at=_dt(d.get("last_boss_at")),
            reset_at=_dt(d.get("reset_at")),
            blocked_pair=tuple(d["blocked_pair"]) if d.get("blocked_pair") else None,
        )
