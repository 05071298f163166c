"""`ideaco inspect RUNDIR`: the inner monologues, and why each employee spoke or kept quiet.

Like Concordia's `concordia-log`: a human timeline by default, one JSON document with `--json`.
`--follow` tails a live run's thoughts.jsonl. Agent text is always shown literally (see display.py).
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import date, datetime
from datetime import time as clock_time
from pathlib import Path
from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from ideaco.cli.display import PALETTE, safe_text
from ideaco.cli.errors import UserError
from ideaco.office.conversation import BOSS, SYSTEM
from ideaco.store.jsonl import JsonlError
from ideaco.store.rundir import RunDir, RunDirError
from ideaco.store.state import StateError, StateStore

GATES = tuple("chose_silence saturation anti_spam cooldown loop_breaker superseded budget error".split())
SPOKE = "spoke"  # --gate spoke: the thoughts that were said
POLL_S = 0.5
_sleep = time.sleep  # the follow loop's wait; tests replace it to drive `inspect --follow`
CLIP = 160  # ops are shown in compact form; thoughts, messages and reasons in full


@dataclass(frozen=True)
class InspectOptions:
    rundir: Path
    employee: str | None = None
    conversation: str | None = None
    gate: str | None = None
    since: str | None = None
    follow: bool = False
    as_json: bool = False


# ---------------------------------------------------------------------------- reading a growing log


class JsonlTail:
    """Reads the complete lines appended to a JSON Lines file since the last `poll()`.

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
                rec = json.loads(raw) if raw.strip() else None
            except ValueError:
                rec = False
            if rec is False or (rec is not None and not isinstance(rec, dict)):
                if i == len(lines) - 1:
                    break
                raise JsonlError(f"{self.path}: line {self.line + 1} is not valid JSON")
            self.offset += len(raw) + 1
            self.line += 1
            if rec is not None:
                out.append(rec)
        return out


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
        if stop():
            return tail.offset
        _sleep(poll_s)


# ---------------------------------------------------------------------------- the run being inspected


def _documents(table: Any) -> list[dict[str, Any]]:
    """A state table as documents (older snapshots kept a mapping id -> document)."""
    if isinstance(table, dict):
        return [d for d in table.values() if isinstance(d, dict)]
    return [d for d in table or [] if isinstance(d, dict)]


class RunView:
    """What the timeline needs besides the thoughts: names, colours, messages, the first day."""

    def __init__(self, rundir: RunDir) -> None:
        self.rundir = rundir
        self.names: dict[str, str] = {}
        self.conversations: dict[str, str] = {}
        self.first_day: date | None = None
        self.company = ""
        self.messages: dict[str, dict[str, Any]] = {}
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
        store = StateStore(self.rundir.state_path)
        try:
            state = store.load() or {}
        except StateError as exc:
            raise UserError(str(exc)) from None
        finally:
            store.close()
        office = state.get("office") if isinstance(state.get("office"), dict) else {}
        self.company = str(office.get("company") or "")
        try:
            self.first_day = datetime.fromisoformat(office["start"]).date()
        except (KeyError, TypeError, ValueError):
            pass
        for emp in _documents(state.get("employees")):
            self.names[str(emp.get("id"))] = str(emp.get("name") or emp.get("id"))
        for conv in _documents(state.get("conversations")):
            self.conversations[str(conv.get("id"))] = str(conv.get("name") or conv.get("id"))

    def poll_messages(self) -> None:
        for rec in self._messages_tail.poll():
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
        return self.names.get(emp, emp)

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


def _at(text: str) -> datetime:
    """A record's simulated time; the simulated clock is naive, so any offset is dropped."""
    try:
        return datetime.fromisoformat(text).replace(tzinfo=None)
    except (TypeError, ValueError):
        return datetime.min


def parse_since(text: str, first_day: date | None) -> datetime:
    """`HH:MM` or `HH:MM:SS` on the run's first day, or a full ISO date-time."""
    m = re.fullmatch(r"(\d{1,2}):(\d{2})(?::(\d{2}))?", text.strip())
    try:
        if m:
            moment = clock_time(int(m[1]), int(m[2]), int(m[3] or 0))
            return datetime.combine(first_day or date.today(), moment)
        return datetime.fromisoformat(text.strip()).replace(tzinfo=None)
    except ValueError:
        raise UserError(f"--since {text!r}: give HH:MM, HH:MM:SS or an ISO date-time") from None


