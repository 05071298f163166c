"""Forking a run (issue 39): a new run directory whose past up to a moment is another run's, byte for
byte, then one change or a few, then the office goes on on the model given.

No model is asked for the past: the office runs again from its scenario's start with each think
answered by the record it logged (`office/engine/past.py`), so at the moment its minds, desks, wakes,
task board, company, workspace, clock and random streams are what they were. Everything is checked
before the new directory is made: a moment outside the run, a run another process writes, a damaged
log, an unknown room, employee, archetype or switch, an `--out` that exists are each one line.
`fork.json` in the new directory says where it came from, when, and what changed.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ideaco.errors import IdeacoError
from ideaco.ids import BOSS, fork_line_id, script_line_number
from ideaco.llm.config import Models
from ideaco.model_options import ModelOptions, open_llm, resolve_model_settings, run_secrets
from ideaco.office.engine.agent_work import AgentWork
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import SimClock
from ideaco.office.engine.office import Office
from ideaco.office.engine.past import Past, PastDiverged, PastJournal
from ideaco.office.engine.streams import Streams
from ideaco.office.resolve.change_log import replayed_by_catch_up
from ideaco.office.resolve.journal import RunJournal
from ideaco.office.resolve.policies import policy_for
from ideaco.office.rules.config import Switches
from ideaco.persona import ARCHETYPES, PersonaError, load_archetype
from ideaco.scenario import Scenario
from ideaco.session import (
    ClockFactory,
    OpenedRun,
    _config,
    _early_calls,
    agent_notice,
    parse_run_duration,
    read_log,
)
from ideaco.store import runlog
from ideaco.store.forks import Fork, changes_text, read_fork
from ideaco.store.lock import RunLockedError
from ideaco.store.rundir import CHANGES, DEFAULT_ROOT, FORK, MESSAGES, THOUGHTS, RunDir, RunDirError
from ideaco.store.state import StateError, StateStore

FORK_FORMAT = 1


@dataclass(frozen=True)
class ForkChanges:
    """What the fork changes at its moment (each optional): boss lines, switches, personalities, the
    scenario's later boss lines dropped, another seed."""

    say: tuple[tuple[str, str], ...] = ()  # (conversation, text): a room, boss:<id>, or an employee id
    switches: dict[str, str] = field(default_factory=dict)
    archetypes: dict[str, str] = field(default_factory=dict)  # employee id -> archetype
    drop_script: bool = False
    seed: int | None = None

    def to_records(self) -> list[dict[str, Any]]:
        """The changes as fork.json lists them, in the order they are made."""
        out: list[dict[str, Any]] = []
        out += [{"kind": "switch", "name": k, "value": v} for k, v in sorted(self.switches.items())]
        out += [
            {"kind": "archetype", "employee": e, "archetype": a} for e, a in sorted(self.archetypes.items())
        ]
        if self.drop_script:
            out.append({"kind": "drop_script"})
        if self.seed is not None:
            out.append({"kind": "seed", "seed": self.seed})
        out += [{"kind": "say", "conversation": c, "text": t} for c, t in self.say]
        return out


