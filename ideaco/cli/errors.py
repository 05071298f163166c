"""User-facing failures: one line, exit code 2, no traceback."""

from __future__ import annotations

import sys
from typing import Any

import typer
from rich.console import Console
from rich.text import Text
from typer.core import TyperGroup

try:  # typer >= 0.24 carries its own copy of click; its exceptions are that copy's
    from typer._click import exceptions as click_errors
except ImportError:  # pragma: no cover - older typer runs on click itself
    from click import exceptions as click_errors

from ideaco.errors import IdeacoError as UserError  # the CLI's name for it

EXIT_USAGE = 2

__all__ = ["EXIT_USAGE", "OneLineErrors", "UserError", "fail", "interrupted", "warn", "write_failure"]
WARNINGS_SHOWN = 10  # a log full of junk gets this many lines, then a count of the rest


def interrupted(signum: int) -> None:
    """A stop signal before the office ran: one line on stderr, exit 130 (Ctrl-C) or 143 (SIGTERM)."""
    import signal

    what = "interrupted (Ctrl-C)" if signum == signal.SIGINT else "terminated (SIGTERM)"
    Console(stderr=True, highlight=False, soft_wrap=True).print(
        Text("ideaco: ", style="bold") + Text(f"{what} while starting; the office had not run yet")
    )
    sys.exit(128 + signum)


def write_failure(exc: BaseException, rundir: object) -> UserError | None:
    """A run stopped by a write the OS refused, as one line; None if `exc` is not such a stop.

    The first refused write is named (a later failed save only follows from it): a disk that
    filled up, a file grown too large, a folder made read-only while the run went on.
    """
    from ideaco.store.jsonl import JsonlError
    from ideaco.store.state import StateError

    causes = []
    seen: BaseException | None = exc
    while seen is not None and seen not in causes:
        causes.append(seen)
        seen = seen.__cause__ or seen.__context__
    found = [c for c in causes if isinstance(c, (OSError, StateError, JsonlError))]
    if not found:
        return None
    named = [c for c in found if isinstance(c, OSError) and c.filename]
    root = (named or found)[-1]  # the earliest in the chain, one that names its file if any does
    if isinstance(root, OSError) and root.filename:
        what = f"cannot write {root.filename} ({root.strerror or root})"
    else:
        what = str(root).splitlines()[0] if str(root) else f"cannot write in {rundir}"
    return UserError(
        f"{what}; the run stopped and what was logged before is kept: "
        f"continue with --resume {rundir} once it can be written"
    )


def fail(message: str) -> None:
    """Print `ideaco: error: <message>` on stderr and exit 2."""
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    console.print(
        Text("ideaco: error: ", style="bold red") + Text(message.splitlines()[0] if message else "failed")
    )
    sys.exit(EXIT_USAGE)


def warn(lines: list[str]) -> None:
    """Print each line as `ideaco: warning: <line>` on stderr (at most WARNINGS_SHOWN, then a count)."""
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    for line in lines[:WARNINGS_SHOWN]:
        console.print(
            Text("ideaco: warning: ", style="bold yellow") + Text(line.splitlines()[0] if line else "")
        )
    if len(lines) > WARNINGS_SHOWN:
        console.print(Text(f"ideaco: warning: ... and {len(lines) - WARNINGS_SHOWN} more line(s) like these"))


class OneLineErrors(TyperGroup):
    """The `ideaco` group: a flag or argument click refuses (`--seed abc`, a missing argument) is one
    `ideaco: error:` line and exit code 2, as every other bad input, not click's usage block.

    Help (`ideaco` with no arguments, `--help`) and exit codes are as click gives them."""

    def main(self, *args: Any, standalone_mode: bool = True, **kwargs: Any) -> Any:
        if not standalone_mode:
            return super().main(*args, standalone_mode=False, **kwargs)
        try:
            code = super().main(*args, standalone_mode=False, **kwargs)
        except click_errors.NoArgsIsHelpError as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click_errors.UsageError as exc:
            where = exc.ctx.command_path if exc.ctx else "ideaco"
            fail(f"{exc.format_message()} (see {where} --help)")
        except click_errors.ClickException as exc:
            fail(exc.format_message())
        except typer.Abort:
            print("Aborted!", file=sys.stderr)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)
