"""Rows of the results table and how they print (a Markdown table, readable in a terminal too)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass
class Row:
    """One measured quantity, side by side with its baseline or reference, and its target."""

    bench: str  # which measurement (engine, life, prompt, persistence, embedded, profile)
    what: str
    value: float | str
    reference: float | str = ""  # the baseline measured in the same run, or a reference figure
    ratio: float | str = ""
    target: str = ""
    met: bool | None = None  # None: informative, no target
    note: str = ""

    def cells(self) -> list[str]:
        met = "" if self.met is None else ("yes" if self.met else "**no**")
        return [
            self.bench,
            self.what,
            fmt(self.value),
            fmt(self.reference),
            fmt(self.ratio),
            self.target,
            met,
            self.note,
        ]


HEADER = ["bench", "measure", "ideaco", "baseline / reference", "ratio", "target", "met", "note"]


def fmt(value: float | str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def markdown(rows: Iterable[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for row in rows:
        lines.append("| " + " | ".join(c.replace("|", "/") for c in row.cells()) + " |")
    return "\n".join(lines)


def ratio(a: float, b: float) -> float:
    return a / b if b else float("inf")
