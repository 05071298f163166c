"""The one reader of a run directory: state.json, messages.jsonl, thoughts.jsonl and summary.json.

The CLI (`inspect`, `report`, `chat`), the Python API, `ideaco.analysis` and the notebooks read a
run through `RunLog`: one place that knows the files, their formats (state format 1 kept a
thought's changes at the top of each employee, format 2 keeps them under `mind`; only format 2's
thought records carry `applied`) and what a damaged directory looks like (one line, `RunLogError`).
Reading never writes and never takes the run's lock: it is safe while a run goes on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ideaco import safejson
from ideaco.store import jsonl
from ideaco.store.rundir import RunDir
from ideaco.store.state import StateStore

DESK_KEYS = ("cursors", "wake_at", "wake_triggers", "phase", "deferred_triggers", "held_until", "inflight")
MIND_KEYS = ("memory", "relationships", "tasks", "stamina", "interest", "saturation", "notes", "escalated")


class RunLogError(ValueError):
    """A directory that cannot be read as a run; `str()` is one line naming it."""


def _documents(table: Any) -> list[dict[str, Any]]:
    """A state table as documents (TinyDB keeps a mapping doc id -> document)."""
    if isinstance(table, dict):
        return [d for d in table.values() if isinstance(d, dict)]
    return [d for d in table or [] if isinstance(d, dict)]


@dataclass(frozen=True)
class EmployeeRecord:
    """One employee as state.json holds it, whatever its format: who, and their mind and desk."""

    id: str
    name: str
    role: str
    persona: dict[str, Any]
    mind: dict[str, Any]
    desk: dict[str, Any]
    dismissed: bool = False

    @classmethod
    def from_document(cls, doc: dict[str, Any]) -> EmployeeRecord:
        mind = (
            doc.get("mind")
            if isinstance(doc.get("mind"), dict)
            else {k: doc[k] for k in MIND_KEYS if k in doc}
        )
        desk = (
            doc.get("desk")
            if isinstance(doc.get("desk"), dict)
            else {k: doc[k] for k in DESK_KEYS if k in doc}
        )
        return cls(
            id=str(doc.get("id")),
            name=str(doc.get("name") or doc.get("id")),
            role=str(doc.get("role") or ""),
            persona=doc.get("persona") if isinstance(doc.get("persona"), dict) else {},
            mind=mind,
            desk=desk,
            dismissed=bool(doc.get("dismissed")),
        )


@dataclass
class RunLog:
    """Everything a run directory holds, read at one moment."""

    path: Path
    state: dict[str, Any]
    messages: list[dict[str, Any]] = field(default_factory=list)
    thoughts: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] | None = None

    @classmethod
    def open(cls, path: str | Path) -> RunLog:
        """Read a run directory; RunLogError (one line) for anything that is not a readable run."""
        try:
            rundir = RunDir.open_existing(path)
            with StateStore(rundir.state_path) as store:
                state = store.load()
            if state is None:
                raise RunLogError(f"{rundir.path}: state.json holds no saved state yet")
            messages, thoughts = (read_log(p) for p in (rundir.messages_path, rundir.thoughts_path))
            summary = rundir.read_summary()
        except RunLogError:
            raise
        except ValueError as exc:  # RunDirError, StateError, JsonlError, bad JSON: all one line already
            raise RunLogError(str(exc).splitlines()[0]) from None
        except OSError as exc:
            raise RunLogError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        return cls(Path(path), state, messages, thoughts, summary if isinstance(summary, dict) else None)

    @classmethod
    def open_state(cls, path: str | Path) -> RunLog:
        """Only state.json (the logs left empty): cheap to read again while a run goes on."""
        try:
            rundir = RunDir.open_existing(path)
            with StateStore(rundir.state_path) as store:
                state = store.load()
        except ValueError as exc:
            raise RunLogError(str(exc).splitlines()[0]) from None
        except OSError as exc:
            raise RunLogError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        return cls(Path(path), state if isinstance(state, dict) else {})

    # ------------------------------------------------------------------ the state

    @property
    def office(self) -> dict[str, Any]:
        office = self.state.get("office")
        return office if isinstance(office, dict) else {}

    @property
    def format(self) -> int:
        """The state's format: 2 and later log what each thought applied."""
        version = self.office.get("format_version")
        return version if isinstance(version, int) else 1

    @property
    def has_applied(self) -> bool:
        return self.format >= 2 and all("applied" in t for t in self.thoughts)

    @property
    def employees(self) -> list[EmployeeRecord]:
        return [EmployeeRecord.from_document(d) for d in _documents(self.state.get("employees"))]

    @property
    def conversations(self) -> list[dict[str, Any]]:
        return _documents(self.state.get("conversations"))

    @property
    def names(self) -> dict[str, str]:
        return {e.id: e.name for e in self.employees}

    @property
    def company(self) -> str:
        """The company's name: a string in state.json, or the name of an organization record."""
        for value in (self.office.get("company"), (self.office.get("scenario") or {}).get("company")):
            if isinstance(value, dict):
                value = value.get("name")
            if isinstance(value, str) and value:
                return value
        return ""

    @property
    def start(self) -> datetime:
        if self.office.get("start"):
            return _dt(self.office["start"])
        ats = [_dt(r["at"]) for r in (*self.thoughts, *self.messages) if r.get("at")]
        return min(ats, default=_dt(self.office.get("now") or "2000-01-01T00:00:00"))

    @property
    def end(self) -> datetime:
        """The last simulated moment known: the clock at the last checkpoint, the summary, or a log."""
        ats = [_dt(r["at"]) for r in (*self.thoughts, *self.messages) if r.get("at")]
        if self.office.get("now"):
            ats.append(_dt(self.office["now"]))
        if self.summary and self.summary.get("simulated_end"):
            ats.append(_dt(self.summary["simulated_end"]))
        return max(ats, default=self.start)

    @property
    def complete(self) -> bool:
        """Whether the run ended with its summary written (not killed, not still running)."""
        return self.summary is not None

    def messages_by_id(self) -> dict[str, dict[str, Any]]:
        return {str(m.get("id")): m for m in self.messages}