def _resolve(flag: str, text: str, known: dict[str, str], what: str) -> str:
    """An id given by id, or by id or name in any case; UserError naming what exists."""
    if text in known:
        return text
    folded = text.casefold()
    hits = [i for i, name in known.items() if folded in (i.casefold(), name.casefold())]
    if len(hits) == 1:
        return hits[0]
    if hits:
        raise UserError(f"{flag} {text!r} is ambiguous: {', '.join(sorted(hits))}")
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


def _clip(text: Any, limit: int = CLIP) -> str:
    text = safe_text(str(text)).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _when(text: str | None, view: RunView) -> str:
    moment = _at(text or "")
    if moment == datetime.min:
        return safe_text(str(text))
    return moment.strftime("%H:%M:%S" if moment.date() == view.first_day else "%Y-%m-%d %H:%M:%S")


def _op_lines(thought: dict[str, Any], view: RunView) -> Iterable[tuple[str, list[str]]]:
    """(label, lines) for each kind of op the thought asked for, in compact form."""
    memory = []
    for op in thought.get("memoryOps") or []:
        kind = op.get("op")
        if kind == "add":
            layer = "long" if op.get("type") == "long_term" else "short"
            ttl = f" ttl {op['ttl']}s" if op.get("ttl") else ""
            imp = f" ({op['importance']})" if op.get("importance") is not None else ""
            memory.append(f"+ {layer} {op.get('category')}{imp}{ttl}: {_clip(op.get('content'))}")
        elif kind == "update":
            imp = f" ({op['importance']})" if op.get("importance") is not None else ""
            memory.append(f"~ {_clip(op.get('id'), 40)}{imp}: {_clip(op.get('content') or '')}")
        else:
            memory.append(f"- {_clip(op.get('id'), 40)}")
    people = []
    for op in thought.get("relationshipOps") or []:
        emp = str(op.get("employeeId"))
        who = op.get("name") or view.names.get(emp) or emp
        people.append(f"{_clip(who, 40)} {op.get('affinity')}/100: {_clip(op.get('impression') or '')}")
    tasks = []
    for op in thought.get("taskOps") or []:
        kind = op.get("op")
        if kind == "create":
            extra = "".join(
                f" {label}{_clip(op[key], 40)}"
                for key, label in (("claimKey", "claim "), ("onResolveTarget", "→ "), ("condition", "if "))
                if op.get(key)
            )
            tasks.append(f"+ {op.get('type')}{extra}: {_clip(op.get('description') or '')}")
        else:
            mark = "✓" if kind == "resolve" else "✗"
            why = op.get("result") if kind == "resolve" else op.get("reason")
            tasks.append(f"{mark} {kind} {_clip(op.get('taskId'), 40)}: {_clip(why or '')}")
    actions = []
    for act in thought.get("actions") or []:
        args = act.get("args") or {}
        if "to" in args and "content" in args:
            rest = {k: v for k, v in args.items() if k not in ("to", "content")}
            more = f" {_clip(json.dumps(rest, ensure_ascii=False), 60)}" if rest else ""
            actions.append(
                f"{_clip(act.get('tool'), 40)} → {_clip(args['to'], 40)}{more}: {_clip(args['content'])}"
            )
        else:
            actions.append(f"{_clip(act.get('tool'), 40)} {_clip(json.dumps(args, ensure_ascii=False))}")
    summary = [_clip(thought["memorySummary"], 2 * CLIP)] if thought.get("memorySummary") else []
    for label, lines in (
        ("memory", memory),
        ("people", people),
        ("tasks", tasks),
        ("actions", actions),
        ("summary", summary),
    ):
        if lines:
            yield label, lines


