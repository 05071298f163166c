"""Opening a run: validate, resolve the model, create or reopen the run directory, build the office.

Shared by every surface that runs an office (`ideaco run`, `ideaco chat`, the Python API), so
they validate the same way, in the same order: the scenario first, before any endpoint is
contacted or anything written; then the model; then the run directory.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ideaco.agents.command import describe
from ideaco.bounds import check_clock
from ideaco.endpoints import add_counts
from ideaco.errors import IdeacoError
from ideaco.llm.config import LLMSettings, Models, model_for
from ideaco.llm.factory import LLMStack
from ideaco.mind.tasks import counts_by_status
from ideaco.model_options import ModelOptions, open_llm, resolve_model_settings, run_secrets, speculate_for
from ideaco.office.engine.agent_work import AgentWork
from ideaco.office.engine.build import (
    LOGS,
    ForgedLine,
    ReplayError,
    ResumeError,
    check_resumable,
    office_from_scenario,
    office_from_state,
)
from ideaco.office.engine.clock import Clock, SimClock
from ideaco.office.engine.early import EarlyCalls
from ideaco.office.engine.office import Office
from ideaco.office.resolve.journal import MemoryJournal, RunJournal
from ideaco.office.resolve.summary import add_session_calls, calls_section, stop_reason, summarize
from ideaco.office.rules.config import OfficeConfig, Switches, config_for
from ideaco.office.rules.text import default_filters
from ideaco.persona import PersonaError
from ideaco.scenario import Scenario, ScenarioError, load_scenario, parse_duration, scenario_problems
from ideaco.shipped import is_shipped, locate_scenario
from ideaco.store import runlog
from ideaco.store.lock import RunLock, RunLockedError
from ideaco.store.rundir import CHANGES, DEFAULT_ROOT, MESSAGES, THOUGHTS, RunDir, RunDirError
from ideaco.store.state import StateError, StateStore
from ideaco.store.usage import restored_calls, usage_totals

ClockFactory = Callable[[datetime], Clock]


@dataclass
class OpenedRun:
    """An office ready to run, with its model stack and run directory."""

    office: Office
    stack: LLMStack
    rundir: RunDir
    resumed: bool
    model_options: ModelOptions = field(default_factory=ModelOptions)
    lock: RunLock | None = None  # the one-writer lock, released by close()
    fork: Any = None  # a fork's plan (`fork.ForkPlan`): its past retraced, then its changes, at `begin()`

    async def begin(self) -> None:
        """Schedule what is pending (the script, the wakes); a fork first retraces its past."""
        if self.fork is not None:
            await self.fork.retrace(self.office)
        else:
            self.office.start()

    def describe_model(self) -> str:
        """The model, and the text rules its people's texts are held to (`filters`)."""
        filters = f"filters {self.office.config.filters}"
        if self.model_options.replay is not None:
            return f"replay of {self.model_options.replay} · {filters}"
        return f"{self.stack.settings.describe()} · {filters}"

    def finish(self, wall_time_s: float) -> dict[str, Any]:
        """Write summary.json and a last checkpoint (with the wall time added)."""
        office = self.office
        previous = office.meta.get("wall_time_s", 0.0)
        office.meta["wall_time_s"] = previous + wall_time_s
        endpoints = add_counts(office.meta.get("endpoints") or {}, self.stack.endpoint_counts())
        if endpoints:
            office.meta["endpoints"] = endpoints
        summary = summarize(
            read_log(self.rundir.thoughts_path),
            read_log(self.rundir.messages_path),
            employees=sorted(office.employees),
            simulated_start=datetime.fromisoformat(office.meta.get("start", office.now().isoformat())),
            simulated_now=office.now(),
            wall_time_s=previous + wall_time_s,
            stop_reason=stop_reason(office.stop_reason, office.now(), office.end_at),
            errors=office.stats.errors,
            tasks=counts_by_status(t for e in office.employees.values() for t in e.mind.tasks),
        )
        if endpoints:  # several endpoints: the calls each answered, this session and earlier ones
            summary["endpoints"] = endpoints
        summary["filters"] = office.config.filters  # the text rules: strict or standard (docs/posting.md)
        office.early_calls.drop_all()  # the run is over: a call started early and not used is dropped
        limits = self.stack.limits
        flight = limits.flight.to_dict(wall_time_s) if limits is not None else {}
        calls = add_session_calls(
            office.meta.get("calls"), flight, office.early_calls.counts.to_dict(), wall_time_s
        )
        office.meta["calls"] = calls
        summary["calls"] = calls_section(calls, summary["llm"], office.early_calls.limit)
        self.rundir.write_summary(summary)
        office.checkpoint()
        return summary

    def close(self) -> None:
        try:
            self.stack.close()
            self.office.journal.close()
            self.office.clock.close()
        finally:
            if self.lock is not None:
                self.lock.release()


