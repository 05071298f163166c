"""What changed in a mind, as data: `diff(before, after)`, `apply(mind, changes)`, and its log form.

A thought is tried on a scratch copy of the mind (`Mind.copy`); `diff` turns the result into a
`MindChanges`, which is what the office applies, what `thoughts.jsonl` records under `applied`, and
what a resume applies again. Lists keep their order: an item changed keeps its place, a new one
goes to the end, which is how every rule in `ideaco.mind` changes a list.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from ideaco.mind.memory import MemoryItem
from ideaco.mind.mind import Mind
from ideaco.mind.relationships import Relation, affinity_of
from ideaco.mind.stamina import Stamina
from ideaco.mind.tasks import Task

T = TypeVar("T", MemoryItem, Task)


@dataclass(frozen=True)
class ListChanges(Generic[T]):
    """Changes to a list of items with ids: new ones (appended), changed ones (in place), removed ids.

    A changed item is logged as a patch (its id and the fields that changed), so a thought's
    record stays small however many tasks its owner has; `patches` are such entries read back.
    """

    added: tuple[T, ...] = ()
    updated: tuple[T, ...] = ()
    removed: tuple[str, ...] = ()
    patches: tuple[dict[str, Any], ...] = ()  # read back from a record: {"id", changed fields}
    before: tuple[T, ...] = field(default=(), compare=False)  # the changed items as they were

    def __bool__(self) -> bool:
        return bool(self.added or self.updated or self.removed or self.patches)

    def apply(self, items: list[T]) -> list[T]:
        changed = {item.id: item for item in self.updated}
        patched = {patch["id"]: patch for patch in self.patches}
        gone = set(self.removed)
        out = []
        for item in items:
            if item.id in gone:
                continue
            if item.id in patched:
                item = type(item).from_dict({**item.to_dict(), **patched[item.id]})  # type: ignore[assignment]
            out.append(changed.get(item.id, item))
        return out + list(self.added)

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.added:
            out["added"] = [i.to_dict() for i in self.added]
        if self.updated or self.patches:
            was = {i.id: i.to_dict() for i in self.before}
            out["updated"] = [_patch(i.to_dict(), was.get(i.id)) for i in self.updated] + list(self.patches)
        if self.removed:
            out["removed"] = list(self.removed)
        return out

    @classmethod
    def from_record(cls, data: dict[str, Any], load: Callable[[dict[str, Any]], T]) -> ListChanges[T]:
        return cls(
            added=tuple(load(d) for d in data.get("added") or ()),
            removed=tuple(data.get("removed") or ()),
            patches=tuple(data.get("updated") or ()),
        )


def _patch(now: dict[str, Any], was: dict[str, Any] | None) -> dict[str, Any]:
    """An item's id and what changed in it (all of it when what it was is not known)."""
    if was is None:
        return now
    return {"id": now["id"], **{k: v for k, v in now.items() if was.get(k) != v}}


def _list_diff(before: Sequence[T], after: Sequence[T]) -> ListChanges[T]:
    old = {item.id: item for item in before}
    added, updated, was = [], [], []
    for item in after:
        prior = old.pop(item.id, None)
        if prior is None:
            added.append(item)
        elif prior is not item:
            updated.append(item)
            was.append(prior)
    return ListChanges(tuple(added), tuple(updated), tuple(old), before=tuple(was))


@dataclass(frozen=True)
class RelationChange:
    """One colleague's relation as it landed; `before` is the (drifted) affinity it replaced."""

    employee: str
    relation: Relation | None  # None: forgotten (a reset)
    before: float

    def to_record(self) -> dict[str, Any]:
        rel = self.relation
        out: dict[str, Any] = {"employee": self.employee, "before": round(self.before, 3)}
        if rel is None:
            return out | {"removed": True}
        return out | {"after": round(rel.affinity, 3)} | rel.to_dict()

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> RelationChange:
        if data.get("removed"):
            return cls(data["employee"], None, float(data.get("before", 50.0)))
        return cls(data["employee"], Relation.from_dict(data), float(data.get("before", 50.0)))


