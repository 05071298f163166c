"""The one reader of a run directory: state.json, messages.jsonl, thoughts.jsonl, changes.jsonl and summary.json.

The CLI (`inspect`, `report`, `chat`), the Python API, `ideaco.analysis` and the notebooks read a
run through `RunLog`: one place that knows the files, their formats (state format 1 kept a
thought's changes at the top of each employee, format 2 keeps them under `mind`; only format 2's
thought records carry `applied`; changes.jsonl holds what changed between thoughts) and what a
damaged directory looks like (one line, `RunLogError`). `landed()` is every change in the order
it landed: the thoughts' `applied` and the changes between them.
Reading never writes and never takes the run's lock: it is safe while a run goes on.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from datetime import time as clock_time
from pathlib import Path
from typing import Any

from ideaco import safejson
from ideaco.bounds import MAX_DURATION
from ideaco.ids import SECRETARY
from ideaco.scenario import parse_duration
from ideaco.store import jsonl, schema
from ideaco.store.rundir import RunDir
from ideaco.store.state import StateStore

DESK_KEYS = ("cursors", "wake_at", "wake_triggers", "phase", "deferred_triggers", "held_until", "inflight")
APPLIED_FROM = (
    2  # the first office format (office.format_version) whose thoughts.jsonl records carry `applied`
)
MIND_KEYS = ("memory", "relationships", "tasks", "stamina", "interest", "saturation", "notes", "escalated")


class RunLogError(ValueError):
    """A directory that cannot be read as a run; `str()` is one line naming it."""


MOMENT_FORMS = "HH:MM, HH:MM:SS or an ISO date-time"


def parse_moment(text: str, first_day: date) -> datetime:
    """A simulated moment a user names (`inspect --since`, `interview --at`): `HH:MM` or `HH:MM:SS`
    on the run's first day, or a full ISO date-time (its time zone dropped); ValueError if neither."""
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?::(\d{2}))?", text.strip())
    if m:
        return datetime.combine(first_day, clock_time(int(m[1]), int(m[2]), int(m[3] or 0)))
    return datetime.fromisoformat(text.strip()).replace(tzinfo=None)


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
    changes: list[dict[str, Any]] = field(
        default_factory=list
    )  # changes.jsonl (office/resolve/change_log.py)
    warnings: list[str] = field(default_factory=list)  # one line each: lines skipped, a foreign state

    @classmethod
    def open(cls, path: str | Path) -> RunLog:
        """Read a run directory; RunLogError (one line) for anything that is not a readable run.

        Lines that are no records, or dated outside the run's span (`span`), are skipped with a
        warning each (`warnings`), as is a state.json from another run."""
        try:
            rundir = RunDir.open_existing(path)
            with StateStore(rundir.state_path) as store:
                state = store.load()
            if state is None:
                raise RunLogError(f"{rundir.path}: state.json holds no saved state yet")
            warnings: list[str] = []
            summary = read_summary(rundir, warnings)
            within = span(state, summary)
            messages, thoughts, changes = (
                read_log(p, warnings, within)
                for p in (rundir.messages_path, rundir.thoughts_path, rundir.changes_path)
            )
        except RunLogError:
            raise
        except ValueError as exc:  # RunDirError, StateError, JsonlError, bad JSON: all one line already
            raise RunLogError(str(exc).splitlines()[0]) from None
        except OSError as exc:
            raise RunLogError(f"{path}: cannot be read ({exc.strerror or exc})") from None
        run = cls(Path(path), state, messages, thoughts, summary, changes=changes)
        run.warnings = warnings + run._strangers()
        return run

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

    def _strangers(self) -> list[str]:
        found = foreign_state(self.state, self.thoughts, RunDir(self.path).state_path)
        return [found] if found else []

    # ------------------------------------------------------------------ the state

    @property
    def office(self) -> dict[str, Any]:
        office = self.state.get("office")
        return office if isinstance(office, dict) else {}

    @property
    def format(self) -> int:
        """The office's format in state.json (office.format_version): APPLIED_FROM and later log what
        each thought applied."""
        version = self.office.get("format_version")
        return version if isinstance(version, int) else 1

    @property
    def has_applied(self) -> bool:
        return self.format >= APPLIED_FROM and all(isinstance(t.get("applied"), dict) for t in self.thoughts)

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
    def teams(self) -> list[dict[str, Any]]:
        """The teams as state.json last saved them: department, id, name, members (issue 20)."""
        org = self.office.get("organization")
        departments = org.get("departments") if isinstance(org, dict) else None
        out = []
        for dept in departments if isinstance(departments, list) else []:
            teams = dept.get("teams") if isinstance(dept, dict) else None
            for team in teams if isinstance(teams, list) else []:
                if isinstance(team, dict) and isinstance(team.get("id"), str):
                    members = team.get("members") if isinstance(team.get("members"), list) else []
                    out.append(
                        {
                            "department": str(dept.get("id") or ""),
                            "id": team["id"],
                            "name": str(team.get("name") or team["id"]),
                            "members": [m for m in members if isinstance(m, str)],
                        }
                    )
        return out

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

    def landed(self, think_seconds: float = 5.0) -> list[Landed]:
        """Every logged change in the order it landed: each thought (at `applied.at`) and each line
        of changes.jsonl (at its `at`; a think begun whose thought is logged is that thought's)."""
        logged = {t.get("id") for t in self.thoughts}
        out = [Landed(applied_at(t, think_seconds), 0, n, t) for n, t in enumerate(self.thoughts)]
        for n, c in enumerate(self.changes):
            if c.get("cause") != "begun" or c.get("thought") not in logged:
                out.append(Landed(_dt(c["at"]), 1, n, c))
        return sorted(out, key=lambda e: (e.at, e.kind, e.n))