def render(record: dict[str, Any], view: RunView) -> Group:
    """One thought of the timeline: a header line, then labelled rows (empty ones left out)."""
    emp = str(record.get("employee"))
    thought = record.get("thought") if isinstance(record.get("thought"), dict) else {}
    head = Text()
    head.append(_when(record.get("at"), view), style="dim")
    head.append("  ")
    head.append(safe_text(view.name_of(emp)), style=f"bold {view.colour(emp)}")
    head.append(f" in {safe_text(str(record.get('conversation')))}")
    head.append(f" · {safe_text(str(record.get('trigger')))}", style="dim")
    if record.get("rethink"):
        head.append(" · re-think", style="dim")
    head.append(f"  {safe_text(str(record.get('id')))}", style="dim")

    rows = Table.grid(padding=(0, 1))
    rows.add_column(width=9, no_wrap=True, style="dim")
    rows.add_column(overflow="fold")

    def row(label: str, *parts: str | tuple[str, str]) -> None:
        rows.add_row(Text("  " + label), Text.assemble(*parts))

    if thought.get("innerThoughts"):
        row("thinks", (safe_text(str(thought["innerThoughts"])), "italic"))
    if thought:
        row(
            "mood",
            f"interest {thought.get('interestLevel')}/10 · saturation {thought.get('topicSaturation')}/10",
        )
    if record.get("spoke"):
        posted = view.posted(record)
        for message in posted:
            where = message.get("conversation")
            to = f"→ {safe_text(str(where))}: " if where != record.get("conversation") else ""
            row("spoke" if message is posted[0] else "", to, (safe_text(str(message.get("text"))), "green"))
        if not posted:
            ids = ", ".join(safe_text(str(i)) for i in record.get("messages") or [])
            row("spoke", (f"{ids} (not in messages.jsonl)", "green"))
    elif record.get("gate"):
        row("held", (safe_text(str(record["gate"])), "bold yellow"))
    if thought.get("reason"):
        row("reason", safe_text(str(thought["reason"])))
    for label, lines in _op_lines(thought, view):
        row(label, "\n".join(lines))
    if record.get("corrections"):
        row("fixed", "\n".join(safe_text(str(c)) for c in record["corrections"]))
    if record.get("error"):
        row("error", (safe_text(str(record["error"])), "red"))
    tail = []
    if record.get("next_look_at"):
        tail.append(f"next look {_when(record['next_look_at'], view)}")
    llm = record.get("llm")
    if isinstance(llm, dict):
        cost = f"{llm.get('prompt_tokens', 0)}+{llm.get('completion_tokens', 0)} tok ({llm.get('cached_tokens', 0)} cached)"
        calls = f", {llm['calls']} calls" if (llm.get("calls") or 1) > 1 else ""
        tail.append(f"{cost} · {(llm.get('latency_ms') or 0) / 1000:.1f} s{calls}")
    else:
        tail.append("no model call")
    row("", (" · ".join(safe_text(t) for t in tail), "dim"))
    return Group(head, rows, Text())


# ---------------------------------------------------------------------------- the command


def _write_line(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def inspect_command(options: InspectOptions, console: Console | None = None) -> int:
    """Print the (filtered) timeline or JSON; with `follow`, keep printing until Ctrl-C. Returns the exit code."""
    view = RunView.open(options.rundir)
    thoughts = JsonlTail(view.rundir.thoughts_path)
    try:
        records = thoughts.poll()
    except JsonlError as exc:
        raise UserError(str(exc)) from None
    for record in records:
        view.see(record)
    filters = resolve_filters(options, view)
    shown = [r for r in records if filters.matches(r)]
    console = console or Console(highlight=False)

    def emit(record: dict[str, Any]) -> None:
        if options.as_json:
            _write_line(json.dumps(enrich(record, view), ensure_ascii=True))
        else:
            console.print(render(record, view))

    try:
        if options.as_json and not options.follow:
            document = {
                "run": str(view.rundir.path),
                "filters": filters.to_json(),
                "thoughts": [enrich(r, view) for r in shown],
            }
            _write_line(json.dumps(document, ensure_ascii=True))
            return 0
        if not options.as_json:
            title = [f"{len(shown)} of {len(records)} thoughts", view.company, str(view.rundir.path)]
            console.print(Text(safe_text(" · ".join(t for t in title if t)), style="bold"))
        for record in shown:
            emit(record)
        if not options.follow:
            return 0
        if not options.as_json:
            console.print(Text("following new thoughts (Ctrl-C to stop)", style="dim"))

        def on_record(record: dict[str, Any]) -> None:
            view.see(record)
            if filters.matches(record):
                emit(record)

        try:
            follow(thoughts, on_record, lambda: False)
        except KeyboardInterrupt:
            return 0
        except JsonlError as exc:
            raise UserError(str(exc)) from None
    except BrokenPipeError:  # `ideaco inspect RUN | head`: the reader has seen enough
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    return 0