@dataclass(frozen=True)
class MindChanges:
    """Everything one step changed in one mind, as it landed. Empty fields changed nothing."""

    long_term: ListChanges[MemoryItem] = field(default_factory=ListChanges)
    short_term: ListChanges[MemoryItem] = field(default_factory=ListChanges)
    summaries: dict[str, str] = field(default_factory=dict)
    relations: tuple[RelationChange, ...] = ()
    tasks: ListChanges[Task] = field(default_factory=ListChanges)
    stamina: Stamina | None = None
    stamina_before: Stamina | None = None
    stamina_events: tuple[str, ...] = ()
    mood: tuple[int, int] | None = None  # (interest, saturation)
    notes: tuple[str, ...] | None = None  # the whole list, when it changed
    escalated: bool | None = None
    next_memory_id: int | None = None

    def __bool__(self) -> bool:
        return any(
            (
                self.long_term,
                self.short_term,
                self.summaries,
                self.relations,
                self.tasks,
                self.stamina is not None,
                self.mood is not None,
                self.notes is not None,
                self.escalated is not None,
                self.next_memory_id is not None,
            )
        )

    def to_record(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        memory = {
            layer: changes.to_record()
            for layer, changes in (("long_term", self.long_term), ("short_term", self.short_term))
            if changes
        }
        if self.summaries:
            memory["summaries"] = dict(self.summaries)
        if self.next_memory_id is not None:
            memory["next_id"] = self.next_memory_id
        if memory:
            out["memory"] = memory
        if self.relations:
            out["relationships"] = [r.to_record() for r in self.relations]
        if self.tasks:
            out["tasks"] = self.tasks.to_record()
        if self.stamina is not None:
            before = self.stamina_before or self.stamina
            out["stamina"] = {
                "events": list(self.stamina_events),
                "delta": {
                    axis: round(getattr(self.stamina, axis) - getattr(before, axis), 3)
                    for axis in ("patience", "fatigue", "stress")
                },
                "after": self.stamina.to_dict(),
            }
        if self.mood is not None:
            out["mood"] = {"interest": self.mood[0], "saturation": self.mood[1]}
        if self.notes is not None:
            out["notes"] = list(self.notes)
        if self.escalated is not None:
            out["escalated"] = self.escalated
        return out

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> MindChanges:
        memory = data.get("memory") or {}
        stamina = data.get("stamina")
        mood = data.get("mood")
        return cls(
            long_term=ListChanges.from_record(memory.get("long_term") or {}, MemoryItem.from_dict),
            short_term=ListChanges.from_record(memory.get("short_term") or {}, MemoryItem.from_dict),
            summaries=dict(memory.get("summaries") or {}),
            relations=tuple(RelationChange.from_record(r) for r in data.get("relationships") or ()),
            tasks=ListChanges.from_record(data.get("tasks") or {}, Task.from_dict),
            stamina=Stamina.from_dict(stamina["after"]) if stamina else None,
            stamina_events=tuple(stamina.get("events") or ()) if stamina else (),
            mood=(int(mood["interest"]), int(mood["saturation"])) if mood else None,
            notes=tuple(data["notes"]) if "notes" in data else None,
            escalated=data.get("escalated"),
            next_memory_id=memory.get("next_id"),
        )


def diff(before: Mind, after: Mind, now: datetime, events: Sequence[str] = ()) -> MindChanges:
    """What turned `before` into `after` (`after` is a changed `before.copy()`)."""
    relations = []
    for employee in before.relationships.keys() | after.relationships.keys():
        old, new = before.relationships.get(employee), after.relationships.get(employee)
        if old is not new:
            relations.append(RelationChange(employee, new, affinity_of(before.relationships, employee, now)))
    order = list(after.relationships)
    relations.sort(key=lambda r: order.index(r.employee) if r.employee in order else len(order))
    stamina_changed = after.stamina != before.stamina
    return MindChanges(
        long_term=_list_diff(before.memory.long_term, after.memory.long_term),
        short_term=_list_diff(before.memory.short_term, after.memory.short_term),
        summaries={k: v for k, v in after.memory.summaries.items() if before.memory.summaries.get(k) != v},
        relations=tuple(relations),
        tasks=_list_diff(before.tasks, after.tasks),
        stamina=after.stamina if stamina_changed else None,
        stamina_before=before.stamina if stamina_changed else None,
        stamina_events=tuple(events) if stamina_changed else (),
        mood=(after.interest, after.saturation)
        if (after.interest, after.saturation) != (before.interest, before.saturation)
        else None,
        notes=tuple(after.notes) if after.notes != before.notes else None,
        escalated=after.escalated if after.escalated != before.escalated else None,
        next_memory_id=after.memory.next_id if after.memory.next_id != before.memory.next_id else None,
    )


def apply(mind: Mind, changes: MindChanges) -> None:
    """Make `changes` true of `mind` (in place): the one way a mind changes after a thought."""
    memory = mind.memory
    if changes.long_term:
        memory.long_term = changes.long_term.apply(memory.long_term)
    if changes.short_term:
        memory.short_term = changes.short_term.apply(memory.short_term)
    memory.summaries.update(changes.summaries)
    if changes.next_memory_id is not None:
        memory.next_id = max(memory.next_id, changes.next_memory_id)
    for change in changes.relations:
        if change.relation is None:
            mind.relationships.pop(change.employee, None)
        else:
            mind.relationships[change.employee] = change.relation
    if changes.tasks:
        mind.tasks[:] = changes.tasks.apply(mind.tasks)
    if changes.stamina is not None:
        mind.stamina = changes.stamina
    if changes.mood is not None:
        mind.interest, mind.saturation = changes.mood
    if changes.notes is not None:
        mind.notes[:] = changes.notes
    if changes.escalated is not None:
        mind.escalated = changes.escalated
