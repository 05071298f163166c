"""What an employee thinks of each colleague (spec 2.4): impression and affinity 1-100.

Affinity drifts back toward neutral over simulated time, so an early grudge fades instead of
hardening into a permanent bias (the reference design's open problem). Pure: `now` is given.
A table is a plain `dict[str, Relation]` keyed by employee id; someone never rated is at 50.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ideaco.ids import resolve_id
from ideaco.mind.thought import RelationshipOp

NEUTRAL = 50.0
HOUR = timedelta(hours=1)
MIN_AFFINITY, MAX_AFFINITY = 1.0, 100.0
SWING_ABOVE = (
    5  # |affinity change| above this is a swing: a stamina event (spec 2.6, `stamina.affinity_event`)
)


@dataclass(frozen=True)
class RelationshipConfig:
    """Numbers of the relationship table; a scenario may override any of them."""

    max_change: float = 15
    max_change_per_hour: float = 25  # all moves of one affinity in an hour, up or down, added up
    impression_limit: int = 200
    drift_half_life_days: float | None = 3.0  # None or <= 0: no drift
    # A small model's "warmer" / "cooler" (the compact wire's `feeling`): one step, just above
    # SWING_ABOVE, so a change it states is still a stamina event.
    feeling_step: float = 6


FEELING_SIGN = {"same": 0, "warmer": 1, "cooler": -1}


DEFAULT_CONFIG = RelationshipConfig()


@dataclass(frozen=True)
class Relation:
    """One colleague as this employee sees them; `affinity` is the value as of `updated_at`."""

    name: str
    impression: str
    affinity: float
    updated_at: datetime
    hour_from: datetime | None = None  # the hour this affinity's moves are counted in began here
    moved: float = 0.0  # how far it has moved (up and down added up) since `hour_from`

    def to_dict(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "impression": self.impression,
            "affinity": self.affinity,
            "updated_at": self.updated_at.isoformat(),
        }
        if self.hour_from is not None:
            out |= {"hour_from": self.hour_from.isoformat(), "moved": self.moved}
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Relation:
        return cls(
            name=data["name"],
            impression=data["impression"],
            affinity=float(data["affinity"]),
            updated_at=datetime.fromisoformat(data["updated_at"]),
            hour_from=datetime.fromisoformat(data["hour_from"]) if data.get("hour_from") else None,
            moved=float(data.get("moved") or 0.0),
        )


def table_to_dict(table: Mapping[str, Relation]) -> dict[str, Any]:
    return {employee: rel.to_dict() for employee, rel in table.items()}


def table_from_dict(data: Mapping[str, Any]) -> dict[str, Relation]:
    return {employee: Relation.from_dict(rel) for employee, rel in data.items()}


def _clamp(value: float, lo: float, hi: float) -> float:
    return min(max(value, lo), hi)


def current_affinity(rel: Relation, now: datetime, cfg: RelationshipConfig = DEFAULT_CONFIG) -> float:
    """The affinity now: 50 + (a - 50) * 0.5 ** (days since updated_at / half-life)."""
    half_life = cfg.drift_half_life_days
    if not half_life or half_life <= 0:
        return rel.affinity
    days = max(0.0, (now - rel.updated_at).total_seconds() / 86400)
    return NEUTRAL + (rel.affinity - NEUTRAL) * math.pow(0.5, days / half_life)


def affinity_of(
    table: Mapping[str, Relation], employee_id: str, now: datetime, cfg: RelationshipConfig = DEFAULT_CONFIG
) -> float:
    """The drifted affinity for `employee_id`, 50 for someone never rated."""
    rel = table.get(employee_id)
    return NEUTRAL if rel is None else current_affinity(rel, now, cfg)


def shown(value: float) -> int:
    """An affinity as the integer the prompt shows (half rounds up)."""
    return math.floor(value + 0.5)


def _signed(value: float) -> str:
    return f"{round(value, 1):+g}"


def apply_ops(
    table: dict[str, Relation],
    ops: Iterable[RelationshipOp],
    now: datetime,
    *,
    self_id: str,
    people: Mapping[str, str],
    cfg: RelationshipConfig = DEFAULT_CONFIG,
    speakers: Collection[str] | None = None,
) -> tuple[list[str], list[tuple[str, float]]]:
    """Apply a thought's relationshipOps; return corrections and swings `(employee id, delta)`.

    Each change is clamped to the drifted current value ± max_change (then 1..100), and to what
    is left of max_change_per_hour for that colleague (moves up and down add up over an hour from
    the first). With `speakers`, only the affinity of someone whose words the thought read can
    move (a reason the engine can see); anyone's impression can. Several ops on one person in one
    thought: the last wins, still clamped against the value before the thought. A swing is a net
    change with |delta| > SWING_ABOVE.
    """
    notes: list[str] = []
    before: dict[str, float] = {}  # affinity at the start of this thought, per person touched
    prior: dict[str, Relation | None] = {}  # their relation at the start of this thought
    for i, op in enumerate(ops):
        where = f"relationshipOps[{i}]"
        ref = op.employeeId.strip()
        if ref == self_id:
            notes.append(f"{where}: an opinion of yourself is not kept, dropped")
            continue
        found = resolve_id(ref, people)
        if isinstance(found, list):
            notes.append(f"{where}: {ref!r} could be any of {', '.join(sorted(found))}, dropped")
            continue
        if found is None:
            notes.append(f"{where}: unknown employee {ref!r}, dropped")
            continue
        if found == self_id:
            notes.append(f"{where}: an opinion of yourself is not kept, dropped")
            continue
        employee = found
        if employee in before:
            notes.append(f"{where}: a second op for {employee} in one thought replaces the first")
        else:
            before[employee] = affinity_of(table, employee, now, cfg)
            prior[employee] = table.get(employee)
        base = before[employee]
        old = table.get(employee)

        # An op that names no affinity (nor a feeling) only changes the impression.
        requested = float(op.affinity) if "affinity" in op.model_fields_set else base
        if op.feeling is not None and "affinity" not in op.model_fields_set:
            requested = base + cfg.feeling_step * FEELING_SIGN[op.feeling]
        if requested != base and speakers is not None and employee not in speakers:
            notes.append(f"{where}: affinity for {employee} kept: nothing of theirs was read")
            requested = base
        hour_from, moved = _hour(prior[employee], now)
        limit = min(cfg.max_change, max(0.0, cfg.max_change_per_hour - moved))
        new = _clamp(requested, base - limit, base + limit)
        if new != requested:
            why = "" if limit == cfg.max_change else f" (moved {moved:g} this hour)"
            notes.append(
                f"{where}: affinity change for {employee} clamped from "
                f"{_signed(requested - base)} to {_signed(new - base)}{why}"
            )
        new = _clamp(new, MIN_AFFINITY, MAX_AFFINITY)

        impression = op.impression.strip()
        if len(impression) > cfg.impression_limit:
            notes.append(
                f"{where}: impression of {employee} cut from {len(impression)} to {cfg.impression_limit} chars"
            )
            impression = impression[: cfg.impression_limit]
        if not impression and old is not None:
            impression = old.impression  # an empty impression keeps the old one

        # Storing the drifted value with updated_at = now is exact: exponential drift is memoryless.
        moved += abs(new - base)
        table[employee] = Relation(
            people[employee], impression, new, now, hour_from if moved else None, moved
        )

    swings = []
    for employee, start in before.items():
        delta = table[employee].affinity - start
        if abs(delta) > SWING_ABOVE:
            swings.append((employee, delta))
    return notes, swings


def _hour(old: Relation | None, now: datetime) -> tuple[datetime, float]:
    """The hour an affinity's moves are counted in (begun at its first move), and how far it moved in it."""
    if old is None or old.hour_from is None or now - old.hour_from >= HOUR:
        return now, 0.0
    return old.hour_from, old.moved


IMPRESSIONS_HEADING = "## What you think of the people here"


def impressions_block(
    table: Mapping[str, Relation],
    present: Iterable[str],
    now: datetime,
    cfg: RelationshipConfig = DEFAULT_CONFIG,
) -> str:
    """The prompt's impressions of the people present (only them); '' when none is rated."""
    lines = []
    for employee in present:
        rel = table.get(employee)
        if rel is None:
            continue
        line = f"{rel.name} ({employee}): affinity {shown(current_affinity(rel, now, cfg))}"
        if rel.impression:
            line += f" — {' '.join(rel.impression.split())}"
        lines.append(line)
    if not lines:
        return ""
    return "\n".join([IMPRESSIONS_HEADING, *lines])


def reset(table: dict[str, Relation], employee_id: str | None = None) -> int:
    """Forget the impression of one colleague (or of everyone): back to neutral. Returns how many."""
    if employee_id is None:
        count = len(table)
        table.clear()
        return count
    return 1 if table.pop(employee_id, None) is not None else 0