def read_log(
    path: Path, within: tuple[datetime, datetime] | None = None, lines: list[int] | None = None
) -> list[dict]:
    """All records of a JSONL log (none if it does not exist yet), through the run directory's reader:
    a line that is no record, or dated outside `within`, is one line (IdeacoError); `lines` gets
    each record's line number."""
    try:
        return runlog.read_log(path, within=within, lines=lines)
    except ValueError as exc:
        raise IdeacoError(str(exc)) from None


def parse_run_duration(text: str) -> timedelta:
    try:
        length = parse_duration(text)
    except ValueError as exc:
        raise IdeacoError(f"--duration {text!r}: {exc}") from None
    if not length:  # not "the scenario's length": a run of no time is a mistake
        raise IdeacoError(f"--duration {text!r}: a run needs some simulated time (e.g. 30m)")
    return length


def model_change(thoughts: list[dict[str, Any]], model_of: Callable[[str], str]) -> str | None:
    """A line saying a resumed run goes on with another model than its last thought used, for that
    thought's employee (`model_of`: the model an employee asks now). The model flags are not kept in
    the run: without them a resume runs on the embedded model."""
    last = next(
        (t for t in reversed(thoughts) if isinstance(t.get("llm"), dict) and t["llm"].get("model")), None
    )
    if last is None:
        return None
    used, now = last["llm"]["model"], model_of(str(last.get("employee")))
    if used == now:
        return None
    return (
        f"this run's thoughts so far used the model {used}; it goes on with {now} "
        "(give the run's --base-url / --model again to keep it)"
    )


def _config(
    scenario: Scenario,
    settings: LLMSettings,
    meta: dict[str, Any],
    switches: Switches | None = None,
    filters: str | None = None,
) -> OfficeConfig:
    """The engine's numbers for this run; the schema's bounds are chosen once and kept in its state.

    SmolLM2 fills every string to its bound: shorter bounds keep its thoughts to a few seconds.
    A resume or a replay must ask the same way, so the choice made at the start is kept. So are
    an ablation's switches (kept only when one is off: a run of today's engine saves none), and
    the text rules' `filters`: `--filters`, else the scenario's `posting.filters`, else strict for
    the embedded model and standard for an endpoint (a resume keeps it unless `--filters` is given).
    """
    config = config_for(scenario)
    if "compact_schema" not in meta:
        meta["compact_schema"] = settings.embedded and not settings.gguf
    config.compact_schema = bool(meta["compact_schema"])
    if filters is not None:
        meta["filters"] = filters
    elif "filters" not in meta:
        chosen = scenario.posting.filters if scenario.posting is not None else None
        meta["filters"] = chosen or default_filters(settings.embedded)
    config.filters = str(meta["filters"])
    if switches is not None and not switches.is_default:
        meta["switches"] = switches.to_dict()
    config.switches = Switches.from_dict(meta.get("switches"))
    return config


