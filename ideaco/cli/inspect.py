"""`ideaco inspect RUNDIR`: the inner monologues, and why each employee spoke or kept quiet.

Like Concordia's `concordia-log`: a human timeline by default, one JSON document with `--json`.
`--follow` tails a live run's thoughts.jsonl. Agent text is always shown literally (see display.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from ideaco import reviews
from ideaco.cli.display import PALETTE, cli_console, safe_text
from ideaco.cli.errors import UserError, warn
from ideaco.cli.timeline import _at, render, render_change
from ideaco.cycle import Gate
from ideaco.ids import BOSS, SYSTEM, display_name, resolve_id
from ideaco.store.forks import read_fork
from ideaco.store.jsonl import JsonlError
from ideaco.store.lock import writer_alive
from ideaco.store.rundir import RunDir, RunDirError
from ideaco.store.runlog import MOMENT_FORMS, RunLog, RunLogError, Tail, foreign_state, parse_moment

GATES = tuple(g.value for g in Gate)
SPOKE = "spoke"  # --gate spoke: the thoughts that were said
POLL_S = 0.5
_sleep = time.sleep  # the follow loop's wait; tests replace it to drive `inspect --follow`


@dataclass(frozen=True)
class InspectOptions:
    rundir: Path
    employee: str | None = None
    conversation: str | None = None
    gate: str | None = None
    since: str | None = None
    follow: bool = False
    as_json: bool = False
    compact: bool = False  # --json on one line (followed thoughts are always one line each)
    docs: bool = False  # the workspace's history instead of the thoughts (issue 20)


# ---------------------------------------------------------------------------- reading a growing log


JsonlTail = Tail  # the reader of a growing log lives with the run's other readers


def follow(
    source: str | Path | JsonlTail,
    on_record: Callable[[dict[str, Any]], None],
    stop: Callable[[], bool],
    poll_s: float = POLL_S,
) -> int:
    """Call `on_record` for each record appended to a log (a path, or a tail already part-read)
    until `stop()` holds after a poll; return the offset reached."""
    tail = source if isinstance(source, JsonlTail) else JsonlTail(source)
    while True:
        for record in tail.poll():
            on_record(record)
        warn(tail.warnings)
        tail.warnings.clear()
        if stop():
            return tail.offset
        _sleep(poll_s)


# ---------------------------------------------------------------------------- the run being inspected


class RunView:
    """What the timeline needs besides the thoughts: names, colours, messages, the first day."""

    def __init__(self, rundir: RunDir) -> None:
        self.rundir = rundir
        self.names: dict[str, str] = {}
        self.conversations: dict[str, str] = {}
        self.first_day: date | None = None
        self.company = ""
        self.messages: dict[str, dict[str, Any]] = {}
        self.holds: dict[str, dict[str, Any]] = {}  # employee -> its hold, as state.json last saved it
        self.teams: list[dict[str, Any]] = []  # as state.json last saved them
        self.state: dict[str, Any] = {}  # state.json as last read
        self._colours: dict[str, str] = {}
        self._messages_tail = JsonlTail(rundir.messages_path)
        self._load_state()
        self.poll_messages()

    @classmethod
    def open(cls, path: Path) -> RunView:
        try:
            rundir = RunDir.open_existing(path)
        except RunDirError as exc:
            raise UserError(str(exc)) from None
        if not rundir.thoughts_path.is_file():
            raise UserError(f"{rundir.path} has no thoughts.jsonl: no thought was logged in this run yet")
        return cls(rundir)

    def _load_state(self) -> None:
        try:
            run = RunLog.open_state(self.rundir.path)
        except RunLogError as exc:
            raise UserError(str(exc)) from None
        self.company, self.teams, self.state = run.company, run.teams, run.state
        if run.office.get("start"):
            with contextlib.suppress(TypeError, ValueError):
                self.first_day = run.start.date()
        self.holds = {}
        for emp in run.employees:
            self.names[emp.id] = emp.name
            if isinstance(emp.desk.get("hold"), dict):
                self.holds[emp.id] = emp.desk["hold"]
        for conv in run.conversations:
            self.conversations[str(conv.get("id"))] = str(conv.get("name") or conv.get("id"))

    def poll_messages(self) -> None:
        try:
            records = self._messages_tail.poll()
        except JsonlError as exc:  # a garbled line before others: one line, as every reader says it
            raise UserError(str(exc)) from None
        warn(self._messages_tail.warnings)
        self._messages_tail.warnings.clear()
        for rec in records:
            self.messages.setdefault(str(rec.get("id")), rec)
            sender = rec.get("sender")
            if sender not in (BOSS, SYSTEM, None):
                self.colour(sender)  # assigned in order of first speech, as in the run's transcript
            self.conversations.setdefault(str(rec.get("conversation")), str(rec.get("conversation")))

    def see(self, record: dict[str, Any]) -> None:
        """Learn an employee or conversation that only the thoughts mention."""
        emp, conv = record.get("employee"), record.get("conversation")
        if emp is not None and str(emp) not in self.names:
            self._load_state()  # hired after the run started: state.json has been checkpointed since
            self.names.setdefault(str(emp), str(emp))
        if conv is not None:
            self.conversations.setdefault(str(conv), str(conv))
        if self.first_day is None and record.get("at"):
            self.first_day = _at(record["at"]).date()

    def name_of(self, emp: str) -> str:
        return display_name(emp, self.names.get(emp))

    def colour(self, emp: str) -> str:
        if emp not in self._colours:
            self._colours[emp] = PALETTE[len(self._colours) % len(PALETTE)]
        return self._colours[emp]

    def posted(self, record: dict[str, Any]) -> list[dict[str, Any]]:
        """The message records a thought posted (its `messages` ids), in order."""
        ids = [str(i) for i in record.get("messages") or []]
        if any(i not in self.messages for i in ids):
            self.poll_messages()  # a live run writes the message just before its thought
        return [self.messages[i] for i in ids if i in self.messages]


# ---------------------------------------------------------------------------- filters


@dataclass(frozen=True)
class Filters:
    employee: str | None = None
    conversation: str | None = None
    gate: str | None = None
    since: datetime | None = None

    def matches(self, record: dict[str, Any]) -> bool:
        if self.employee is not None and record.get("employee") != self.employee:
            return False
        if self.conversation is not None and record.get("conversation") != self.conversation:
            return False
        if self.gate == SPOKE and not record.get("spoke"):
            return False
        if self.gate not in (None, SPOKE) and record.get("gate") != self.gate:
            return False
        return self.since is None or _at(record.get("at") or "") >= self.since

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "since": self.since.isoformat() if self.since else None}


def parse_since(text: str, first_day: date | None) -> datetime:
    """`HH:MM` or `HH:MM:SS` on the run's first day, or a full ISO date-time."""
    try:
        return parse_moment(text, first_day or date.today())
    except ValueError:
        raise UserError(f"--since {text!r}: give {MOMENT_FORMS}") from None


