"""One run of a sweep, as a task: an ordinary run directory, then (if asked) the interviews.

`run_one(job)` is what a Ray worker (or the sweep itself, one by one) executes. It takes and
returns plain data, so it travels to another process or machine; it never raises for a failed
run: the outcome says why, and the sweep goes on. A job with an `origin` is a fork of that run at
`at` (`ideaco.fork.open_fork`), its switches and its seed the changes made there; its outcome's
counts are then those from the moment on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import shutil
import time
import traceback
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ideaco.compare import since
from ideaco.errors import IdeacoError
from ideaco.fork import ForkChanges, open_fork
from ideaco.interview import ask_everyone, interviewees_now
from ideaco.llm.base import LLMError
from ideaco.office.engine.office import Office
from ideaco.session import ModelOptions, OpenedRun, open_new
from ideaco.store.runlog import RunLog
from ideaco.store.usage import usage_totals


@dataclass(frozen=True)
class Job:
    """Everything one run needs, as plain data."""

    name: str
    scenario: str | None  # None for a fork: the original's scenario goes on
    rundir: str
    seed: int
    switches: dict[str, str]
    duration: str | None = None
    model: dict[str, Any] = field(default_factory=dict)  # ModelOptions fields
    replay: str | None = None
    record: str | None = None
    questions: tuple[str, ...] = ()
    interviews: str | None = None  # where the answers go (outside the run directory)
    origin: str | None = None  # a fork of this run directory ...
    at: str | None = None  # ... at this moment (ISO)


def run_one(job: Job) -> dict[str, Any]:
    """Run one office to its end; returns {run, status: done|failed, seconds, calls, messages, error}."""
    began = time.monotonic()
    outcome: dict[str, Any] = {"run": job.name, "status": "failed", "error": None}
    try:
        rundir = Path(job.rundir)
        if rundir.exists():  # a run cut short by an earlier sweep: it starts again from its beginning
            shutil.rmtree(rundir)
        options = ModelOptions(
            **job.model,
            replay=Path(job.replay) if job.replay else None,
            record=Path(job.record) if job.record else None,
        )
        if job.record and Path(job.record).exists():
            Path(job.record).unlink()  # a cut run's partial recording: recorded again from the start
        opened = _open(job, options, rundir)
        try:
            summary, answers = _run_to_end(_run(opened, job))
        finally:
            opened.close()
        if answers is not None and job.interviews:
            path = Path(job.interviews)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(answers, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
        if opened.office.failed:
            outcome["error"] = opened.office.stop_reason
        else:
            outcome["status"] = "done"
        outcome.update(
            calls=summary["llm"]["calls"], messages=summary["messages"], thoughts=summary["thoughts"]
        )
        if job.at is not None:  # a fork's summary counts its past too: the arm's own counts
            outcome.update(_counts_from(rundir, datetime.fromisoformat(job.at)))
    except (IdeacoError, LLMError) as exc:
        outcome["error"] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    except Exception as exc:  # a bug must not stop the other runs: say what and where
        where = traceback.extract_tb(exc.__traceback__)[-1]
        outcome["error"] = f"{type(exc).__name__}: {exc} ({Path(where.filename).name}:{where.lineno})"
    outcome["seconds"] = round(time.monotonic() - began, 2)
    return outcome


def _open(job: Job, options: ModelOptions, rundir: Path) -> OpenedRun:
    if job.origin is not None:
        assert job.at is not None
        changes = ForkChanges(switches=dict(job.switches), seed=job.seed)
        return open_fork(
            job.origin,
            at=datetime.fromisoformat(job.at),
            changes=changes,
            model=options,
            out=rundir,
            duration=job.duration,
        )
    assert job.scenario is not None
    return open_new(
        job.scenario,
        model=options,
        seed=job.seed,
        out=rundir,
        duration=job.duration,
        switches=job.switches,
    )


def _counts_from(rundir: Path, moment: datetime) -> dict[str, int]:
    """The calls, messages and thoughts a fork's run made from its moment on (as its metrics count)."""
    part = since(RunLog.open(rundir), moment)
    return {
        "calls": usage_totals(part.thoughts)["calls"],
        "messages": len(part.messages),
        "thoughts": len(part.thoughts),
    }


async def _run(opened: OpenedRun, job: Job) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
    office = opened.office
    began = time.monotonic()
    try:
        await opened.begin()  # a fork retraces its past here and makes its changes
        assert office.end_at is not None
        await office.run(until=office.end_at)
        await _cut_what_is_left(office)
        summary = opened.finish(time.monotonic() - began)
        answers = None
        if job.questions and not office.failed:
            answers = [a.to_dict() for a in await _interview(opened, job.questions)]
        return summary, answers
    finally:
        await opened.stack.llm.aclose()


async def _cut_what_is_left(office: Office) -> None:
    """The calls still out at the run's end (thinks that would finish after it) are cut and awaited
    before the model's client closes: once it is closed, one such call's next attempt would end in
    "client has been closed", a traceback at the loop's shutdown. The office's calls are cut first,
    from the top, so that each ends its connection's own tasks itself (one of those cut before it
    began leaves a coroutine never awaited); then whatever is left. The loop is this run's own
    (`_run_to_end`), so every other task in it is the run's."""
    office.cancel_inflight()
    await office.drain()
    me = asyncio.current_task()
    while left := [t for t in asyncio.all_tasks() if t is not me and not t.done()]:
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)


async def _interview(opened: OpenedRun, questions: tuple[str, ...]) -> list[Any]:
    """Every question to everyone at the end of the run (not counted in its budget)."""
    office = opened.office
    return await ask_everyone(
        opened.stack.outside_the_run(),
        interviewees_now(office),
        questions,
        office.now(),
        company=office.company,
        language=office.language,
        model_for=lambda e: office.models.of(office.employees[e].model),
        temperature=office.config.temperature,
    )


def _run_to_end(coroutine: Any) -> Any:
    """Run a run's coroutine to its end here, or, under a running event loop (Jupyter, without Ray),
    on a thread of its own: asyncio.run cannot nest."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()
