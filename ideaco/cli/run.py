"""`ideaco run`: run an office from a scenario (or resume a run) on the simulated clock."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urlparse

from rich.console import Console
from rich.text import Text

from ideaco.cli.display import Transcript, summary_table
from ideaco.cli.errors import UserError
from ideaco.llm.base import LLMError
from ideaco.llm.config import LLMSettings, model_for, resolve_settings
from ideaco.llm.factory import LLMStack, build_llm
from ideaco.mind.tasks import counts_by_status
from ideaco.office.build import StateError as ResumeError
from ideaco.office.build import office_from_scenario, office_from_state
from ideaco.office.clock import SimClock
from ideaco.office.journal import RunJournal
from ideaco.office.office import Office
from ideaco.office.summary import summarize
from ideaco.scenario import Scenario, ScenarioError, load_scenario, parse_duration
from ideaco.store import jsonl
from ideaco.store.rundir import RunDir, RunDirError
from ideaco.store.state import StateError, StateStore


@dataclass
class ModelOptions:
    """The model flags every office-running command takes (spec 1.2)."""

    base_url: str | None = None
    model: str | None = None
    api_key_env: str | None = None
    gguf: Path | None = None
    record: Path | None = None
    replay: Path | None = None
    max_calls: int | None = None
    max_tokens: int | None = None
    concurrency: int = 2


@dataclass
class RunOptions:
    scenario: Path | None
    resume: Path | None
    duration: str | None
    seed: int
    out: Path | None
    show_thoughts: bool
    model: ModelOptions


def check_reachable(base_url: str, timeout: float = 3.0) -> None:
    """Fail fast, before anything is written, when nothing listens at the endpoint."""
    parsed = urlparse(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise UserError(f"--base-url {base_url!r} is not an http(s) URL")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((parsed.hostname, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise UserError(f"cannot reach the model endpoint {base_url} ({reason})") from None


def resolve_model_settings(options: ModelOptions, scenario: Scenario) -> LLMSettings:
    scenario_llm = scenario.llm.model_dump(exclude_none=True) if scenario.llm else None
    try:
        return resolve_settings(
            cli_base_url=options.base_url,
            cli_model=options.model,
            cli_api_key_env=options.api_key_env,
            gguf=options.gguf,
            scenario_llm=scenario_llm,
            env=os.environ,
        )
    except ValueError as exc:
        raise UserError(str(exc)) from None


def open_llm(
    options: ModelOptions, settings: LLMSettings, console: Console, *, calls: int = 0, tokens: int = 0
) -> LLMStack:
    """Build the model stack; says what it connects to, starts the embedded model if needed."""
    if options.replay is None and not settings.embedded and settings.base_url:
        check_reachable(settings.base_url)
    if options.replay is not None and not options.replay.is_file():
        raise UserError(f"--replay file not found: {options.replay}")
    if options.replay is None and settings.embedded:
        console.print(
            Text(f"starting the embedded model ({settings.gguf or 'SmolLM2-135M-Instruct'}) …", style="dim")
        )
    try:
        return build_llm(
            settings,
            record=options.record,
            replay=options.replay,
            max_calls=options.max_calls,
            max_tokens=options.max_tokens,
            concurrency=options.concurrency,
            calls=calls,
            tokens=tokens,
        )
    except LLMError as exc:
        raise UserError(str(exc)) from None


def prepare(options: RunOptions, console: Console) -> tuple[Office, LLMStack, RunDir, bool]:
    """Validate everything, then (only then) create the run directory and build the office."""
    if options.resume is not None:
        try:
            rundir = RunDir.open_existing(options.resume)
            state = StateStore(rundir.state_path).load()
        except (RunDirError, StateError) as exc:
            raise UserError(str(exc)) from None
        if not state:
            raise UserError(f"{rundir.path}: state.json is empty")
        try:
            scenario = Scenario.model_validate(state["office"]["scenario"])
        except (KeyError, ValueError) as exc:
            raise UserError(
                f"{rundir.state_path}: not a state this version can resume ({exc.__class__.__name__})"
            ) from None
        settings = resolve_model_settings(options.model, scenario)
        budget = state["office"].get("stats", {})
        stack = open_llm(
            options.model,
            settings,
            console,
            calls=budget.get("llm_calls", 0),
            tokens=budget.get("prompt_tokens", 0) + budget.get("completion_tokens", 0),
        )
        try:
            messages = _read_log(rundir.messages_path)
            thoughts = _read_log(rundir.thoughts_path)
        except ValueError as exc:
            stack.close()
            raise UserError(str(exc)) from None
        journal = RunJournal(rundir)
        now = datetime.fromisoformat(state["office"]["now"])
        try:
            office = office_from_state(
                state,
                messages,
                thoughts=thoughts,
                llm=stack.llm,
                clock=SimClock(now),
                journal=journal,
                model_for=lambda m: model_for(settings, m, options.model.model),
            )
        except ResumeError as exc:
            stack.close()
            raise UserError(f"{rundir.state_path}: {exc}") from None
        if options.duration:
            office.end_at = now + _duration(options.duration)
        elif office.end_at is None or office.end_at <= now:
            office.end_at = now + scenario.duration
        return office, stack, rundir, True

    assert options.scenario is not None
    try:
        scenario = load_scenario(options.scenario)
        scenario.resolve_personas(options.scenario.parent)
    except ScenarioError as exc:
        raise UserError(str(exc)) from None
    except ValueError as exc:  # a persona file problem names its file itself
        raise UserError(str(exc)) from None
    duration = _duration(options.duration) if options.duration else scenario.duration
    settings = resolve_model_settings(options.model, scenario)
    try:
        rundir = RunDir.for_new_run(scenario.name, options.out, datetime.now())
    except RunDirError as exc:
        raise UserError(str(exc)) from None
    stack = open_llm(options.model, settings, console)
    try:
        rundir.create()
    except (RunDirError, OSError) as exc:
        stack.close()
        raise UserError(str(exc)) from None
    office = office_from_scenario(
        scenario,
        options.scenario.parent,
        llm=stack.llm,
        clock=SimClock(scenario.start),
        seed=options.seed,
        journal=RunJournal(rundir),
        model_for=lambda m: model_for(settings, m, options.model.model),
    )
    office.end_at = scenario.start + duration
    return office, stack, rundir, False


def _read_log(path: Path) -> list[dict]:
    return jsonl.read(path) if Path(path).exists() else []


def _duration(text: str) -> timedelta:
    try:
        return parse_duration(text)
    except ValueError as exc:
        raise UserError(f"--duration {text!r}: {exc}") from None


def run_command(options: RunOptions, console: Console) -> int:
    office, stack, rundir, resumed = prepare(options, console)
    # SmolLM2 fills every string to its bound: shorter bounds keep its thoughts to a few seconds.
    # Chosen once per run and kept in its state (a resume or a replay must ask the same way).
    if "compact_schema" not in office.meta:
        office.meta["compact_schema"] = stack.settings.embedded and not stack.settings.gguf
    office.config.compact_schema = bool(office.meta["compact_schema"])
    transcript = Transcript(console, show_thoughts=options.show_thoughts)
    office.observers.append(transcript)
    start_sim = office.clock.now()
    verb = "resuming" if resumed else "running"
    console.print(
        Text.assemble(
            (f"{verb} {office.company}", "bold"),
            f" · {stack.settings.describe() if options.model.replay is None else 'replay of ' + str(options.model.replay)}",
            f" · seed {office.meta.get('seed')} · run directory {rundir.path}",
        )
    )
    wall_start = time.monotonic()
    try:
        asyncio.run(_run(office, transcript, start_sim))
        wall = time.monotonic() - wall_start
        summary = _write_summary(office, rundir, wall)
        office.checkpoint()  # with the wall time just added
    finally:
        stack.close()
        office.journal.close()
    console.print(summary_table(office, summary))
    if office.failed:
        raise UserError(f"{office.stop_reason} (logs so far in {rundir.path})")
    reason = office.stop_reason or "reached the end of the simulated time"
    console.print(Text(f"stopped: {reason}. Logs in {rundir.path}", style="bold"))
    return 0


async def _run(office: Office, transcript: Transcript, start_sim: datetime) -> None:
    assert office.end_at is not None
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, office.stop, "interrupted (Ctrl-C); resume with --resume")
        loop.add_signal_handler(signal.SIGTERM, office.stop, "terminated; resume with --resume")
    except (NotImplementedError, RuntimeError):  # not on the main thread, or no signals here
        pass
    office.start()
    with transcript.start_progress(start_sim, office.end_at):
        await office.run(until=office.end_at)


def _write_summary(office: Office, rundir: RunDir, wall: float) -> dict:
    thoughts = _read_log(rundir.thoughts_path)
    messages = _read_log(rundir.messages_path)
    start = datetime.fromisoformat(office.meta.get("start", office.clock.now().isoformat()))
    previous_wall = office.meta.get("wall_time_s", 0.0)
    office.meta["wall_time_s"] = previous_wall + wall
    summary = summarize(
        thoughts,
        messages,
        employees=sorted(office.employees),
        simulated_start=start,
        simulated_now=office.clock.now(),
        wall_time_s=previous_wall + wall,
        stop_reason=office.stop_reason,
        errors=office.stats.errors,
        tasks=counts_by_status(t for e in office.employees.values() for t in e.tasks),
    )
    rundir.write_summary(summary)
    return summary