@dataclass(frozen=True)
class Landed:
    """One logged change: a thought's record (`kind` 0) or a line of changes.jsonl (1)."""

    at: datetime
    kind: int
    n: int
    record: dict[str, Any]

    @property
    def thought(self) -> bool:
        return self.kind == 0


def read_summary(rundir: RunDir, warnings: list[str] | None = None) -> dict[str, Any] | None:
    """summary.json, or None: not written yet, or not a JSON object (then a line in `warnings`)."""
    try:
        summary = rundir.read_summary()
    except (ValueError, OSError) as exc:
        summary = exc
    if summary is None or isinstance(summary, dict):
        return summary
    if warnings is not None:
        what = "cannot be read" if isinstance(summary, Exception) else "is not a JSON object"
        warnings.append(f"{rundir.summary_path} {what}, ignored")
    return None


def span(state: dict[str, Any], summary: dict[str, Any] | None) -> tuple[datetime, datetime] | None:
    """When a run's records can be: from its start to the last moment its engine wrote down (its
    clock, its planned end, its summary's end) plus one length of its scenario (a killed
    continuation's logs run past its last save). None if state.json says too little to tell."""
    office = state.get("office") if isinstance(state.get("office"), dict) else {}
    scenario = office.get("scenario") if isinstance(office.get("scenario"), dict) else {}
    start = _moment(office.get("start"))
    ends = [_moment(office.get("now")), _moment(office.get("end_at"))]
    ends.append(_moment((summary if isinstance(summary, dict) else {}).get("simulated_end")))
    known = [e for e in ends if e is not None]
    try:
        length = parse_duration(scenario.get("duration", "0s"))
    except ValueError:
        length = MAX_DURATION
    if start is None or not known:
        return None
    try:
        return start, max(known) + length
    except OverflowError:  # a clock past what dates hold: the resume refuses it in its own words
        return None