def open_new_company(
    name: str,
    *,
    model: ModelOptions | None = None,
    seed: int = 7,
    out: str | Path | None = None,
    clock: ClockFactory = SimClock,
    status: Callable[[str], None] = lambda _line: None,
    root: str | Path = DEFAULT_ROOT,
    duration: timedelta = timedelta(hours=8),
) -> OpenedRun:
    """An empty company: only the boss and the secretary (`ideaco chat --new NAME`)."""
    name = " ".join(name.split())
    if not name:
        raise IdeacoError("--new needs a company name")
    stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "company"
    try:
        scenario = Scenario.model_validate(
            {"name": stem, "company": name, "duration": f"{int(duration.total_seconds())}s"}
        )
    except ValueError as exc:  # pydantic's ValidationError
        raise IdeacoError(f"--new: {scenario_problems(exc)[0][1]}") from None
    return _open_scenario(scenario, Path("."), model or ModelOptions(), seed, out, None, clock, status, root)


def open_new(
    scenario_path: str | Path,
    *,
    model: ModelOptions | None = None,
    seed: int = 7,
    out: str | Path | None = None,
    duration: str | timedelta | None = None,
    clock: ClockFactory = SimClock,
    status: Callable[[str], None] = lambda _line: None,
    root: str | Path = DEFAULT_ROOT,
    switches: Switches | dict[str, Any] | None = None,
) -> OpenedRun:
    """Validate a scenario, then (only then) start the model, create the run directory, build the office.

    `switches` turn parts of the engine off (an ablation, docs/evaluation.md); they are kept in
    the run's state, so a resume continues with them.
    """
    model = model or ModelOptions()
    path = locate_scenario(scenario_path)  # a file, or a shipped scenario by name
    if is_shipped(scenario_path, path):
        status(f"{scenario_path}: no such file here, running the shipped scenario ({path})")
    try:
        scenario = load_scenario(path)
        scenario.resolve_personas(path.parent)
        config_for(scenario)  # timers:/gates: overrides, checked before anything starts
    except (ScenarioError, PersonaError) as exc:
        raise IdeacoError(str(exc)) from None
    except ValueError as exc:
        raise IdeacoError(f"{path}: {exc}") from None
    length = (
        duration if isinstance(duration, timedelta) else parse_run_duration(duration) if duration else None
    )
    if switches is not None and not isinstance(switches, Switches):
        try:
            switches = Switches.from_dict(switches)
        except ValueError as exc:
            raise IdeacoError(f"--switch {exc}") from None
    return _open_scenario(scenario, path.parent, model, seed, out, length, clock, status, root, switches)


def _open_scenario(
    scenario: Scenario,
    base_dir: Path,
    model: ModelOptions,
    seed: int,
    out: str | Path | None,
    length: timedelta | None,
    clock: ClockFactory,
    status: Callable[[str], None],
    root: str | Path,
    switches: Switches | None = None,
) -> OpenedRun:
    settings = resolve_model_settings(model, scenario)
    try:
        rundir = RunDir.for_new_run(scenario.name, Path(out) if out else None, datetime.now(), root=root)
    except RunDirError as exc:
        raise IdeacoError(str(exc)) from None
    stack = open_llm(model, settings, status, employees=len(scenario.employees) + 1)  # and the secretary
    try:
        lock = rundir.lock_new()
    except (RunDirError, RunLockedError, OSError) as exc:
        stack.close()
        raise IdeacoError(str(exc)) from None
    try:
        rundir.claim(lock)  # a RunDirError is one line for the user
        meta: dict[str, Any] = {}
        config = _config(scenario, settings, meta, switches, model.filters)
        agent_notice(scenario, model.allow_agent_commands, status)
        run_clock = clock(scenario.start)
        office = office_from_scenario(
            scenario,
            base_dir,
            llm=stack.llm,
            clock=run_clock,
            seed=seed,
            journal=RunJournal(rundir),
            models=Models(settings.model, model.model),
            config=config,
            meta=meta,
            early_calls=_early_calls(model, run_clock, stack),
        )
        office.agent_work = AgentWork.for_run(model.allow_agent_commands, stack, run_secrets(model, settings))
    except BaseException:
        stack.close()
        lock.release()
        raise
    office.end_at = scenario.start + (length or scenario.duration)
    opened = OpenedRun(office, stack, rundir, resumed=False, model_options=model, lock=lock)
    # state.json before any log line: a run killed from here on can always be resumed.
    try:
        office.checkpoint()
    except StateError as exc:
        opened.close()
        raise IdeacoError(str(exc)) from None
    return opened


