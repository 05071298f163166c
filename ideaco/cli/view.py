"""`ideaco view RUNDIR [--out FILE] [--open]`: the run as one HTML page to open in a browser.

On a sweep's directory (no state.json, runs under `runs/`), each run gets its own page.
"""

from __future__ import annotations

from pathlib import Path

import typer


def view(
    rundir: Path = typer.Argument(..., help="A run directory (or a sweep's: one page per run)."),
    out: Path | None = typer.Option(
        None, "--out", help="The HTML file to write.", show_default="RUNDIR/view.html"
    ),
    open_page: bool = typer.Option(False, "--open", help="Open the page in the default browser."),
) -> None:
    """Write one self-contained HTML page of a run: timeline, thoughts, silences, charts, metrics."""
    from rich.console import Console
    from rich.text import Text

    from ideaco.cli.display import safe_text
    from ideaco.cli.errors import fail

    try:
        written = view_command(rundir, out)
    except ValueError as exc:  # RunLogError and its kin: one line naming the directory
        fail(str(exc))
        return
    except OSError as exc:
        fail(f"cannot write {exc.filename or out} ({exc.strerror or exc})")
        return
    console = Console(highlight=False, soft_wrap=True)
    for path in written:
        console.print(Text(f"wrote {safe_text(str(path))}"))
    if open_page:
        import webbrowser

        webbrowser.open(written[0].resolve().as_uri())


def view_command(rundir: Path, out: Path | None = None) -> list[Path]:
    """Write the page(s): one for a run directory, one per run for a sweep's directory."""
    from ideaco.cli.errors import warn
    from ideaco.store.rundir import STATE
    from ideaco.store.runlog import RunLogError
    from ideaco.sweep.plan import RUNS
    from ideaco.viewer import write_view

    runs = sorted(p.parent for p in (rundir / RUNS).glob(f"*/{STATE}")) if rundir.is_dir() else []
    if (rundir / STATE).exists() or not runs:
        return [write_view(rundir, out, warn)]
    if out is not None:
        raise RunLogError(f"{rundir} is a sweep of {len(runs)} runs: --out names one file; omit it")
    return [write_view(run, warn=warn) for run in runs]
