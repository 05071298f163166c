"""`ideaco fork`: a run's past up to a moment, one change or a few, then the office goes on (issue 39)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from ideaco.cli.errors import UserError
from ideaco.cli.run import RunOptions, run_command
from ideaco.errors import IdeacoError
from ideaco.fork import ForkChanges, open_fork
from ideaco.session import ModelOptions, OpenedRun


def fork_command(
    rundir: Path,
    *,
    at: str,
    out: Path | None,
    duration: str | None,
    say: tuple[tuple[str, str], ...],
    switches: dict[str, str],
    archetypes: dict[str, str],
    drop_script: bool,
    seed: int | None,
    model: ModelOptions,
    show_thoughts: bool,
    console: Console,
) -> int:
    changes = ForkChanges(
        say=say, switches=switches, archetypes=archetypes, drop_script=drop_script, seed=seed
    )

    def opener(status: Callable[[str], None]) -> OpenedRun:
        try:
            return open_fork(
                rundir, at=at, changes=changes, model=model, out=out, duration=duration, status=status
            )
        except IdeacoError as exc:
            raise UserError(str(exc)) from None

    options = RunOptions(
        scenario=None,
        resume=None,
        duration=duration,
        seed=seed or 0,
        out=out,
        show_thoughts=show_thoughts,
        model=model,
        opener=opener,
    )
    try:
        return run_command(options, console)
    except IdeacoError as exc:  # the past could not be retraced: one line
        raise UserError(str(exc)) from None
