"""Issue 22: cost grows with the work, not with time or junk. Two of the red team's costs, measured.

1. `ideaco report` on a 366-day run. The report used to loop over every thought for every simulated
   hour (on a 366-day run it did not finish in 400 s). Two runs of the same small office hold the
   same work, ten boss lines and what they set off, one with the lines an hour apart (10 hours),
   one with them spread over a year (40.6 days apart); the report of each (`analysis.report` and
   `metrics.evaluate`, what `ideaco report --json --no-plots` computes) is timed, and the ratio of
   the two says whether the report's cost follows the records (about 1) or the simulated time
   (about 880 for these spans). A third run has a boss line every day for 366 days: its report
   time per record beside the 10-hour run's.
2. The prompt under a task flood. A model that creates five tasks at every thought once grew every
   prompt to ~100 KB (normally ~4 KB). The same office is run for two hours with a model that
   creates none and one that floods; the largest prompt of each (characters) and their ratio.

The model is an in-process scripted one (no HTTP): what is measured is the engine and the report.
"""

from __future__ import annotations

import itertools
import json
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.offices import open_office
from benchmarks.table import Row, ratio
from ideaco.analysis import history, load_run, report
from ideaco.llm.base import ChatRequest, ChatResult, Usage
from ideaco.metrics import evaluate
from ideaco.mind import tasks
from ideaco.scenario import Scenario

NAME = "costs"
START = datetime(2026, 1, 5, 9, 0, 0)


def scenario(lines: list[timedelta], duration: timedelta) -> Scenario:
    """Two engineers in one work room (no casual room: no idle thinks), the boss's lines at `lines`."""
    return Scenario.model_validate(
        {
            "name": "costs",
            "company": "Cost Co",
            "start": START.isoformat(),
            "duration": f"{int(duration.total_seconds())}s",
            "employees": [
                {"id": "ann", "name": "Ann", "role": "Engineer", "archetype": "chatterbox"},
                {"id": "ben", "name": "Ben", "role": "Engineer", "archetype": "old-hand"},
            ],
            "rooms": [{"id": "work", "name": "Work", "kind": "work", "members": ["ann", "ben"]}],
            "script": [
                {"at": f"{int(at.total_seconds())}s", "to": "work", "text": f"Status, please ({n})."}
                for n, at in enumerate(lines)
            ],
        }
    )


class Scripted:
    """An LLM that answers each thought with `answer(request)` at once."""

    def __init__(self, answer: Any) -> None:
        self.answer = answer
        self.largest_prompt = 0

    async def complete(self, request: ChatRequest) -> ChatResult:
        size = sum(len(str(m.get("content"))) for m in request.messages)
        self.largest_prompt = max(self.largest_prompt, size)
        content = json.dumps(self.answer(request))
        return ChatResult(
            content=content, model="scripted", usage=Usage(size // 4 + 1, len(content) // 4 + 1)
        )

    async def aclose(self) -> None:
        return None


def _thought(speak: bool, text: str = "", task_ops: list[dict] | None = None) -> dict[str, Any]:
    return {
        "innerThoughts": "ok",
        "topicSaturation": 3,
        "interestLevel": 7,
        "shouldSpeak": speak,
        "reason": "bench",
        "messages": [{"content": text}] if speak else [],
        "taskOps": task_ops or [],
    }


def talker(_request: ChatRequest) -> dict[str, Any]:
    return _thought(True, "On it: checking the build.")


def flood() -> Any:
    chores = itertools.count(1)

    def answer(_request: ChatRequest) -> dict[str, Any]:
        ops = [
            {"op": "create", "description": f"Chore number {next(chores)}: tidy the build"} for _ in range(5)
        ]
        return _thought(True, "On it: five more chores.", ops)

    return answer


async def _run(scn: Scenario, llm: Scripted, run_dir: Path) -> None:
    bench = open_office(scn, llm=llm, run_dir=run_dir)
    bench.office.start()
    try:
        await bench.office.run()
        bench.office.checkpoint()
    finally:
        await bench.aclose()


def _report_seconds(run_dir: Path, repeat: int) -> tuple[float, int]:
    """The best of `repeat` timings of what `ideaco report --json --no-plots` computes; the records read."""
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        run = load_run(run_dir)
        hist = history(run)
        report(run, hist)
        evaluate(run, hist)
        best = min(best, time.perf_counter() - began)
    return best, len(run.thoughts) + len(run.messages)


async def measure(quick: bool = False) -> list[Row]:
    rows: list[Row] = []
    lines = 3 if quick else 10
    far = timedelta(days=365 if not quick else 6) / (lines - 1)  # the last line a year (quick: 6 days) in
    long_days = 30 if quick else 366
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        near_lines = [timedelta(hours=h) for h in range(lines)]
        far_lines = [far * n for n in range(lines)]
        await _run(scenario(near_lines, near_lines[-1] + timedelta(hours=1)), Scripted(talker), base / "near")
        await _run(scenario(far_lines, far_lines[-1] + timedelta(hours=1)), Scripted(talker), base / "far")
        daily = [timedelta(days=d) for d in range(long_days)]
        await _run(scenario(daily, daily[-1] + timedelta(hours=1)), Scripted(talker), base / "daily")
        near, near_n = _report_seconds(base / "near", 5)
        spread, spread_n = _report_seconds(base / "far", 5)
        span = (far_lines[-1] + timedelta(hours=1)) / (near_lines[-1] + timedelta(hours=1))
        r = ratio(spread, near)
        rows.append(
            Row(
                NAME,
                f"report time (s), the same {lines} boss lines over {far_lines[-1].days + 1} days vs over {lines} hours "
                f"({spread_n} vs {near_n} records; the spans differ {span:.0f}x)",
                spread,
                near,
                r,
                "<= 2 (follows the records, not the span)",
                r <= 2,
            )
        )
        year, year_n = _report_seconds(base / "daily", 1)
        per_near, per_year = near / near_n * 1e6, year / year_n * 1e6
        r = ratio(per_year, per_near)
        rows.append(
            Row(
                NAME,
                f"report time per record (us), a {long_days}-day run with a boss line a day "
                f"({year_n} records, {year:.2f} s) vs the {lines}-hour run",
                per_year,
                per_near,
                r,
                "<= 3 (linear in the records)",
                r <= 3,
            )
        )

        hours = timedelta(minutes=30 if quick else 120)
        every = [timedelta(minutes=m) for m in range(0, int(hours.total_seconds() // 60), 10)]
        calm, flooded = Scripted(talker), Scripted(flood())
        await _run(scenario(every, hours), calm, base / "calm")
        await _run(scenario(every, hours), flooded, base / "flood")
        held = max(
            sum(t.get("status") == "pending" for t in e.mind.get("tasks") or ())
            for e in load_run(base / "flood").employees
        )
        r = ratio(flooded.largest_prompt, calm.largest_prompt)
        rows.append(
            Row(
                NAME,
                f"largest prompt (characters), a model creating 5 tasks a thought vs none, "
                f"{hours.total_seconds() / 3600:g} h (pending tasks held at most: {held}, the bound {tasks.MAX_PENDING})",
                flooded.largest_prompt,
                calm.largest_prompt,
                r,
                "<= 2 (bounded: the flood was ~25x)",
                r <= 2,
            )
        )
    return rows