def foreign_state(state: dict[str, Any], thoughts: list[dict[str, Any]], where: Any) -> str | None:
    """One line if the state `where` is from another run than these logs: none of the people who
    think in them is in it (the secretary, whom every company has, aside; a state that lags behind
    its logs may miss some, a hire after its last save, never all)."""
    employees = state.get("employees")
    known = {str(e.get("id")) for e in _documents(employees)} - {SECRETARY}
    named = {str(t.get("employee")) for t in thoughts} - {SECRETARY}
    if not known or not named or known & named:
        return None
    office = state.get("office") if isinstance(state.get("office"), dict) else {}
    scenario = office.get("scenario") if isinstance(office.get("scenario"), dict) else {}
    which = f"scenario {scenario.get('name')!r}" if scenario.get("name") else "another scenario"
    people = ", ".join(sorted(named)[:5]) + (", ..." if len(named) > 5 else "")
    return f"{where} is from another run ({which}): none of the people in its logs ({people}) is in it"


def _moment(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value).replace(tzinfo=None) if isinstance(value, str) else None
    except ValueError:
        return None


def read_log(
    path: str | Path,
    warnings: list[str] | None = None,
    within: tuple[datetime, datetime] | None = None,
    lines: list[int] | None = None,
) -> list[dict[str, Any]]:
    """Every complete record of a JSONL log ([] if it does not exist yet; a torn last line is skipped).

    A line of messages.jsonl or thoughts.jsonl that is valid JSON but no record (`store.schema`),
    or one dated outside `within` (the run's `span`), is skipped with a one-line warning appended
    to `warnings`; without `warnings` (a writer about to continue the run) such a line is refused:
    RunLogError naming the file and the line. `lines` gets each record's line number.
    """
    if not Path(path).exists():
        return []
    out: list[dict[str, Any]] = []
    for n, record in jsonl.read_numbered(path):
        problem = schema.problem(Path(path).name, record)
        if problem is None and within is not None:
            at = datetime.fromisoformat(record["at"]).replace(tzinfo=None)
            if not within[0] <= at <= within[1]:
                problem = f"dated {record['at']}, outside the run ({within[0]:%Y-%m-%d %H:%M} to {within[1]:%Y-%m-%d %H:%M})"
        if problem is None:
            out.append(record)
            if lines is not None:
                lines.append(n)
        elif warnings is None:
            raise RunLogError(f"{path}: line {n} is {problem}; remove or mend that line to continue this run")
        else:
            warnings.append(f"{path}: line {n} is {problem}, skipped")
    return out


def _dt(value: str) -> datetime:
    return datetime.fromisoformat(value)


def applied_at(record: dict[str, Any], think_seconds: float = 5.0) -> datetime:
    """When a logged thought landed (`applied.at`; older records: its start plus a think's length)."""
    at = (record.get("applied") or {}).get("at")
    if at:
        return _dt(at)
    return _dt(record["at"]) + timedelta(seconds=think_seconds)


_BLANK = object()  # a blank line in a log: nothing to read, nothing to warn of


class Tail:
    """Reads the complete lines appended to a JSON Lines log since the last `poll()` (a run going on).

    Only bytes up to the last newline are consumed: a torn last line (still being written) is read
    again, whole, on a later poll. A complete line that is not JSON is held back while it is the
    last one (a killed run's tail, cut on resume) and is an error once lines follow it. Valid JSON
    that is no record (`store.schema`) is skipped, with a line in `warnings`.
    """

    def __init__(self, path: str | Path, offset: int = 0) -> None:
        self.path = Path(path)
        self.offset = offset
        self.line = 0  # lines consumed, for error messages
        self.warnings: list[str] = []  # lines skipped, one line each (the reader prints and clears them)

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
                rec = safejson.loads(raw) if raw.strip() else _BLANK  # bounded: never a RecursionError
            except ValueError:
                rec = False
            if rec is False:
                if i == len(lines) - 1:
                    break
                raise jsonl.JsonlError(f"{self.path}: line {self.line + 1} is not valid JSON")
            self.offset += len(raw) + 1
            self.line += 1
            problem = None if rec is _BLANK else schema.problem(self.path.name, rec)
            if problem is not None:
                self.warnings.append(f"{self.path}: line {self.line} is {problem}, skipped")
            elif rec is not _BLANK:
                out.append(rec)
        return out
