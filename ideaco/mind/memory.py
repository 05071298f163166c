"""An employee's memory (spec 2.4): rolling summaries, long-term and short-term items.

Pure: every function is handed `now`; nothing here reads a clock, does I/O or draws randomness.
Functions change the `Memory` they are given (its lists) and return short notes for the thought's
`corrections` log; a `MemoryItem` is frozen, so a changed memory is a new item in the old one's
place, and `Memory.copy()` is a safe scratch copy.
"""

from __future__ import annotations

import string
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timedelta
from typing import Any, Literal

from ideaco.mind.thought import MemoryOp
from ideaco.wording import normalise

Layer = Literal["long_term", "short_term"]
MEMORY_PREFIX = "mem-"  # a memory's id: mem-<n>, n counted per employee


@dataclass(frozen=True)
class MemoryConfig:
    """Caps and numbers of the memory; a scenario may override any of them."""

    long_term_cap: int = 200
    short_term_cap: int = 20
    default_ttl_s: int = 86400
    archive_penalty: int = 2
    summary_limit: int = 2000
    prompt_long: int = 15
    prompt_short: int = 10
    short_half_life_days: float = 1.0
    long_half_life_days: float = 7.0
    prompt_item_chars: int = 300  # one memory's line in the prompt; keeps the prompt bounded


DEFAULT_CONFIG = MemoryConfig()


_DATES = ("created_at", "updated_at", "expires_at")