def _resolve(flag: str, text: str, known: dict[str, str], what: str) -> str:
    """An id given by id, or by id or name in any case (`ids.resolve_id`); UserError naming what exists."""
    found = resolve_id(text, known)
    if isinstance(found, str):
        return found
    if found:
        raise UserError(f"{flag} {text!r} is ambiguous: {', '.join(sorted(found))}")
    listed = ", ".join(i if name == i else f"{i} ({name})" for i, name in sorted(known.items())) or "none"
    raise UserError(f"{flag} {text!r} is not {what} of this run (known: {listed})")


def resolve_filters(options: InspectOptions, view: RunView) -> Filters:
    gate = options.gate.strip().lower() if options.gate is not None else None
    if gate is not None and gate not in (*GATES, SPOKE):
        raise UserError(f"--gate {options.gate!r} is not a gate (valid: {', '.join((*GATES, SPOKE))})")
    return Filters(
        employee=_resolve("--employee", options.employee, view.names, "an employee")
        if options.employee is not None
        else None,
        conversation=_resolve("--conversation", options.conversation, view.conversations, "a conversation")
        if options.conversation is not None
        else None,
        gate=gate,
        since=parse_since(options.since, view.first_day) if options.since is not None else None,
    )


# ---------------------------------------------------------------------------- output


