"""`ideaco report`'s collaboration section as tables: the metrics of docs/evaluation.md, and the
boss's lines (who replied, and whether the addressee answered)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from rich.table import Table
from rich.text import Text

from ideaco.cli.display import safe_text
from ideaco.metrics import SUMMARY
from ideaco.metrics.units import value_text

MAX_BOSS_ROWS = 30


def collaboration_table(section: dict[str, Any]) -> Table:
    table = Table(title="Collaboration (docs/evaluation.md)")
    table.add_column("metric")
    table.add_column("value", justify="right")
    summary = section["summary"]
    for metric in SUMMARY:
        table.add_row(metric.label, value_text(metric.key, summary.get(metric.key)))
    return table


def _addressees(row: dict[str, Any], names: dict[str, str]) -> Text:
    """Each employee the line spoke to in person, and whether they answered it before the next one."""
    out = Text()
    for n, who in enumerate(row.get("addressees") or ()):
        yes = who in row["answered_by_addressee"]
        out.append(", " if n else "")
        out.append(f"{safe_text(names.get(who, who))} ")
        out.append("yes" if yes else "no", style=None if yes else "yellow")
    return out if out else Text("-")


# The boss table's columns: a reply is anyone's, an answer the addressee's own (docs/evaluation.md).
BOSS_COLUMNS = ("at", "where", "kind", "replied first", "reply after", "answered by the addressee")


def boss_table(section: dict[str, Any], names: dict[str, str]) -> Table:
    table = Table(title="The boss's lines: who replied first and how soon; did the addressee answer")
    for column in BOSS_COLUMNS:
        table.add_column(column, justify="right" if column == "reply after" else "left")
    lines = section["boss"]["lines"]
    for row in lines[:MAX_BOSS_ROWS]:
        who = row["replied_by"]
        table.add_row(
            f"{datetime.fromisoformat(row['at']):%H:%M}",
            Text(safe_text(row["conversation"])),
            row["kind"],
            Text(safe_text(names.get(who, who))) if who else Text("nobody", style="yellow"),
            value_text("latency_s", row["latency_s"]),
            _addressees(row, names),
        )
    caption = [
        "replied first: the first employee the line names (or, naming nobody, anyone in its room) to "
        "write there or in their 1-on-1 after it, whatever they said",
        "answered by the addressee: each employee the line @-mentions, or the other side of its 1-on-1, "
        "and whether they answered it themselves (there or in their 1-on-1) before the boss's next line "
        "to them",
    ]
    if len(lines) > MAX_BOSS_ROWS:
        caption.insert(0, f"… and {len(lines) - MAX_BOSS_ROWS} more (all of them with --json)")
    table.caption = "\n".join(caption)
    return table
