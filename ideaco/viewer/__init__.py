"""`ideaco view`: a run directory as one self-contained HTML page (no server, no network).

`data.py` gathers what the page shows through `RunLog`, `analysis.history` and
`metrics.evaluate`; `page.py` puts it, the script and the style into the Jinja2 template.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from ideaco.store.runlog import RunLog
from ideaco.viewer.data import gather
from ideaco.viewer.page import embed_json, render

__all__ = ["embed_json", "gather", "render", "write_view"]

FILE_NAME = "view.html"


def write_view(
    rundir: str | Path, out: str | Path | None = None, warn: Callable[[list[str]], None] | None = None
) -> Path:
    """Write the page of the run in `rundir` (default `<rundir>/view.html`); RunLogError if unreadable.

    `warn` is told the lines the run's logs hold that are no records (skipped), if any."""
    run = RunLog.open(rundir)
    if warn is not None and run.warnings:
        warn(run.warnings)
    data, records = gather(run)
    target = Path(out) if out is not None else Path(rundir) / FILE_NAME
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(render(data, records), encoding="utf-8")
    tmp.replace(target)  # a page being rewritten is never seen half-written
    return target