@dataclass(frozen=True)
class MemoryItem:
    """One remembered thing; short-term items carry `expires_at`."""

    id: str
    content: str
    category: str
    importance: int
    created_at: datetime
    updated_at: datetime
    expires_at: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        # Spelled out rather than dataclasses.asdict, which deep-copies every value: a state save
        # writes every memory of every employee.
        return {
            "id": self.id,
            "content": self.content,
            "category": self.category,
            "importance": self.importance,
            "created_at": self.created_at and self.created_at.isoformat(),
            "updated_at": self.updated_at and self.updated_at.isoformat(),
            "expires_at": self.expires_at and self.expires_at.isoformat(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MemoryItem:
        dates = {k: data.get(k) and datetime.fromisoformat(data[k]) for k in _DATES}
        return cls(**{f.name: data[f.name] for f in fields(cls)} | dates)

    def expired(self, now: datetime) -> bool:
        # At exactly the TTL the item has expired (a window holds what is younger than it).
        return self.expires_at is not None and self.expires_at <= now


def _id_number(item_id: str) -> int:
    tail = item_id.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else 0


@dataclass
class Memory:
    """The memory layers of one employee. Ids (`mem-7`) are never reused."""

    long_term: list[MemoryItem] = field(default_factory=list)
    short_term: list[MemoryItem] = field(default_factory=list)
    summaries: dict[str, str] = field(default_factory=dict)  # conversation id -> historySummary
    next_id: int = 1

    def to_dict(self) -> dict[str, Any]:
        return {
            "long_term": [m.to_dict() for m in self.long_term],
            "short_term": [m.to_dict() for m in self.short_term],
            "summaries": dict(self.summaries),
            "next_id": self.next_id,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Memory:
        long_term = [MemoryItem.from_dict(d) for d in data.get("long_term", [])]
        short_term = [MemoryItem.from_dict(d) for d in data.get("short_term", [])]
        highest = max((_id_number(m.id) for m in long_term + short_term), default=0)
        # Guard against a hand-edited state: a new id must never collide with a kept one.
        next_id = max(int(data.get("next_id", 1)), highest + 1)
        return cls(long_term, short_term, dict(data.get("summaries", {})), next_id)

    def copy(self) -> Memory:
        """New lists holding the same (frozen) items."""
        return Memory(list(self.long_term), list(self.short_term), dict(self.summaries), self.next_id)

    def layer(self, name: Layer) -> list[MemoryItem]:
        return self.long_term if name == "long_term" else self.short_term

    def find(self, item_id: str) -> tuple[Layer, MemoryItem] | None:
        for layer, items in (("long_term", self.long_term), ("short_term", self.short_term)):
            for item in items:
                if item.id == item_id:
                    return layer, item  # type: ignore[return-value]
        return None

    def _take_id(self) -> str:
        item_id = f"{MEMORY_PREFIX}{self.next_id}"
        self.next_id += 1
        return item_id


# --------------------------------------------------------------------------- duplicates


def _empty(text: str) -> bool:
    """Whether a memory's text says nothing: spaces and punctuation only."""
    return not "".join(text.split()).strip(string.punctuation)


def _contains(na: str, nb: str) -> bool:
    """Whether two normalised texts are duplicates: equal, or one contains the other and their
    lengths are within 20%."""
    if not na or not nb:
        return False
    if na == nb:
        return True
    short, long_ = sorted((na, nb), key=len)
    return short in long_ and len(short) >= 0.8 * len(long_)


def _find_duplicate(memory: Memory, content: str, now: datetime) -> tuple[Layer, MemoryItem] | None:
    candidates = [("long_term", m) for m in memory.long_term]
    candidates += [("short_term", m) for m in memory.short_term if not m.expired(now)]
    target = normalise(content)
    normalised = [(layer, item, normalise(item.content)) for layer, item in candidates]
    # An exact match beats a containment match.
    for layer, item, text in normalised:
        if text == target:
            return layer, item  # type: ignore[return-value]
    for layer, item, text in normalised:
        if _contains(text, target):
            return layer, item  # type: ignore[return-value]
    return None


# --------------------------------------------------------------------------- ops


def _clamp_importance(importance: int) -> int:
    return min(max(int(importance), 1), 10)


def _index(items: list[MemoryItem], item: MemoryItem) -> int:
    return next(i for i, m in enumerate(items) if m is item)


def _replace(items: list[MemoryItem], old: MemoryItem, new: MemoryItem) -> None:
    items[_index(items, old)] = new


def _drop(items: list[MemoryItem], item: MemoryItem) -> None:
    del items[_index(items, item)]


def add(
    memory: Memory,
    *,
    kind: Layer,
    content: str,
    category: str,
    importance: int,
    now: datetime,
    ttl_s: int | None = None,
    cfg: MemoryConfig = DEFAULT_CONFIG,
) -> tuple[MemoryItem, list[str]]:
    """Add a memory, or update the existing one it duplicates (in either layer); then prune.

    Returns the item as it stands afterwards, and the notes.

    A duplicate keeps its id and category; it takes the newer content, the higher importance
    and `updated_at = now`. Re-adding a short-term memory as long-term moves it to long-term;
    re-adding it as short-term extends its expiry. Raises ValueError on empty content.
    """
    content = content.strip()
    if _empty(content):
        raise ValueError("a memory needs content")
    importance = _clamp_importance(importance)
    notes: list[str] = []
    ttl = cfg.default_ttl_s if ttl_s is None else ttl_s
    expires_at = now + timedelta(seconds=ttl)
    found = _find_duplicate(memory, content, now)
    if found is not None:
        layer, old = found
        item = replace(old, content=content, importance=max(old.importance, importance), updated_at=now)
        note = f"memory: duplicate of {item.id}, updated"
        if layer == "short_term" and kind == "long_term":
            _drop(memory.short_term, old)
            item = replace(item, expires_at=None)
            memory.long_term.append(item)
            note += " and moved to long-term"
        else:
            if layer == "short_term":
                item = replace(item, expires_at=max(old.expires_at or expires_at, expires_at))
            _replace(memory.layer(layer), old, item)
        notes.append(note)
    else:
        expiry = expires_at if kind == "short_term" else None
        item = MemoryItem(memory._take_id(), content, category, importance, now, now, expiry)
        (memory.short_term if kind == "short_term" else memory.long_term).append(item)
    notes += prune(memory, now, cfg)
    found = memory.find(item.id)  # as it stands after pruning (archived, or forgotten at once)
    return (found[1] if found else item), notes


def update(
    memory: Memory,
    item_id: str,
    *,
    content: str | None = None,
    importance: int | None = None,
    now: datetime,
) -> list[str]:
    """Change a memory's content (empty keeps it) and/or importance; an unknown id is noted, dropped."""
    found = memory.find(item_id)
    if found is None:
        return [f"memoryOps: unknown memory id {item_id!r}, dropped"]
    layer, old = found
    item = replace(old, updated_at=now)
    # Empty content means "keep it": a schema-constrained model fills every field of an op.
    if content is not None and content.strip():
        item = replace(item, content=content.strip())
    if importance is not None:
        item = replace(item, importance=_clamp_importance(importance))
    _replace(memory.layer(layer), old, item)
    return []


def delete(memory: Memory, item_id: str) -> list[str]:
    """Forget a memory; an unknown id is noted and dropped."""
    found = memory.find(item_id)
    if found is None:
        return [f"memoryOps: unknown memory id {item_id!r}, dropped"]
    layer, item = found
    _drop(memory.layer(layer), item)
    return []


def _eviction_key(item: MemoryItem) -> tuple[int, datetime, int]:
    return item.importance, item.updated_at, _id_number(item.id)


def prune(memory: Memory, now: datetime, cfg: MemoryConfig = DEFAULT_CONFIG) -> list[str]:
    """Drop expired short-term items, archive short-term overflow, drop long-term overflow.

    Overflow goes least important first, then oldest (by updated_at). An archived item keeps
    its id, content and category, with importance minus `archive_penalty` (at least 1).
    """
    notes: list[str] = []
    # Expiry is routine, not a correction: no note.
    memory.short_term = [m for m in memory.short_term if not m.expired(now)]
    while len(memory.short_term) > cfg.short_term_cap:
        old = min(memory.short_term, key=_eviction_key)
        _drop(memory.short_term, old)
        item = replace(old, importance=max(1, old.importance - cfg.archive_penalty), expires_at=None)
        memory.long_term.append(item)
        notes.append(
            f"memory: short-term full, {item.id} archived to long-term (importance {item.importance})"
        )
    while len(memory.long_term) > cfg.long_term_cap:
        item = min(memory.long_term, key=_eviction_key)
        _drop(memory.long_term, item)
        notes.append(f"memory: long-term full, {item.id} forgotten")
    return notes


def apply_ops(
    memory: Memory, ops: Iterable[MemoryOp], now: datetime, cfg: MemoryConfig = DEFAULT_CONFIG
) -> list[str]:
    """Apply a thought's memoryOps in order; a bad op is noted and dropped, never fatal."""
    notes = prune(memory, now, cfg)
    for i, op in enumerate(ops):
        where = f"memoryOps[{i}]"
        op_notes: list[str]
        if op.op == "add":
            if not op.content or _empty(op.content):
                notes.append(f"{where}: add without content, dropped")
                continue
            ttl = op.ttl
            if ttl is not None and ttl <= 0:
                notes.append(f"{where}: ttl {ttl} is not positive, used {cfg.default_ttl_s}")
                ttl = None
            kwargs = {"category": op.category, "importance": op.importance, "ttl_s": ttl, "cfg": cfg}
            _, op_notes = add(memory, kind=op.type, content=op.content, now=now, **kwargs)
        elif not op.id:
            notes.append(f"{where}: {op.op} without id, dropped")
            continue
        elif op.op == "update":
            importance = op.importance if "importance" in op.model_fields_set else None
            op_notes = update(memory, op.id, content=op.content, importance=importance, now=now)
        else:
            op_notes = delete(memory, op.id)
        notes += [n.replace("memoryOps:", f"{where}:", 1) for n in op_notes]
    return notes


def set_summary(
    memory: Memory, conversation: str, text: str | None, cfg: MemoryConfig = DEFAULT_CONFIG
) -> list[str]:
    """Replace a conversation's rolling summary; empty or None keeps the old one."""
    if text is None or not text.strip():
        return []
    text = text.strip()
    notes: list[str] = []
    if len(text) > cfg.summary_limit:
        notes.append(f"memorySummary: cut from {len(text)} to {cfg.summary_limit} chars")
        text = text[: cfg.summary_limit]
    memory.summaries[conversation] = text
    return notes
