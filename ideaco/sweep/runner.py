"""Running a sweep: the runs not finished yet, as they finish, then the comparison.

A re-run of the same command resumes: runs done before (a `done` line in progress.jsonl and a
summary.json) are not redone; a failed or cut run starts again from its beginning. The table is
always made again from every finished run's directory: for a sweep from a fork, from each run's
logs from the moment on (`ideaco.compare.measure`, as `ideaco compare` measures two runs), the past
every run shares left out.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ideaco.compare import measure
from ideaco.metrics import evaluate
from ideaco.store.atomic import atomic_write_text
from ideaco.store.jsonl import JsonlLog
from ideaco.store.rundir import SUMMARY
from ideaco.store.runlog import RunLog, RunLogError, read_log
from ideaco.sweep.execute import Executor
from ideaco.sweep.plan import Plan, PlanError, RunSpec
from ideaco.sweep.table import comparison, markdown
from ideaco.sweep.task import Job

PROGRESS = "progress.jsonl"  # one line per finished run: its name and status


@dataclass
class SweepResult:
    """What a sweep did this time, and where its comparison is."""

    planned: int
    skipped: int  # finished by an earlier sweep
    done: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # run -> why
    outputs: list[Path] = field(default_factory=list)
    seconds: float = 0.0


def prepare(plan: Plan) -> None:
    """Create the sweep's directory and its sweep.json, or check a re-run matches the one there."""
    path = plan.out / "sweep.json"
    saved: dict[str, Any] = {}
    if path.exists():
        try:
            saved = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            raise PlanError(f"{path}: not a sweep plan (bad JSON)") from None
        plan.check_same(saved)
    elif plan.out.exists() and not plan.out.is_dir():
        raise PlanError(f"--out {plan.out}: is a file; a sweep's --out is a directory (created if missing)")
    elif plan.out.exists() and any(plan.out.iterdir()):
        raise PlanError(f"--out {plan.out}: the directory holds something other than a sweep")
    plan.out.mkdir(parents=True, exist_ok=True)
    seeds = sorted(set(saved.get("seeds") or []) | set(plan.seeds))
    atomic_write_text(path, json.dumps({**plan.identity(), "seeds": seeds}, indent=2) + "\n")


def finished(plan: Plan) -> set[str]:
    """Runs an earlier sweep finished: their last progress line says done and summary.json is there."""
    last: dict[str, str] = {}
    for line in read_log(plan.out / PROGRESS):
        last[str(line.get("run"))] = str(line.get("status"))
    return {
        name
        for name, status in last.items()
        if status == "done" and (plan.runs_dir / name / SUMMARY).exists()
    }


def job_for(plan: Plan, run: RunSpec) -> Job:
    model = {k: v for k, v in plan.model.items() if k not in ("replay_dir", "record_dir")}
    replay = record = None
    if plan.model.get("replay_dir"):  # <run>.jsonl, or <run>.jsonl.gz (neither: the run fails, saying so)
        plain = Path(plan.model["replay_dir"]) / f"{run.name}.jsonl"
        packed = plain.with_name(plain.name + ".gz")
        replay = str(packed if packed.exists() and not plain.exists() else plain)
    if plan.model.get("record_dir"):
        record = str(Path(plan.model["record_dir"]) / f"{run.name}.jsonl")
    return Job(
        name=run.name,
        scenario=str(plan.scenario.resolve()) if plan.scenario is not None else None,
        rundir=str(plan.run_dir(run).resolve()),
        seed=run.seed,
        switches=dict(run.variant.values),
        duration=plan.duration,
        model=model,
        replay=replay,
        record=record,
        questions=tuple(plan.questions),
        interviews=str(plan.interview_path(run).resolve()) if plan.questions else None,
        origin=str(plan.origin.resolve()) if plan.origin is not None else None,
        at=plan.at.isoformat() if plan.at is not None else None,
    )


def progress_line(n: int, total: int, run: RunSpec, outcome: dict[str, Any], label: str = "") -> str:
    head = f"[{n:>{len(str(total))}}/{total}] {label or run.variant.label} seed {run.seed}:"
    seconds = outcome.get("seconds")
    took = f" in {seconds:.1f} s" if isinstance(seconds, (int, float)) else ""
    if outcome.get("status") == "done":
        return f"{head} done{took} · {outcome.get('calls', 0)} calls · {outcome.get('messages', 0)} messages"
    return f"{head} FAILED{took}: {outcome.get('error') or 'no reason given'}"


