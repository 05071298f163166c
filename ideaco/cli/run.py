"""`ideaco run`: run an office from a scenario (or resume a run) on the simulated clock."""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ideaco.cli import signals
from ideaco.cli.display import Transcript, format_duration, safe_text, summary_table
from ideaco.cli.errors import UserError, warn, write_failure
from ideaco.office.resolve.summary import ENDED, calls_line
from ideaco.session import ModelOptions, OpenedRun, open_existing, open_new
from ideaco.store import runlog


@dataclass
class RunOptions:
    scenario: Path | None
    resume: Path | None
    duration: str | None
    seed: int
    out: Path | None
    show_thoughts: bool
    model: ModelOptions
    switches: dict[str, str] = field(default_factory=dict)  # an ablation: parts of the engine off
    # Another way to open the run (a fork, `cli/fork.py`), given the status line's printer.
    opener: Callable[[Callable[[str], None]], OpenedRun] | None = None


def open_run(options: RunOptions, console: Console) -> OpenedRun:
    def status(line: str) -> None:
        console.print(Text(line, style="dim"))

    if options.opener is not None:
        return options.opener(status)
    if options.resume is not None:
        return open_existing(options.resume, model=options.model, duration=options.duration, status=status)
    assert options.scenario is not None
    return open_new(
        options.scenario,
        model=options.model,
        seed=options.seed,
        out=options.out,
        duration=options.duration,
        status=status,
        switches=options.switches,
    )


def run_command(options: RunOptions, console: Console) -> int:
    """Run, print the summary; 0 when done (or a budget stop), 130/143 when Ctrl-C/SIGTERM stopped it."""
    with signals.interruptible():
        opened = open_run(options, console)
    office = opened.office
    transcript = Transcript(console, show_thoughts=options.show_thoughts)
    office.observers.append(transcript)
    start_sim = office.clock.now()
    console.print(
        Text.assemble(
            (
                f"{'resuming' if opened.resumed else 'forking' if opened.fork else 'running'} {safe_text(office.company)}",
                "bold",
            ),
            f" · {opened.describe_model()} · seed {office.meta.get('seed')} · run directory {opened.rundir.path}",
        )
    )
    if opened.resumed:
        console.print(Text(resume_plan(opened, options.duration)))
    if opened.fork is not None:
        console.print(Text(opened.fork.plan_line(office)))
    wall_start = time.monotonic()
    try:
        caught: list[int] = []  # read after the loop is gone: a signal its last steps handled counts too
        asyncio.run(_run(opened, transcript, start_sim, caught))
        stopped_by = caught[0] if caught else None
        with signals.held():  # a second Ctrl-C waits for the save
            summary = opened.finish(time.monotonic() - wall_start)
    except Exception as exc:
        failure = write_failure(exc, opened.rundir.path)
        if failure is None:
            raise
        raise failure from None
    finally:
        with signals.held():
            opened.close()
    console.print(summary_table(office, summary))
    if summary.get("calls"):
        console.print(Text(calls_line(summary["calls"])))
    if summary.get("errors_by_kind"):
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(summary["errors_by_kind"].items()))
        console.print(Text(f"model errors (each thought was retried later): {kinds}", style="yellow"))
    if office.failed:
        raise UserError(f"{office.stop_reason} (logs so far in {opened.rundir.path})")
    reason = summary["stop_reason"]
    console.print(Text(f"stopped: {reason}. Logs in {opened.rundir.path}", style="bold"))
    return signals.exit_code(stopped_by) if stopped_by is not None else 0


def resume_plan(opened: OpenedRun, duration: str | None) -> str:
    """What a resume will do, in one line: until when it runs, and why when the run had ended."""
    office = opened.office
    assert office.end_at is not None
    now, end = office.now(), office.end_at
    until = f"until {end:%H:%M}" + (f" on {end:%Y-%m-%d}" if end.date() != now.date() else "")
    until += f" ({format_duration(end - now)} more simulated time)"
    unreadable: list[str] = []
    previous = runlog.read_summary(opened.rundir, unreadable)  # the run's end report: rewritten at its end
    warn(unreadable)
    if duration is None and previous is not None and previous.get("stop_reason") in (None, ENDED):
        return (
            f"this run had reached its end ({now:%H:%M}); without --duration it goes on for the scenario's "
            f"length again: {until}. Give --duration for another length."
        )
    return f"continuing {until}"


STOP_REASONS = {
    signal.SIGINT: "interrupted (Ctrl-C); continue with --resume",
    signal.SIGTERM: "terminated (SIGTERM); continue with --resume",
}


async def _run(opened: OpenedRun, transcript: Transcript, start_sim: datetime, caught: list[int]) -> None:
    """Run the office to its end; the signals that stopped it go to `caught`."""
    office = opened.office
    assert office.end_at is not None
    loop = asyncio.get_running_loop()

    def stop(signum: int) -> None:
        caught.append(signum)
        office.stop(STOP_REASONS[signum])

    try:
        for signum in STOP_REASONS:
            loop.add_signal_handler(signum, stop, signum)
    except (NotImplementedError, RuntimeError, ValueError):  # not on the main thread, or no signals here
        pass
    await opened.begin()  # a fork's past is retraced here, its lines not shown again
    with transcript.start_progress(start_sim, office.end_at):
        await office.run(until=office.end_at)
