"""The live transcript of a run, drawn with rich.

Agent and boss text is always shown literally: it is put into `rich.text.Text` objects (never
parsed as markup) and control characters, including terminal escape sequences, are made visible.
Every transcript line is one line: a line break in someone's text is shown as ⏎, and a line too
long for the terminal wraps under its text, never back at the time column, so nothing anyone
says can start a line that reads `09:10:00 ★ Boss: ...`.
"""

from __future__ import annotations

import os
import re
import sys
from datetime import datetime, timedelta
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn
from rich.table import Table
from rich.text import Text

from ideaco.ids import BOSS, SECRETARY, SYSTEM, display_name, script_line_number
from ideaco.kinds import MessageKind, StepKind
from ideaco.office.core.conversation import Message
from ideaco.reviews import WORK_TOOLS, line_text

PALETTE = (
    "cyan",
    "magenta",
    "green",
    "yellow",
    "blue",
    "bright_red",
    "bright_cyan",
    "bright_magenta",
    "bright_green",
)
# C0/C1 controls (ESC starts every terminal escape sequence), plus the Unicode bidi overrides and
# zero-width characters that could disguise what a line says.
_CONTROL = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]"
)
NEWLINE = "⏎"  # how a line break inside someone's text is shown
# The tools whose success changes the workspace or a review: printed as a line of work (not
# read_document, which changes nothing).
TIME_WIDTH = 8  # "09:01:15": a transcript line's text wraps to the right of it


# A pipe or a file has no width: lines are not wrapped there (a table still needs some bound).
PIPE_WIDTH = 4096
_TRAILING = re.compile(r"[ \t]+((?:\x1b\[[0-9;]*m)*)$")  # spaces before a line's end (and its style resets)


class _StripTrailing:
    """Standard output as it was when made, with each line's trailing spaces (a table's padding) left out.

    It keeps that stream: a live display (the run's progress bar) swaps `sys.stdout` for a proxy
    that prints through this console, and writing to the new one would go round in a circle.
    """

    def __init__(self) -> None:
        self._out = sys.stdout
        self._pending = ""

    def write(self, text: str) -> int:
        lines = (self._pending + text).split("\n")
        self._pending = lines.pop()
        if lines:
            self._out.write("".join(_TRAILING.sub(r"\1", line) + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._out.write(self._pending)
            self._pending = ""
        self._out.flush()

    def isatty(self) -> bool:
        return self._out.isatty()

    def fileno(self) -> int:
        return self._out.fileno()

    @property
    def encoding(self) -> str:
        return getattr(self._out, "encoding", None) or "utf-8"


def cli_console() -> Console:
    """A command's console: on a terminal as rich draws it; piped, no trailing spaces and no wrapping
    (unless COLUMNS asks for a width)."""
    if sys.stdout.isatty():
        return Console(highlight=False)
    width = None if os.environ.get("COLUMNS") else PIPE_WIDTH
    return Console(highlight=False, file=_StripTrailing(), width=width)  # type: ignore[arg-type]


def safe_text(text: str) -> str:
    """Text as one line that cannot drive the terminal: control characters (ESC, BEL, ...) made
    visible, a line break shown as ⏎."""
    visible = _CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}", text
    )
    return visible.replace("\n", NEWLINE)


def transcript_line(at: str, body: Text, style: str = "dim", *, wraps: bool = True) -> Table | Text:
    """A transcript line: the time, then the body, which wraps under itself (a hanging indent).

    `wraps=False`: where nothing wraps (a piped chat), the same as one plain line."""
    if not wraps:
        return Text.assemble((at + " ", style), body)
    grid = Table.grid(padding=(0, 1))
    grid.add_column(width=max(len(at), TIME_WIDTH), no_wrap=True, style=style)
    grid.add_column(overflow="fold")
    grid.add_row(Text(at), body)
    return grid