def read_log(path: str | Path) -> list[dict[str, Any]]:
    """Every complete record of a JSONL log ([] if it does not exist yet; a torn last line is skipped)."""
    return jsonl.read(path) if Path(path).exists() else []


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value)


def applied_at(record: dict[str, Any], think_seconds: float = 5.0) -> datetime:
    """When a logged thought landed (`applied.at`; older records: its start plus a think's length)."""
    at = (record.get("applied") or {}).get("at")
    if at:
        return _dt(at)
    return _dt(record["at"]) + timedelta(seconds=think_seconds)


class Tail:
    """Reads the complete lines appended to a JSON Lines log since the last `poll()` (a run going on).

    Only bytes up to the last newline are consumed: a torn last line (still being written) is read
    again, whole, on a later poll. A complete line that is not JSON is held back while it is the
    last one (a killed run's tail, cut on resume) and is an error once lines follow it.
    """

    def __init__(self, path: str | Path, offset: int = 0) -> None:
        self.path = Path(path)
        self.offset = offset
        self.line = 0  # lines consumed, for error messages

    def poll(self) -> list[dict[str, Any]]:
        try:
            with open(self.path, "rb") as f:
                f.seek(self.offset)
                data = f.read()
        except FileNotFoundError:
            return []
        lines = data[: data.rfind(b"\n") + 1].split(b"\n")[:-1]
        out: list[dict[str, Any]] = []
        for i, raw in enumerate(lines):
            try:
                rec = safejson.loads(raw) if raw.strip() else None  # bounded: never a RecursionError
            except ValueError:
                rec = False
            if rec is False or (rec is not None and not isinstance(rec, dict)):
                if i == len(lines) - 1:
                    break
                raise jsonl.JsonlError(f"{self.path}: line {self.line + 1} is not valid JSON")
            self.offset += len(raw) + 1
            self.line += 1
            if rec is not None:
                out.append(rec)
        return out
