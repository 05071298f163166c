"""`ideaco compare A B`: where two runs part, and their metrics side by side from that moment on.

Tables by default, one JSON document on stdout with `--json`, a PNG of the summary metrics with
`--plot FILE.png`. The logic is `ideaco/compare.py`; what agents and users wrote (messages, names,
a fork's boss line) is shown literally (display.py).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ideaco.cli.display import cli_console, safe_text
from ideaco.cli.errors import UserError, warn
from ideaco.compare import BETTER, PERSON, Comparison, compare, moment_text, plot_png
from ideaco.ids import display_name
from ideaco.metrics.units import difference_text, value_text
from ideaco.store.rundir import RunDirError, check_regular_or_missing
from ideaco.store.runlog import MOMENT_FORMS, RunLog, RunLogError, parse_moment

MAX_PEOPLE_ROWS = 20  # the people whose messages changed most; all of them are in --json
WHY = {
    "fork": "the fork's moment",
    "first difference": "where the messages first differ",
    "start": "the start: the messages are the same",
    "given": "as given by --from",
}


def compare_command(
    a: Path,
    b: Path,
    *,
    as_json: bool = False,
    plot: Path | None = None,
    since: str | None = None,
    compact: bool = False,
    console: Console | None = None,
) -> int:
    """Compare run B with run A: tables (or JSON), and the plot when asked."""
    if plot is not None and plot.suffix.lower() != ".png":
        raise UserError(f"--plot {plot}: give a file name ending in .png")
    if a.resolve() == b.resolve():
        raise UserError(f"{a} and {b} are the same run directory: give two runs to compare")
    runs = []
    for path in (a, b):
        try:
            runs.append(RunLog.open(path))
        except RunLogError as exc:
            raise UserError(str(exc)) from None
    moment = _moment(since, runs) if since else None
    result = compare(runs[0], runs[1], moment)
    warn(result.warnings)  # lines skipped in a log, other scenarios, a fork whose logs part early
    if plot is not None:
        _write(plot, plot_png(result))
    if as_json:
        doc = result.to_json() | ({"plot": str(plot)} if plot else {})
        sys.stdout.write(json.dumps(doc, ensure_ascii=True, indent=None if compact else 2) + "\n")
        sys.stdout.flush()
        return 0
    console = console or cli_console()
    show(console, result)
    if plot is not None:
        console.print(Text(f"Plot written: {safe_text(str(plot))}", style="bold"))
    return 0


def _moment(text: str, runs: list[RunLog]) -> datetime:
    """--from: `start`, or a moment (HH:MM on A's first day, or ISO)."""
    if text.strip().lower() == "start":
        return min(r.start for r in runs)
    try:
        return parse_moment(text, runs[0].start.date())
    except ValueError:
        raise UserError(f"--from {text!r} is not a moment: give 'start', {MOMENT_FORMS}") from None


def _write(path: Path, data: bytes) -> None:
    from ideaco.store.atomic import atomic_write_bytes

    try:
        check_regular_or_missing(path)
        atomic_write_bytes(path, data)
    except RunDirError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"{path}: cannot write the plot ({exc.strerror or exc})") from None


# ---------------------------------------------------------------------------- tables


def _style(key: str, value: Any) -> str | None:
    """Green when B does better on a metric with a better side, red when worse."""
    better = BETTER.get(key)
    if not isinstance(value, (int, float)) or not value or better is None:
        return None
    return "green" if (value > 0) == (better == "higher") else "red"


def _heading(result: Comparison) -> list[Text]:
    lines = []
    for side, run in (("A", result.a), ("B", result.b)):
        line = Text(f"{side}: ", style="bold")
        line.append(safe_text(str(run.path)))
        line.append(
            f"  ({safe_text(run.company or '?')}, {run.start:%Y-%m-%d %H:%M} → {run.end:%H:%M}, "
            f"{len(run.messages)} messages, {len(run.thoughts)} thoughts)",
            style="dim",
        )
        lines.append(line)
    if result.kinship is not None:
        origin = _shown(result.kinship.origin)
        lines.append(Text(safe_text(result.kinship.sentence(result.first_day, origin)), style="bold"))
    return lines


def _shown(path: Path) -> str:
    """A path as the user would type it: relative to the current folder when it is inside it."""
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _person(result: Comparison, who: str | None) -> str:
    if who is None:
        return ""
    names = result.b.names | result.a.names
    return safe_text(names.get(who) or display_name(who))


def parting_table(result: Comparison) -> Table | Text:
    """The first message that differs, side by side; or a line saying the messages are the same."""
    first = result.first
    if first is None:
        n = len(result.a.messages)
        return Text(f"Where they part: nowhere in the messages: both runs posted the same {n}.")
    table = Table(title=f"Where they part: message {first['index'] + 1}", title_justify="left")
    table.add_column("")
    table.add_column("A", overflow="fold")
    table.add_column("B", overflow="fold")
    sides = [first["a"], first["b"]]

    def cell(message: dict[str, Any] | None, field: str) -> Text:
        if message is None:
            return Text("(no more messages)" if field == "at" else "", style="dim")
        value = message.get(field)
        if field == "at":
            return Text(moment_text(datetime.fromisoformat(value), result.first_day))
        return Text(_person(result, value) if field == "sender" else safe_text(str(value)))

    for field, label in (("at", "time"), ("conversation", "room"), ("sender", "sender"), ("text", "text")):
        table.add_row(label, *(cell(m, field) for m in sides))
    return table


def metrics_table(result: Comparison) -> Table:
    when = moment_text(result.moment, result.first_day)
    table = Table(title=f"From {when} on ({WHY[result.reason]})", title_justify="left")
    for column in ("metric", "A", "B", "B − A"):
        table.add_column(column, justify="left" if column == "metric" else "right")
    for key, row in result.metrics.items():
        if key.startswith(PERSON):
            continue
        table.add_row(
            result.label(key),
            value_text(key, row["a"]),
            value_text(key, row["b"]),
            Text(difference_text(key, row["difference"]), style=_style(key, row["difference"]) or ""),
        )
    table.caption = "comfort, affinity: at each run's end · tasks: created or closed from the moment on"
    table.caption_justify = "left"
    return table


def people_table(result: Comparison) -> Table | None:
    rows = [(k, r) for k, r in result.metrics.items() if k.startswith(PERSON)]
    if not rows:
        return None
    rows.sort(key=lambda kr: (-abs(kr[1]["difference"] or 0), kr[0]))
    table = Table(title="Messages per person", title_justify="left")
    for column in ("person", "A", "B", "B − A"):
        table.add_column(column, justify="left" if column == "person" else "right")
    for key, row in rows[:MAX_PEOPLE_ROWS]:
        table.add_row(
            _person(result, key.removeprefix(PERSON)),
            f"{row['a']:,}",
            f"{row['b']:,}",
            difference_text(key, row["difference"]),
        )
    if len(rows) > MAX_PEOPLE_ROWS:
        table.caption = f"the {MAX_PEOPLE_ROWS} who changed most of {len(rows)} (all of them with --json)"
    return table


def show(console: Console, result: Comparison) -> None:
    for line in _heading(result):
        console.print(line)
    console.print(parting_table(result))
    console.print(metrics_table(result))
    people = people_table(result)
    if people is not None:
        console.print(people)
