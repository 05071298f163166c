"""A fork's `fork.json` (issue 39), read: where a run came from, at what moment, with what changes.

`ideaco fork` writes it (`ideaco/fork.py`); `compare`, `report`, `inspect`, the viewer and a sweep
read it here, the one reading: a missing or malformed file means "not a fork".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from ideaco import safejson
from ideaco.redact import redact_url
from ideaco.store.rundir import FORK

CLIP = 60  # characters of a boss line quoted in a change's phrase


@dataclass(frozen=True)
class Fork:
    """What a fork's `fork.json` says: its direct parent and moment, its changes, its whole chain."""

    path: Path  # the fork's run directory, resolved
    origin: Path
    at: datetime
    changes: tuple[dict[str, Any], ...]
    lineage: tuple[tuple[Path, datetime], ...]  # oldest first; the last is (origin, at)

    def describe(self) -> str:
        """One line: "a fork of ORIGIN at 10:30:00 with changes: ..."."""
        return f"a fork of {self.origin} at {self.at:%H:%M:%S}; changes: {changes_text(self.changes)}"

    def to_dict(self) -> dict[str, Any]:
        """For a report's JSON: plain types."""
        return {
            "origin": str(self.origin),
            "at": self.at.isoformat(),
            "changes": list(self.changes),
            "lineage": [{"origin": str(o), "at": a.isoformat()} for o, a in self.lineage],
        }


def _moment(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value).replace(tzinfo=None) if isinstance(value, str) else None
    except ValueError:
        return None


def read_fork(rundir: str | Path) -> Fork | None:
    """The run's fork.json, or None: not a fork (no file, or one that cannot be read as a fork's)."""
    path = Path(rundir).resolve()
    try:
        data = safejson.loads((path / FORK).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("origin"), str):
        return None
    at = _moment(data.get("at"))
    if at is None or not data["origin"]:
        return None
    origin = Path(data["origin"]).resolve()
    changes = data.get("changes") if isinstance(data.get("changes"), list) else []
    chain = []
    for step in data.get("lineage") if isinstance(data.get("lineage"), list) else []:
        when = _moment(step.get("at")) if isinstance(step, dict) else None
        if when is not None and isinstance(step.get("origin"), str) and step["origin"]:
            chain.append((Path(step["origin"]).resolve(), when))
    if not chain or chain[-1] != (origin, at):
        chain.append((origin, at))
    return Fork(path, origin, at, tuple(c for c in changes if isinstance(c, dict)), tuple(chain))


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= CLIP else text[: CLIP - 1] + "…"


def change_text(change: dict[str, Any]) -> str:
    """A fork's change in one short phrase."""
    kind = change.get("kind")
    if kind == "say":
        return f'the boss says in {change.get("conversation")}: "{_clip(str(change.get("text") or ""))}"'
    if kind == "switch":
        return f"switch {change.get('name')}={change.get('value')}"
    if kind == "archetype":
        return f"{change.get('employee')} becomes {change.get('archetype')}"
    if kind == "drop_script":
        return "the scenario's later boss lines dropped"
    if kind == "seed":
        return f"seed {change.get('seed')}"
    if kind == "model":
        flags = change.get("flags") if isinstance(change.get("flags"), dict) else {}
        urls = flags.get("base_url") or []
        urls = [urls] if isinstance(urls, str) else [u for u in urls if isinstance(u, str)]
        said = "".join(
            (
                f" {flags['model']}" if flags.get("model") else "",
                f" at {', '.join(map(redact_url, urls))}" if urls else "",
            )
        )
        return f"model{said}" if said else "another model"
    return str(kind or "a change")


def changes_text(changes: tuple[dict[str, Any], ...] | list[dict[str, Any]]) -> str:
    return "; ".join(change_text(c) for c in changes) or "none"