@dataclass
class ForkPlan:
    """What `OpenedRun.begin` does for a fork: retrace the past to the moment, then make the changes."""

    moment: datetime
    past: Past
    journal: PastJournal
    changes: ForkChanges
    copied_changes: int  # changes.jsonl lines of the past, copied
    boss: list[dict[str, Any]]  # the boss's lines typed (not the script's) in the past, to post again
    commands: list[dict[str, Any]]  # the boss's commands of the past (changes.jsonl), to apply again

    def plan_line(self, office: Office) -> str:
        """What the fork does, in one line: its moment, its changes, until when it runs."""
        records = self.changes.to_records()
        said = changes_text(records) if records else "no change"
        assert office.end_at is not None
        return (
            f"the past up to {self.moment:%H:%M:%S} retraced from the logs (no model call), then: {said}; "
            f"running until {office.end_at:%H:%M}"
        )

    async def retrace(self, office: Office) -> None:
        shown, office.observers = office.observers, []  # the past is not shown again
        try:
            await self._retrace(office)
        except PastDiverged as exc:
            raise IdeacoError(
                f"the past up to {self.moment:%H:%M:%S} cannot be retraced from its logs ({exc}); "
                "were they edited? The fork's directory holds only part of it: delete it"
            ) from None
        finally:
            office.observers = shown

    async def _retrace(self, office: Office) -> None:
        office.start()
        for line in self.boss:

            async def post(m: dict[str, Any] = line) -> None:
                office.post_as_boss(m["conversation"], m["text"])

            office.clock.call_at(datetime.fromisoformat(line["at"]), post)
        for record in self.commands:

            async def command(r: dict[str, Any] = record) -> None:
                office.apply_logged(r)

            office.clock.call_at(datetime.fromisoformat(record["at"]), command)
        await office.clock.run_until(self.moment, office.stop_event)
        if office.stop_event.is_set():
            raise IdeacoError(f"the original run stopped before {self.moment:%H:%M:%S}: {office.stop_reason}")
        self.journal.open()
        office.meta["changes"] = self.copied_changes
        office.journal.workspace({k: d.content for k, d in office.state.documents.items()})
        apply_changes(office, self.changes)
        office.checkpoint()


def apply_changes(office: Office, changes: ForkChanges) -> None:
    """The fork's changes, made at its moment (the office's clock stands there)."""
    if changes.switches:
        merged = {**office.config.switches.to_dict(), **changes.switches}
        office.config.switches = Switches.from_dict(merged)
        office.policy = policy_for(office.config.switches.wake)
        if office.config.switches.is_default:
            office.meta.pop("switches", None)
        else:
            office.meta["switches"] = office.config.switches.to_dict()
    for employee, archetype in sorted(changes.archetypes.items()):
        emp = office.employees[employee]
        persona = load_archetype(archetype).model_dump(mode="json", exclude_none=True)
        persona.pop("skills", None)
        if emp.persona.get("skills"):
            persona["skills"] = emp.persona["skills"]
        emp.persona = persona
    if changes.drop_script:
        office.script_next = len(office.script)
    if changes.seed is not None:
        drawn = office.streams.to_dict()["drawn"]
        office.streams = Streams(changes.seed, drawn)
        office.meta["seed"] = changes.seed
    for n, (conversation, text) in enumerate(changes.say, start=1):
        office.post_as_boss(conversation, text, msg_id=fork_line_id(n))