def enrich(record: dict[str, Any], view: RunView) -> dict[str, Any]:
    """The record as logged, plus `employee_name` and the `posted` message records."""
    emp = str(record.get("employee"))
    return {**record, "employee_name": view.name_of(emp), "posted": view.posted(record)}


def _changes(view: RunView) -> list[dict[str, Any]]:
    """changes.jsonl (what changed between thoughts), as far as it is written."""
    tail = JsonlTail(view.rundir.changes_path)
    try:
        changes = tail.poll()
    except JsonlError as exc:
        raise UserError(str(exc)) from None
    warn(tail.warnings)
    return changes


def _in_place(thoughts: list[dict[str, Any]], changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The thoughts in their log's order, each change before the first thought begun after it."""
    out, pending = [], sorted(changes, key=lambda c: _at(c["at"]))
    for thought in thoughts:
        while pending and _at(pending[0]["at"]) <= _at(thought["at"]):
            out.append(pending.pop(0))
        out.append(thought)
    return out + pending


def hold_lines(view: RunView) -> list[Text]:
    """Who the boss has on hold (as state.json last saved it): they take no thinks until released."""
    lines = []
    for emp, hold in sorted(view.holds.items()):
        since = str(hold.get("since") or "?")[11:19]
        reason = f": {hold['reason']}" if hold.get("reason") else ""
        lines.append(
            Text(safe_text(f"on hold: {view.name_of(emp)} ({emp}) since {since}{reason}"), style="yellow")
        )
    return lines


def team_lines(view: RunView) -> list[Text]:
    """The departments' teams (as state.json last saved them), each with its work room's members."""
    return [
        Text(
            safe_text(f"team {t['id']} ({t['name']}) in {t['department']}: {', '.join(t['members'])}"),
            style="dim",
        )
        for t in view.teams
    ]


# ---------------------------------------------------------------------------- the command


def _write_line(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def document_history(events: list[reviews.DocumentEvent]) -> list[dict[str, Any]]:
    """Each document step (`reviews.history`): when, who, which tool and what it did, the version
    and the review after it."""
    return [
        {
            "at": e.record.get("at"),
            "thought": e.record.get("id"),
            "employee": e.record.get("employee"),
            "tool": e.tool,
            "what": e.what,
            "document": e.key,
            "version": e.version,
            "versions": e.count,
            "review": e.review.get("status"),
            "rejections": e.review.get("round", 0),
        }
        for e in events
    ]


def _documents(
    records: list[dict[str, Any]], filters: Filters, options: InspectOptions, console: Console
) -> int:
    # Rebuilt from every thought (a step logs only what it changed), then filtered.
    history = document_history([e for e in reviews.history(records) if filters.matches(e.record)])
    if options.as_json:
        document = {"run": str(options.rundir), "documents": reviews.documents(records), "history": history}
        _write_line(json.dumps(document, ensure_ascii=True, indent=None if options.compact else 2))
        return 0
    console.print(Text(f"{len(history)} document changes", style="bold"))
    for row in history:
        at = str(row["at"] or "")[11:19]
        review = f" · review {row['review']}, rejections {row['rejections']}" if row["review"] else ""
        line = f"{at} {row['employee']} {row['tool']} {row['document']} · {row['what']}"
        console.print(Text(safe_text(f"{line} · version {row['version']}{review}")))
    return 0


def inspect_command(options: InspectOptions, console: Console | None = None) -> int:
    """Print the (filtered) timeline or JSON; with `follow`, keep printing until Ctrl-C. Returns the exit code."""
    view = RunView.open(options.rundir)
    thoughts = JsonlTail(view.rundir.thoughts_path)
    try:
        records = thoughts.poll()
    except JsonlError as exc:
        raise UserError(str(exc)) from None
    foreign = foreign_state(view.state, records, view.rundir.state_path)
    warn([*thoughts.warnings, *([foreign] if foreign else [])])
    thoughts.warnings.clear()
    for record in records:
        view.see(record)
    filters = resolve_filters(options, view)
    shown = [r for r in records if filters.matches(r)]
    logged = {r.get("id") for r in records}  # a think begun and logged since: its thought says it
    changes = [
        c
        for c in (_changes(view) if filters.gate is None else [])
        if filters.matches(c) and not (c.get("cause") == "begun" and c.get("thought") in logged)
    ]
    console = console or cli_console()
    if options.docs:
        return _documents(records, filters, options, console)

    def emit(record: dict[str, Any]) -> None:
        if options.as_json:
            _write_line(json.dumps(enrich(record, view), ensure_ascii=True))
        else:
            console.print(render(record, view))

    try:
        if options.as_json and not options.follow:
            document = {
                "run": str(view.rundir.path),
                "fork": fork.to_dict() if (fork := read_fork(view.rundir.path)) is not None else None,
                "filters": filters.to_json(),
                "holds": view.holds,
                "teams": view.teams,
                "thoughts": [enrich(r, view) for r in shown],
                "changes": changes,  # between thoughts (changes.jsonl)
            }
            _write_line(json.dumps(document, ensure_ascii=True, indent=None if options.compact else 2))
            return 0
        if not options.as_json:
            title = [f"{len(shown)} of {len(records)} thoughts", view.company, str(view.rundir.path)]
            console.print(Text(safe_text(" · ".join(t for t in title if t)), style="bold"))
            if (fork := read_fork(view.rundir.path)) is not None:
                console.print(Text(safe_text(f"This run is {fork.describe()}."), style="dim"))
            for line in hold_lines(view) + team_lines(view):
                console.print(line)
        if options.as_json or options.follow:
            for record in shown:
                emit(record)
        else:  # the changes between thoughts in their place: together, what state.json holds
            for record in _in_place(shown, changes):
                console.print(render_change(record, view) if "cause" in record else render(record, view))
        if not options.follow:
            return 0
        if not options.as_json:
            console.print(Text("following new thoughts (Ctrl-C to stop)", style="dim"))

        gone = [0]  # polls in a row that found no process writing the run

        def ended() -> bool:
            # Nothing more will come: summary.json written and no process writing, or no process
            # writing at two polls in a row (a run killed before its end never writes a summary).
            gone[0] = 0 if writer_alive(view.rundir.path) else gone[0] + 1
            return gone[0] > 0 and (view.rundir.summary_path.exists() or gone[0] > 1)

        def on_record(record: dict[str, Any]) -> None:
            view.see(record)
            if filters.matches(record):
                emit(record)

        try:
            follow(thoughts, on_record, ended)
        except KeyboardInterrupt:
            return 0
        except JsonlError as exc:
            raise UserError(str(exc)) from None
        done = (
            "the run has ended (summary.json written, no process writing it): stopped following"
            if view.rundir.summary_path.exists()
            else "no process is writing the run, and it has no summary.json (it was stopped or killed "
            f"before its end): stopped following; ideaco run --resume {view.rundir.path} continues it"
        )
        if options.as_json:
            sys.stderr.write(done + "\n")  # stdout stays JSON Lines
        else:
            console.print(Text(done, style="dim"))
    except BrokenPipeError:  # `ideaco inspect RUN | head`: the reader has seen enough
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return 0
