"""One employee's mind: memory, relationships, tasks, stamina, mood, and notes for its next thought.

Plain data. The rules that change it live beside it (`memory`, `relationships`, `tasks`,
`stamina`) and never change an item in place: they replace it. So `copy()` (new containers, the
same items) is a safe scratch copy to try a thought on, and `changes.diff` finds what a thought
changed by identity alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ideaco.mind.memory import Memory
from ideaco.mind.relationships import Relation, table_from_dict, table_to_dict
from ideaco.mind.stamina import Stamina
from ideaco.mind.tasks import Task


@dataclass(slots=True)
class Mind:
    """What an employee knows, feels and has to do."""

    memory: Memory = field(default_factory=Memory)
    relationships: dict[str, Relation] = field(default_factory=dict)
    tasks: list[Task] = field(default_factory=list)
    stamina: Stamina = field(default_factory=Stamina)
    interest: int = 5  # of the last thought: they set the next look
    saturation: int = 5
    notes: list[str] = field(default_factory=list)  # for the next thought (refused claims, ...)
    escalated: bool = False  # asked to escalate to the boss since comfort last fell under 30

    @property
    def pending_tasks(self) -> list[Task]:
        return [t for t in self.tasks if t.pending]

    def copy(self) -> Mind:
        """A scratch copy: new containers holding the same (never mutated) items."""
        return Mind(
            memory=self.memory.copy(),
            relationships=dict(self.relationships),
            tasks=list(self.tasks),
            stamina=self.stamina,
            interest=self.interest,
            saturation=self.saturation,
            notes=list(self.notes),
            escalated=self.escalated,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "memory": self.memory.to_dict(),
            "relationships": table_to_dict(self.relationships),
            "tasks": [t.to_dict() for t in self.tasks],
            "stamina": self.stamina.to_dict(),
            "interest": self.interest,
            "saturation": self.saturation,
            "notes": self.notes,
            "escalated": self.escalated,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Mind:
        return cls(
            memory=Memory.from_dict(d["memory"]) if d.get("memory") else Memory(),
            relationships=table_from_dict(d.get("relationships") or {}),
            tasks=[Task.from_dict(t) for t in d.get("tasks") or []],
            stamina=Stamina.from_dict(d["stamina"]) if d.get("stamina") else Stamina(),
            interest=d.get("interest", 5),
            saturation=d.get("saturation", 5),
            notes=list(d.get("notes") or []),
            escalated=bool(d.get("escalated", False)),
        )