def open_fork(
    origin: str | Path,
    *,
    at: str | datetime,
    changes: ForkChanges | None = None,
    model: ModelOptions | None = None,
    out: str | Path | None = None,
    duration: str | timedelta | None = None,
    clock: ClockFactory = SimClock,
    status: Callable[[str], None] = lambda _line: None,
    root: str | Path = DEFAULT_ROOT,
    lock_held: bool = False,
) -> OpenedRun:
    """Check the original and the changes, then make the fork's directory and office (not run yet:
    `OpenedRun.begin()` retraces the past and makes the changes, `office.run()` goes on).
    `lock_held`: the caller writes the original itself and is not writing now (`Simulation.fork`)."""
    changes = changes or ForkChanges()
    model = model or ModelOptions()
    source = RunDir.open_existing(Path(origin))  # a RunDirError is one line for the user
    try:
        lock = None if lock_held else source.lock()  # a run another process writes is not forked mid-write
    except RunLockedError as exc:
        raise IdeacoError(f"{source.path}: {exc}; fork it once that run has stopped") from None
    try:
        read = _read_original(source, at)
    finally:
        if lock is not None:
            lock.release()
    scenario, meta, moment, logs = read.scenario, read.meta, read.moment, read.logs
    _check_changes(changes, read)
    try:  # the scenario's persona files, where the original found them: before anything is written
        scenario.resolve_personas(meta.get("scenario_dir") or ".")
    except (PersonaError, OSError, ValueError) as exc:
        raise IdeacoError(
            f"{source.state_path}: its scenario's personas cannot be read again ({exc})"
        ) from None
    settings = resolve_model_settings(model, scenario)
    fork_meta = {k: meta[k] for k in ("compact_schema", "filters", "switches") if k in meta}
    config = _config(scenario, settings, fork_meta, filters=model.filters)
    length = (
        duration if isinstance(duration, timedelta) else parse_run_duration(duration) if duration else None
    )
    past = Past(moment, logs[MESSAGES], logs[THOUGHTS])
    if out is not None and Path(out).exists():
        raise IdeacoError(f"{out} exists: a fork goes into a new directory (--out)")
    rundir = (
        RunDir(Path(out))
        if out is not None
        else RunDir.for_new_run(f"{scenario.name}-fork", None, datetime.now(), root=root)
    )
    stack = open_llm(model, settings, status, employees=len(read.state.get("employees") or ()) + 1)
    try:
        new_lock = rundir.lock_new()
    except (RunDirError, RunLockedError, OSError) as exc:
        stack.close()
        raise IdeacoError(str(exc)) from None
    try:
        rundir.claim(new_lock)
        copied = _copy_past(source, rundir, read)
        journal = PastJournal(RunJournal(rundir), past)
        agent_notice(scenario, model.allow_agent_commands, status)
        run_clock = clock(scenario.start)
        office = office_from_scenario(
            scenario,
            meta.get("scenario_dir") or ".",
            llm=stack.llm,
            clock=run_clock,
            seed=int(meta.get("seed") or 0),
            journal=journal,
            models=Models(settings.model, model.model),
            config=config,
            meta=fork_meta,
            early_calls=_early_calls(model, run_clock, stack),
            past=past,
        )
        office.agent_work = AgentWork.for_run(model.allow_agent_commands, stack, run_secrets(model, settings))
        office.end_at = moment + length if length is not None else read.end_at
        plan = ForkPlan(
            moment,
            past,
            journal,
            changes,
            copied,
            boss=[m for m in past.messages if m["sender"] == BOSS and script_line_number(m["id"]) is None],
            commands=[c for c in logs[CHANGES] if _at(c) <= moment and replayed_by_catch_up(c)],
        )
        lineage = [
            *((read.fork.to_dict()["lineage"]) if read.fork is not None else ()),
            {"origin": str(source.path.resolve()), "at": moment.isoformat()},
        ]
        record = {
            "format": FORK_FORMAT,
            "origin": str(source.path.resolve()),
            "at": moment.isoformat(),
            "changes": changes.to_records(),
            "model": model_flags(model),
            "lineage": lineage,
        }
        (rundir.path / FORK).write_text(
            json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    except BaseException:
        stack.close()
        new_lock.release()
        shutil.rmtree(rundir.path, ignore_errors=True)
        raise
    return OpenedRun(office, stack, rundir, resumed=False, model_options=model, lock=new_lock, fork=plan)


@dataclass(frozen=True)
class _Original:
    scenario: Scenario
    state: dict[str, Any]
    meta: dict[str, Any]
    moment: datetime
    end_at: datetime
    logs: dict[str, list[dict[str, Any]]]
    lines: dict[str, list[int]]  # each record's line number in its log
    fork: Fork | None


def _read_original(source: RunDir, at: str | datetime) -> _Original:
    try:
        state = StateStore(source.state_path).load()
    except StateError as exc:
        raise IdeacoError(str(exc)) from None
    office = state.get("office") if isinstance(state, dict) else None
    if not isinstance(office, dict) or "scenario" not in office:
        raise IdeacoError(f"{source.state_path}: holds no office state to fork")
    try:
        scenario = Scenario.model_validate(office["scenario"])
    except ValueError as exc:
        raise IdeacoError(f"{source.state_path}: not a state this version can fork ({exc})") from None
    lines: dict[str, list[int]] = {log: [] for log in (MESSAGES, THOUGHTS, CHANGES)}
    logs = {  # a damaged line anywhere is one line naming it: the past must be read whole
        MESSAGES: read_log(source.messages_path, None, lines[MESSAGES]),
        THOUGHTS: read_log(source.thoughts_path, None, lines[THOUGHTS]),
        CHANGES: read_log(source.changes_path, None, lines[CHANGES]),
    }
    for n, record in enumerate(logs[THOUGHTS]):
        if "applied" not in record:
            raise IdeacoError(
                f"{source.thoughts_path}: line {lines[THOUGHTS][n]} has no `applied` record "
                "(logged by an older ideaco): this run cannot be forked"
            )
    start = scenario.start
    try:
        moment = at if isinstance(at, datetime) else runlog.parse_moment(at, start.date())
    except ValueError:
        raise IdeacoError(f"--at {at!r} is not a moment ({runlog.MOMENT_FORMS})") from None
    events = [_at(m) for m in logs[MESSAGES]] + [runlog.applied_at(t) for t in logs[THOUGHTS]]
    last = max(events, default=start)
    if moment < start:
        raise IdeacoError(f"--at {moment:%H:%M:%S} is before the run's start ({start:%H:%M:%S})")
    if moment > last:
        raise IdeacoError(
            f"--at {moment:%H:%M:%S} is after the run's last event ({last:%H:%M:%S}); "
            "to go on from there, use run --resume"
        )
    end_at = datetime.fromisoformat(office["end_at"]) if office.get("end_at") else start + scenario.duration
    return _Original(
        scenario, state, office, moment, max(end_at, moment), logs, lines, read_fork(source.path)
    )


def _check_changes(changes: ForkChanges, read: _Original) -> None:
    """Every room, employee, archetype and switch a change names exists (one line for the first that does not)."""
    employees = {e.get("id") for e in read.state.get("employees") or () if isinstance(e, dict)}
    rooms = {c.get("id") for c in read.state.get("conversations") or () if isinstance(c, dict)}
    for conversation, text in changes.say:
        target = conversation.removeprefix("boss:") if conversation.startswith("boss:") else None
        if conversation not in rooms and conversation not in employees and target not in employees:
            raise IdeacoError(
                f"--say {conversation!r}: no such room or employee in {read.scenario.name} "
                f"(rooms: {', '.join(sorted(r for r in rooms if r))})"
            )
        if not text.strip():
            raise IdeacoError(f"--say {conversation!r}: the line is empty")
    for employee, archetype in changes.archetypes.items():
        if employee not in employees:
            raise IdeacoError(f"--archetype {employee}={archetype}: no employee {employee!r}")
        if archetype not in ARCHETYPES:
            raise IdeacoError(
                f"--archetype {employee}={archetype}: unknown archetype (one of: {', '.join(ARCHETYPES)})"
            )
        try:
            load_archetype(archetype)
        except PersonaError as exc:
            raise IdeacoError(str(exc)) from None
    if changes.switches:
        try:
            Switches.from_dict(changes.switches)
        except ValueError as exc:
            raise IdeacoError(f"--switch {exc}") from None


def _copy_past(source: RunDir, rundir: RunDir, read: _Original) -> int:
    """The original's log lines up to the moment, byte for byte; the number of changes.jsonl lines."""
    copied = 0
    for name, when in ((MESSAGES, _at), (THOUGHTS, runlog.applied_at), (CHANGES, _at)):
        records, numbers = read.logs[name], read.lines[name]
        keep = {numbers[i] for i, r in enumerate(records) if when(r) <= read.moment}
        if not keep:
            continue
        raw = (source.path / name).read_bytes().split(b"\n")
        past = b"".join(raw[n - 1] + b"\n" for n in sorted(keep))
        (rundir.path / name).write_bytes(past)
        if name == CHANGES:
            copied = len(keep)
    return copied


def _at(record: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(record["at"])


def model_flags(model: ModelOptions) -> dict[str, Any]:
    """The model flags given to the fork, as fork.json records them (never a key: its variable's name)."""
    flags = {
        "model": model.model,
        "base_url": model.base_url,
        "api_key_env": model.api_key_env,
        "gguf": str(model.gguf) if model.gguf else None,
        "replay": str(model.replay) if model.replay else None,
    }
    return {k: v for k, v in flags.items() if v}