def run_sweep(
    plan: Plan, executor: Executor, say: Callable[[str], None], *, command: str = ""
) -> SweepResult:
    """Run what is missing (reporting each run as it finishes), then write the comparison."""
    began = time.monotonic()
    prepare(plan)
    runs = plan.runs()
    done_before = finished(plan)
    todo = [r for r in runs if r.name not in done_before]
    result = SweepResult(planned=len(runs), skipped=len(runs) - len(todo))
    variants = plan.variants
    if plan.origin is not None and plan.at is not None:
        say(f"every run forks {plan.origin} at {plan.at:%H:%M:%S} and is measured from then on")
    say(
        f"{len(variants)} variant{'s' if len(variants) != 1 else ''} x {len(plan.seeds)} seed"
        f"{'s' if len(plan.seeds) != 1 else ''} = {len(runs)} runs in {plan.out}: "
        f"{result.skipped} finished before, {len(todo)} to run {executor.description}"
    )
    by_name = {r.name: r for r in todo}
    log = plan.out / PROGRESS
    # Like a run's logs: a line torn by a kill is cut when the log is opened again, never appended to.
    with JsonlLog(log) as f:
        for n, outcome in enumerate(executor.run([job_for(plan, r) for r in todo]), start=1):
            f.append(outcome)
            f.sync()
            run = by_name[outcome["run"]]
            say(progress_line(n, len(todo), run, outcome, plan.label(run.variant)))
            if outcome.get("status") == "done":
                result.done.append(run.name)
            else:
                result.failed[run.name] = str(outcome.get("error"))
    result.outputs = write_outputs(plan, command)
    result.seconds = time.monotonic() - began
    return result


def collect(plan: Plan) -> dict[str, dict[int, dict[str, Any]]]:
    """variant -> seed -> the summary metrics of every finished run of this plan, from its directory."""
    done = finished(plan)
    out: dict[str, dict[int, dict[str, Any]]] = {}
    for run in plan.runs():
        if run.name not in done:
            continue
        try:
            out.setdefault(run.variant.name, {})[run.seed] = metrics_of(plan, plan.run_dir(run))
        except RunLogError:
            continue  # removed or damaged since: left out of the table
    return out


def metrics_of(plan: Plan, rundir: Path) -> dict[str, Any]:
    """A finished run's summary metrics: of the whole run, or for a fork from its moment on."""
    run = RunLog.open(rundir)
    if plan.at is None:
        return evaluate(run)["summary"]
    return measure(run, plan.at)


def write_outputs(plan: Plan, command: str = "") -> list[Path]:
    """comparison.json, comparison.md, comparison.png (and interviews.md with --question)."""
    from ideaco.sweep.interviews import interviews_markdown
    from ideaco.sweep.plot import comparison_png

    per_run = collect(plan)
    variants = [(v.name, plan.label(v)) for v in plan.variants]
    data = comparison(variants, per_run)
    data["sweep"] = {**plan.identity(), "seeds": plan.seeds, "command": command}
    seeds = ", ".join(map(str, plan.seeds))
    every = ". Every run is a directory under `runs/` (`ideaco report` / `ideaco inspect` read it)."
    if plan.origin is not None and plan.at is not None:
        notes = [
            f"Forks of `{plan.origin}` at {plan.at:%Y-%m-%d %H:%M:%S}, seeds {seeds}"
            + (f", {plan.duration} each from then" if plan.duration else ", each to the original's end")
            + every,
            "Each run's metrics are from that moment on: the past every run shares is left out.",
        ]
    else:
        notes = [
            f"Scenario `{plan.scenario}`, seeds {seeds}"
            + (f", {plan.duration} each" if plan.duration else "")
            + every
        ]
    if command:
        notes.insert(0, f"`{command}`")
    paths = [plan.out / "comparison.json", plan.out / "comparison.md", plan.out / "comparison.png"]
    atomic_write_text(paths[0], json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    atomic_write_text(paths[1], markdown(data, title="Sweep comparison", notes=notes))
    comparison_png(data, paths[2])
    if plan.questions:
        path = plan.out / "interviews.md"
        atomic_write_text(path, interviews_markdown(plan))
        paths.append(path)
    return paths
