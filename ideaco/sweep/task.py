"""One run of a sweep, as a task: an ordinary run directory, then (if asked) the interviews.

`run_one(job)` is what a Ray worker (or the sweep itself, one by one) executes. It takes and
returns plain data, so it travels to another process or machine; it never raises for a failed
run: the outcome says why, and the sweep goes on.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import shutil
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ideaco.errors import IdeacoError
from ideaco.interview import ask_everyone, interviewees_now
from ideaco.llm.base import LLMError
from ideaco.session import ModelOptions, OpenedRun, open_new


@dataclass(frozen=True)
class Job:
    """Everything one run needs, as plain data."""

    name: str
    scenario: str
    rundir: str
    seed: int
    switches: dict[str, str]
    duration: str | None = None
    model: dict[str, Any] = field(default_factory=dict)  # ModelOptions fields
    replay: str | None = None
    record: str | None = None
    questions: tuple[str, ...] = ()
    interviews: str | None = None  # where the answers go (outside the run directory)


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
        opened = open_new(
            job.scenario,
            model=options,
            seed=job.seed,
            out=rundir,
            duration=job.duration,
            switches=job.switches,
        )
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
    except (IdeacoError, LLMError) as exc:
        outcome["error"] = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    except Exception as exc:  # a bug must not stop the other runs: say what and where
        where = traceback.extract_tb(exc.__traceback__)[-1]
        outcome["error"] = f"{type(exc).__name__}: {exc} ({Path(where.filename).name}:{where.lineno})"
    outcome["seconds"] = round(time.monotonic() - began, 2)
    return outcome


async def _run(opened: OpenedRun, job: Job) -> tuple[dict[str, Any], list[dict[str, Any]] | None]:
    office = opened.office
    began = time.monotonic()
    try:
        office.start()
        assert office.end_at is not None
        await office.run(until=office.end_at)
        summary = opened.finish(time.monotonic() - began)
        answers = None
        if job.questions and not office.failed:
            answers = [a.to_dict() for a in await _interview(opened, job.questions)]
        return summary, answers
    finally:
        await opened.stack.llm.aclose()


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
        model_for=lambda e: office.model_for(office.employees[e].model),
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