def open_existing(
    path: str | Path,
    *,
    model: ModelOptions | None = None,
    duration: str | timedelta | None = None,
    clock: ClockFactory = SimClock,
    status: Callable[[str], None] = lambda _line: None,
) -> OpenedRun:
    """Reopen a run directory to continue it (`--resume`).

    The saved state and the logs are checked, and the office rebuilt from them, before any
    endpoint is contacted or any file touched: a run directory this version cannot continue is
    one line and leaves the directory as it was.
    """
    rundir = RunDir.open_existing(Path(path))  # a RunDirError is an IdeacoError: one line for the user
    lock = rundir.lock()  # before reading anything: a second writer is refused, touching nothing
    try:
        return _reopen(rundir, lock, model or ModelOptions(), duration, clock, status)
    except BaseException:
        lock.release()
        raise


def _reopen(
    rundir: RunDir,
    lock: RunLock,
    model: ModelOptions,
    duration: str | timedelta | None,
    clock: ClockFactory,
    status: Callable[[str], None],
) -> OpenedRun:
    try:
        rundir.check_writable()  # no link, no FIFO, a writable directory: before anything is read
        state = StateStore(rundir.state_path).load()
    except (RunDirError, StateError) as exc:
        raise IdeacoError(str(exc)) from None
    where = rundir.state_path
    if not state or not isinstance(state.get("office"), dict):
        raise IdeacoError(f"{where}: holds no office state to resume")
    try:
        scenario = Scenario.model_validate(state["office"]["scenario"])
    except (KeyError, ValueError) as exc:
        raise IdeacoError(f"{where}: not a state this version can resume ({_problem(exc)})") from None
    length = (
        duration if isinstance(duration, timedelta) else parse_run_duration(duration) if duration else None
    )
    settings = resolve_model_settings(model, scenario)
    within = runlog.span(state, runlog.read_summary(rundir))  # every line checked before anything is paid
    lines: dict[str, list[int]] = {log: [] for log in LOGS}  # where each record is, for a refusal
    messages = read_log(rundir.messages_path, within, lines[MESSAGES])
    thoughts = read_log(rundir.thoughts_path, within, lines[THOUGHTS])
    changes = read_log(rundir.changes_path, within, lines[CHANGES])
    if foreign := runlog.foreign_state(state, thoughts, where):
        raise IdeacoError(f"{foreign}: it cannot continue them")
    saved_now = state["office"].get("now")
    try:
        now = datetime.fromisoformat(saved_now)
    except (TypeError, ValueError):
        raise IdeacoError(
            f"{where}: office.now {saved_now!r} is not a time this version can resume"
        ) from None
    try:
        # A killed run's logs may have run past its last save: time never goes back on what they hold.
        logged = [datetime.fromisoformat(r["at"]) for r in (*messages[-1:], *thoughts) if r.get("at")]
        now = max([now, *logged])
        check_resumable(state)
        config = _config(scenario, settings, state["office"], filters=model.filters)
        # Rebuilt once without a model or the run directory, so that a state this version cannot
        # continue is one line before any endpoint is contacted or any file touched.
        probe = office_from_state(
            state,
            messages,
            thoughts=thoughts,
            changes=changes,
            llm=_NOT_CONNECTED,
            clock=SimClock(now),
            journal=MemoryJournal(),
            config=config,
        )
    except ForgedLine as exc:  # a caught-up record's steps break the live rules: its file and line
        line = lines[exc.log][exc.index]
        raise IdeacoError(
            f"{rundir.path / exc.log}: line {line} is not a change the office could make ({exc.why}); "
            "remove or mend that line to continue this run"
        ) from None
    except ReplayError as exc:  # a logged line, not the state: named by its file and line
        line = lines[exc.log][exc.index]
        raise IdeacoError(
            f"{rundir.path / exc.log}: line {line} cannot be applied again ({exc.problem}); "
            "remove or mend that line to continue this run"
        ) from None
    except ResumeError as exc:
        raise IdeacoError(f"{where}: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
        raise IdeacoError(f"{where}: not a state this version can resume ({_problem(exc)})") from None
    check_clock(where, now, probe.end_at)
    own = {e.id: e.model for e in probe.employees.values()}  # an employee's own `model:`, if any
    if notice := model_change(thoughts, lambda e: model_for(settings, own.get(e), model.model)):
        status(notice)
    rundir.claim(lock)  # ours from here on, checked writable before any model starts or is paid
    # The budget counts what the logs hold (they may run past the last save), or what was made if more.
    usage = usage_totals(thoughts)
    stack = open_llm(
        model,
        settings,
        status,
        calls=restored_calls(state["office"], usage["calls"]),
        tokens=usage["tokens"],
        employees=len(state.get("employees") or ()) or len(scenario.employees) + 1,
    )
    try:  # from here on the run directory is ours: stale temp files go, a torn log line is repaired
        journal = RunJournal(rundir)
    except (OSError, ValueError) as exc:
        stack.close()
        raise IdeacoError(f"{rundir.path}: {exc}") from None
    run_clock = clock(now)
    agent_notice(scenario, model.allow_agent_commands, status)
    office = office_from_state(
        state,
        messages,
        thoughts=thoughts,
        changes=changes,
        llm=stack.llm,
        clock=run_clock,
        journal=journal,
        models=Models(settings.model, model.model),
        config=config,
        early_calls=_early_calls(model, run_clock, stack),
    )
    office.agent_work = AgentWork.for_run(model.allow_agent_commands, stack, run_secrets(model, settings))
    if length is not None:
        office.end_at = now + length  # both bounded by check_clock and parse_duration: no overflow
    elif office.end_at is None or office.end_at <= now:
        office.end_at = now + scenario.duration
    return OpenedRun(office, stack, rundir, resumed=True, model_options=model, lock=lock)


def agent_notice(scenario: Scenario, allowed: bool, status: Callable[[str], None]) -> None:
    """One line per agent employee whose command will not run (no --allow-agent-commands)."""
    for e in scenario.employees:
        if e.agent is not None and not allowed:
            command = describe(e.agent.command)
            status(f"{e.name} ({e.id}) would have run {command} (not run without --allow-agent-commands)")


def _early_calls(model: ModelOptions, clock: Clock, stack: LLMStack) -> EarlyCalls:
    """The run's early calls: how many (`--speculate`), counted against its budget."""
    return EarlyCalls(speculate_for(model, isinstance(clock, SimClock)), budget=stack.budget)


class _NotConnected:
    """The model's place while a resumed office is rebuilt: nothing is contacted before it is sound."""

    async def complete(self, request: Any) -> Any:
        raise RuntimeError("the model is not connected yet")

    async def aclose(self) -> None:
        pass


_NOT_CONNECTED = _NotConnected()


def _problem(exc: Exception) -> str:
    """A saved state's defect in a few words: a missing field by name, else the error's first line."""
    if isinstance(exc, KeyError):
        return f"missing field {exc.args[0]!r}" if exc.args else "a missing field"
    text = str(exc).strip().splitlines()
    return f"{exc.__class__.__name__}: {text[0]}" if text else exc.__class__.__name__
