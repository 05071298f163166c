"""`ideaco sweep SCENARIO --seeds 1-10 --vary gates=on,off ... --out DIR`: an ablation sweep.

Every combination of the varied switches, for every seed, is an ordinary run directory under
DIR/runs/, run as a Ray task (or one by one without Ray); progress is printed as runs finish, a
failed run is reported and the rest go on; then DIR/comparison.{md,json,png}. The same command
again resumes: finished runs are not redone. `ideaco sweep --from RUNDIR --at TIME ...` (no
SCENARIO) makes every run a fork of that run at that moment, measured from the moment on.
"""

from __future__ import annotations

import shlex
import signal
import sys

from rich.console import Console
from rich.text import Text

from ideaco.cli.display import cli_console
from ideaco.cli.errors import UserError
from ideaco.cli.signals import exit_code
from ideaco.errors import IdeacoError
from ideaco.sweep import SweepOptions, make_plan
from ideaco.sweep.execute import executor_for
from ideaco.sweep.plan import PlanError
from ideaco.sweep.runner import run_sweep


class _Stopped(KeyboardInterrupt):
    """SIGTERM during a sweep: handled as Ctrl-C is (Ray closed, the re-run resumes), exit 143."""


def _stop(_signum: int, _frame: object) -> None:
    raise _Stopped


def sweep_command(options: SweepOptions, console: Console | None = None) -> int:
    console = console or cli_console()
    try:
        plan = make_plan(options)
    except IdeacoError as exc:
        raise UserError(str(exc)) from None
    try:
        executor, why = executor_for(options.address, use_ray=options.use_ray)
    except ImportError as exc:
        raise UserError(str(exc)) from None
    if why:
        console.print(Text(why, style="yellow"))
    previous = signal.signal(signal.SIGTERM, _stop)  # a kill closes Ray too; a re-run resumes
    command = "ideaco sweep " + shlex.join(sys.argv[2:]) if sys.argv[1:2] == ["sweep"] else ""
    try:
        result = run_sweep(plan, executor, lambda line: console.print(Text(line)), command=command)
    except PlanError as exc:
        raise UserError(str(exc)) from None
    except KeyboardInterrupt as stop:
        console.print(Text("stopped: run the same command again to finish what is missing", style="yellow"))
        return exit_code(signal.SIGTERM if isinstance(stop, _Stopped) else signal.SIGINT)  # as run and chat
    finally:
        signal.signal(signal.SIGTERM, previous)
        executor.close()
    done = len(result.done) + result.skipped
    line = f"{done} of {result.planned} runs finished ({len(result.done)} now) in {result.seconds:.0f} s"
    if result.failed:
        line += f"; {len(result.failed)} failed (run the same command again to retry them)"
    console.print(Text(line, style="bold"))
    for path in result.outputs:
        console.print(Text(f"  {path}"))
    return 1 if result.failed else 0