class Transcript:
    """An office observer that prints messages (and, optionally, silent thoughts) as they happen."""

    def __init__(self, console: Console, *, show_thoughts: bool = False, marks_script: bool = False) -> None:
        self.console = console
        self.show_thoughts = show_thoughts
        # In the chat the boss types too: the scenario's own lines read `★ Boss (script)` (issue 37).
        self.marks_script = marks_script
        self._colours: dict[str, str] = {}
        self._last_conversation: str | None = None
        self.progress: Progress | None = None
        self._task: TaskID | None = None
        self._start: datetime | None = None

    @property
    def _wraps(self) -> bool:
        # A piped chat never wraps a line (soft_wrap, no terminal); everywhere else rich wraps at
        # the width, and a terminal's own wrapping would start a line at column 0.
        return not (self.console.soft_wrap and not self.console.is_terminal)

    def colour(self, who: str) -> str:
        if who == BOSS:
            return "bold red"
        if who not in self._colours:
            self._colours[who] = PALETTE[len(self._colours) % len(PALETTE)]
        return self._colours[who]

    def new_block(self) -> None:
        """Other output came between (a chat command's): the next message says its room again."""
        self._last_conversation = None

    def _header(self, office: Any, conversation: str) -> None:
        if conversation != self._last_conversation:
            conv = office.conversations.get(conversation)
            label = conv.name if conv else conversation  # a room the secretary named: agent text
            self.console.print(Text(f"── {safe_text(label)} [{safe_text(conversation)}]", style="dim"))
            self._last_conversation = conversation

    def on_message(self, office: Any, message: Message) -> None:
        self._header(office, message.conversation)
        at, line = message.at.strftime("%H:%M:%S"), Text()
        if message.kind == MessageKind.ESCALATION:  # one notice line the boss cannot miss
            who = safe_text(office.name_of(message.sender))
            line.append(f"⚑ {who} escalates to you: ", style="bold yellow")
            line.append(safe_text(message.text))
            line.append(f"  (/dm {safe_text(message.sender)} to answer)", style="dim")
            self.console.print(transcript_line(at, line, wraps=self._wraps))
            self._advance(office)
            return
        if message.sender == BOSS:  # the scenario's script line, or what the user typed
            script = " (script)" if self.marks_script and script_line_number(message.id) is not None else ""
            line.append(f"★ {display_name(BOSS)}{script}", style="bold red")
        elif message.sender == SYSTEM:
            line.append(display_name(SYSTEM), style="dim italic")
        else:
            line.append(
                safe_text(office.name_of(message.sender)), style=f"bold {self.colour(message.sender)}"
            )
        line.append(": ")
        line.append(safe_text(message.text))
        self.console.print(transcript_line(at, line, wraps=self._wraps))
        self._advance(office)

    def on_thought(self, office: Any, record: dict[str, Any]) -> None:
        self._advance(office)
        if self.show_thoughts and not record.get("spoke"):
            self._thought_line(office, record)
        self._work_lines(office, record)

    def _work_lines(self, office: Any, record: dict[str, Any]) -> None:
        """What a thought did to the workspace, a line per tool that changed it: the work a run does
        is watched where its talk is (`✎ Dev wrote docs/release-notes.md (version 150429f2)`)."""
        applied = record.get("applied") or {}
        done = [
            s
            for s in applied.get("steps") or []
            if s.get("step") == StepKind.TOOL and s.get("ok") and s.get("tool") in WORK_TOOLS
        ]
        if not done:
            return
        at = datetime.fromisoformat(applied.get("at") or record["at"]).strftime("%H:%M:%S")
        who = safe_text(office.name_of(record["employee"]))
        for step in done:
            line = Text(f"✎ {who} ", style="bold")
            line.append(safe_text(line_text(step)), style="italic")
            self.console.print(transcript_line(at, line, wraps=self._wraps))
        self._last_conversation = None  # the next message names its room again

    def _thought_line(self, office: Any, record: dict[str, Any]) -> None:
        thought = record.get("thought") or {}
        gate = record.get("gate")
        line = Text(style="dim")
        # Shown at the moment it landed, as a spoken thought's messages are (its `at` is when it
        # began): the transcript stays in time order.
        landed = (record.get("applied") or {}).get("at") or record["at"]
        at = datetime.fromisoformat(landed).strftime("%H:%M:%S")
        line.append(
            f"({safe_text(office.name_of(record['employee']))} thinks in {safe_text(str(record['conversation']))}"
        )
        line.append(f", {gate})" if gate else ")")
        inner = thought.get("innerThoughts") or record.get("error") or ""
        line.append(" " + safe_text(inner[:300]), style="dim italic")
        self.console.print(transcript_line(at, line, wraps=self._wraps))

    # ------------------------------------------------------------------ progress of simulated time

    def start_progress(self, start: datetime, end: datetime) -> Progress:
        self._start = start
        self.progress = Progress(
            TextColumn("[bold]simulated time"),
            BarColumn(),
            TextColumn("{task.fields[now]} / {task.fields[end]}"),
            TextColumn("{task.fields[stats]}"),
            console=self.console,
            transient=True,
        )
        total = max((end - start).total_seconds(), 1.0)
        self._task = self.progress.add_task(
            "run", total=total, now=start.strftime("%H:%M"), end=end.strftime("%H:%M"), stats=""
        )
        return self.progress

    def _advance(self, office: Any) -> None:
        if self.progress is None or self._task is None or self._start is None:
            return
        now = office.clock.now()
        stats = office.stats
        self.progress.update(
            self._task,
            completed=(now - self._start).total_seconds(),
            now=now.strftime("%H:%M"),
            stats=f"{stats.thoughts} thoughts · {stats.messages} messages · {stats.llm_calls} calls",
        )


def summary_table(office: Any, summary: dict[str, Any]) -> Table:
    """The closing table: per employee, then totals."""
    title = f"{office.company}: {summary['simulated_time']} simulated in {summary['wall_time_s']:.0f} s"
    table = Table(title=Text(safe_text(title), style="italic"))  # the company's name is text, not markup
    for column in ("employee", "thoughts", "spoke", "silent", "messages", "prompt tok", "completion tok"):
        table.add_column(column, justify="right" if column != "employee" else "left")
    for emp_id, row in summary["by_employee"].items():
        if emp_id == SECRETARY and not any(row.values()):
            continue  # every company has one; a row only when the boss used it
        table.add_row(
            Text(safe_text(office.name_of(emp_id))),
            str(row["thoughts"]),
            str(row["spoke"]),
            str(row["silent"]),
            str(row["messages"]),
            str(row["prompt_tokens"]),
            str(row["completion_tokens"]),
        )
    # The boss's (and the engine's) lines, so that the messages column adds up to the total.
    for sender, count in sorted(summary.get("messages_by_sender", {}).items()):
        if sender not in summary["by_employee"]:
            label = office.name_of(sender)
            table.add_row(Text(safe_text(label), style="dim"), "-", "-", "-", str(count), "-", "-")
    totals = summary
    table.add_section()
    table.add_row(
        "total",
        str(totals["thoughts"]),
        str(sum(r["spoke"] for r in totals["by_employee"].values())),
        str(sum(r["silent"] for r in totals["by_employee"].values())),
        str(totals["messages"]),
        str(totals["llm"]["prompt_tokens"]),
        str(totals["llm"]["completion_tokens"]),
    )
    return table


def format_duration(delta: timedelta) -> str:
    seconds = int(delta.total_seconds())
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"
