"""`ideaco report RUNDIR`: metrics per employee and per simulated hour, collaboration, and PNG plots.

Human tables by default, one JSON document on stdout with `--json`. Names, roles and task
descriptions are agent- or user-written: they are shown literally (see display.py).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ideaco.analysis import RunData, RunError, history, load_run, report
from ideaco.cli.collaboration import boss_table, collaboration_table
from ideaco.cli.display import cli_console, format_duration, safe_text
from ideaco.cli.errors import UserError, warn
from ideaco.ids import BOSS, display_name
from ideaco.metrics import evaluate
from ideaco.mind.tasks import STATUSES
from ideaco.store.forks import changes_text, read_fork
from ideaco.store.rundir import RunDirError

CLIP = 48  # characters of a task description in the tasks table
MAX_HOUR_ROWS = 48  # a long run's busy hours: the first ones shown (an hour with nothing in it is left out)
MAX_TASK_ROWS = 40  # a long run's tasks: the first ones shown, the rest counted (all are in --json)


def report_command(
    rundir: Path, *, as_json: bool, plots: bool, compact: bool = False, console: Console | None = None
) -> int:
    """Print the report of a run directory (tables, or JSON) and write its plots unless told not to."""
    try:
        run = load_run(rundir)
    except RunError as exc:
        raise UserError(str(exc)) from None
    warn(run.warnings)  # lines that are no records, skipped; a state from another run
    hist = history(run)
    data = report(run, hist)
    data["collaboration"] = evaluate(run, hist)
    fork = read_fork(run.path)
    data["fork"] = fork.to_dict() if fork is not None else None
    written = _plots(run, hist) if plots else []
    if as_json:
        data["plots"] = [str(p) for p in written]
        sys.stdout.write(json.dumps(data, ensure_ascii=True, indent=None if compact else 2) + "\n")
        sys.stdout.flush()
        return 0
    console = console or cli_console()
    show(console, data)
    if plots:
        console.print(Text("Plots written:", style="bold"))
        for path in written:
            console.print(Text(f"  {safe_text(str(path))}"))
    else:
        console.print(Text("Plots skipped (--no-plots).", style="dim"))
    return 0


def _plots(run: RunData, hist: Any) -> list[Path]:
    from ideaco.plots import write_plots  # matplotlib is slow to import: only when plotting

    try:
        return write_plots(run, hist)
    except RunDirError as exc:  # a link or a special file where a plot goes
        raise UserError(f"{exc}; use --no-plots to skip the plots") from None
    except OSError as exc:
        raise UserError(
            f"{run.path}: cannot write the plots ({exc.strerror or exc}); use --no-plots to skip them"
        ) from None


# ---------------------------------------------------------------------------- tables


def _name(data: dict[str, Any], eid: str) -> Text:
    row = data["employees"].get(eid)
    return Text(safe_text(row["name"] if row else eid))


def _seconds(value: float | None) -> str:
    return "-" if value is None else format_duration(timedelta(seconds=value))


def _gates(counts: dict[str, int]) -> str:
    return ", ".join(f"{gate} {n}" for gate, n in sorted(counts.items(), key=lambda kv: -kv[1])) or "-"


def _heading(data: dict[str, Any]) -> Text:
    info = data["run"]
    start, end = (
        datetime.fromisoformat(info["simulated_start"]),
        datetime.fromisoformat(info["simulated_end"]),
    )
    line = Text(safe_text(info.get("company") or "?"), style="bold")
    line.append(f" · {start:%Y-%m-%d %H:%M} → {end:%H:%M} simulated ({format_duration(end - start)})")
    if info.get("wall_time_s") is not None:
        line.append(f" in {info['wall_time_s']:.0f} s")
    if info["complete"]:
        line.append(f" · stopped: {safe_text(str(info.get('stop_reason')))}")
    else:
        line.append(" · no summary.json: the run was killed or is still running", style="yellow")
    return line


def employees_table(data: dict[str, Any]) -> Table:
    table = Table(title="Employees")
    for column in ("employee", "thoughts", "spoke", "%", "msgs", "tasks p/r/f", "resolve", "comfort"):
        table.add_column(
            column, justify="left" if column == "employee" else "right", no_wrap=column != "employee"
        )
    for eid, row in data["employees"].items():
        status = row["tasks"]["by_status"]
        st = row["stamina"]
        table.add_row(
            _name(data, eid),
            str(row["thoughts"]),
            str(row["spoke"]),
            f"{100 * row['speak_rate']:.0f}",
            str(row["messages"]),
            "/".join(str(status[s]) for s in STATUSES),
            _seconds(row["tasks"]["time_to_resolve"]["median_s"]),
            Text(f"{st['comfort']:.0f} {st['zone']}", style=st["zone"]),
        )
    t = data["totals"]
    status = t["tasks"]["by_status"]
    table.add_section()
    table.add_row(
        "total",
        str(t["thoughts"]),
        str(t["spoke"]),
        f"{100 * t['speak_rate']:.0f}",
        str(t["messages"]),
        "/".join(str(status[s]) for s in STATUSES),
        _seconds(t["tasks"]["time_to_resolve"]["median_s"]),
        "",
    )
    table.caption = (
        "%: thoughts that spoke · msgs: messages sent (the total includes the boss's) · "
        "resolve: median simulated time to resolve a task"
    )
    return table


def model_table(data: dict[str, Any]) -> Table:
    table = Table(title="Model use")
    for column in ("employee", "calls", "prompt tok", "completion tok", "cached tok"):
        table.add_column(column, justify="left" if column == "employee" else "right")
    keys = ("calls", "prompt_tokens", "completion_tokens", "cached_tokens")
    for eid, row in data["employees"].items():
        table.add_row(_name(data, eid), *(str(row[k]) for k in keys))
    table.add_section()
    table.add_row("total", *(str(data["totals"][k]) for k in keys))
    return table


def silences_table(data: dict[str, Any]) -> Table:
    table = Table(title="Silences by gate")
    for column in ("employee", "silent", "gates"):
        table.add_column(column, justify="right" if column == "silent" else "left")
    for eid, row in data["employees"].items():
        table.add_row(_name(data, eid), str(row["silent"]), _gates(row["silences_by_gate"]))
    table.add_section()
    table.add_row("total", str(data["totals"]["silent"]), _gates(data["totals"]["silences_by_gate"]))
    return table


def hours_table(data: dict[str, Any]) -> Table:
    hours = data["hours"]
    first = datetime.fromisoformat(data["run"]["simulated_start"]).date()
    days = any(datetime.fromisoformat(row["start"]).date() != first for row in hours)
    more = (
        f" (the first {MAX_HOUR_ROWS} of {len(hours)}; all in --json)" if len(hours) > MAX_HOUR_ROWS else ""
    )
    table = Table(title=f"Per simulated hour{more}")
    for column in ("hour", "msgs", "thoughts", "spoke", "calls", "tokens", "silences"):
        table.add_column(column, justify="left" if column in ("hour", "silences") else "right")
    for row in hours[:MAX_HOUR_ROWS]:
        start = datetime.fromisoformat(row["start"])
        table.add_row(
            f"{start:%Y-%m-%d %H:%M}" if days else f"{start:%H:%M}",
            str(row["messages"]),
            str(row["thoughts"]),
            str(row["spoke"]),
            str(row["calls"]),
            str(row["tokens"]),
            _gates(row["silences_by_gate"]),
        )
    return table


def tasks_table(data: dict[str, Any]) -> Table:
    table = Table(title="Tasks")
    for column in ("task", "owner", "status", "took", "description"):
        table.add_column(column, justify="right" if column == "took" else "left")
    for row in data["tasks"][:MAX_TASK_ROWS]:
        text = " ".join(row["description"].split())
        clipped = text if len(text) <= CLIP else text[: CLIP - 1] + "…"
        table.add_row(
            Text(safe_text(row["id"])),
            _name(data, row["owner"]),
            row["status"],
            _seconds(row["seconds_to_close"]),
            Text(safe_text(clipped)),
        )
    if len(data["tasks"]) > MAX_TASK_ROWS:
        table.caption = f"… and {len(data['tasks']) - MAX_TASK_ROWS} more (all of them with --json)"
    return table


def relationships_table(data: dict[str, Any]) -> Table:
    table = Table(title="Relationships (what the first thinks of the second)")
    for column in ("employee", "of", "updates", "net change", "affinity"):
        table.add_column(column, justify="left" if column in ("employee", "of") else "right")
    for eid, row in data["employees"].items():
        for rel in row["relationships"].values():
            table.add_row(
                _name(data, eid),
                Text(safe_text(rel["name"])),
                str(rel["updates"]),
                f"{rel['net_change']:+.0f}",
                f"{rel['affinity']:.0f}",
            )
    return table


def documents_table(data: dict[str, Any]) -> Table:
    """The workspace (issue 20): each document's versions and rejections, then each reviewer's rate."""
    work = data["documents"]
    table = Table(title=f"Documents ({work['written']} written)")
    for column in ("document", "author", "versions", "rejections", "review", "reviewer"):
        table.add_column(column, justify="right" if column in ("versions", "rejections") else "left")
    for row in work["documents"]:
        reviewer = _name(data, row["reviewer"]) if row["reviewer"] else Text("-")
        table.add_row(
            Text(safe_text(row["document"])),
            _name(data, row["author"]),
            str(row["versions"]),
            str(row["rejections"]),
            row["status"],
            reviewer,
        )
    rates = ", ".join(
        f"{safe_text(str(who))} {t['rejections']}/{t['reviews']} rejected"
        for who, t in work["reviewers"].items()
    )
    timed = [_requirement_line(data, r) for r in work.get("requirements") or ()]
    table.caption = "\n".join(([f"reviewers: {rates}"] if rates else []) + timed) or None
    return table


def _requirement_line(data: dict[str, Any], row: dict[str, Any]) -> str:
    """One requirement: reported and approved, in minutes after the boss handed it over."""

    def after(seconds: float | None) -> str:
        return "not yet" if seconds is None else f"after {seconds / 60:.0f} min"

    def name(who: str | None) -> str:
        return safe_text(str(data["employees"].get(who, {}).get("name", display_name(who or BOSS))))

    by = row.get("approved_by") or BOSS  # an older run's approval by a lead's think names the lead
    return (
        f"{row['requirement']} (lead {name(row['lead'])}): reported {after(row['reported_after_s'])}, "
        f"approved by {name(by) if by != BOSS else 'the boss'} {after(row['approved_after_s'])}"
    )


def show(console: Console, data: dict[str, Any]) -> None:
    """The human report: a heading line, then the tables (empty ones are left out)."""
    console.print(_heading(data))
    if data.get("fork"):
        fork = data["fork"]
        said = changes_text(fork["changes"])
        console.print(
            Text(
                safe_text(f"A fork of {fork['origin']} at {fork['at'][11:19]}; changes: {said}"), style="dim"
            )
        )
    console.print(employees_table(data))
    console.print(model_table(data))
    if any(row["silences_by_gate"] for row in data["employees"].values()):
        console.print(silences_table(data))
    console.print(hours_table(data))
    if data["tasks"]:
        console.print(tasks_table(data))
    if data.get("documents"):
        console.print(documents_table(data))
    if any(row["relationships"] for row in data["employees"].values()):
        console.print(relationships_table(data))
    if "collaboration" in data:
        console.print(collaboration_table(data["collaboration"]))
        if data["collaboration"]["boss"]["lines"]:
            names = {eid: row["name"] for eid, row in data["employees"].items()}
            console.print(boss_table(data["collaboration"], names))
