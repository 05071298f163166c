"""Ablation sweeps: every combination of switches for every seed, each an ordinary run, then one table.

    import ideaco.sweep
    result = ideaco.sweep.sweep("scenarios/startup.yaml", out="runs/ablation", seeds="1-5",
                                vary={"gates": ["on", "off"], "wake": ["adaptive", "broadcast"]},
                                base_url="http://127.0.0.1:8000/v1", model="qwen2.5-7b")
    result.outputs        # comparison.md / .json / .png (and interviews.md)

`ideaco sweep` is the same from the command line (docs/evaluation.md). Runs are Ray tasks when
Ray is installed (`pip install 'ideaco[ray]'`), else they go one by one.

An intervention against a control, over seeds: `sweep(origin="runs/office", at="09:30", ...)`
(`ideaco sweep --from RUNDIR --at TIME`) makes every run a fork of that run at that moment, its
variant's switches and its seed the changes made there, and measures it from the moment on.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ideaco.endpoints import check_some_reachable
from ideaco.errors import IdeacoError
from ideaco.scenario import Scenario, ScenarioError, load_scenario
from ideaco.session import ModelOptions, parse_run_duration, resolve_model_settings
from ideaco.shipped import locate_scenario
from ideaco.store.lock import RunLockedError
from ideaco.store.rundir import RunDir
from ideaco.store.runlog import MOMENT_FORMS, RunLog, RunLogError, applied_at, parse_moment
from ideaco.sweep.execute import executor_for
from ideaco.sweep.plan import Plan, PlanError, parse_seeds, parse_vary
from ideaco.sweep.runner import SweepResult, run_sweep

__all__ = ["Plan", "PlanError", "SweepOptions", "SweepResult", "make_plan", "sweep"]


@dataclass
class SweepOptions:
    """A sweep as the command line gives it: a scenario, or a run to fork (`origin`) at a moment (`at`)."""

    scenario: Path | None
    seeds: str
    vary: list[str]  # ["gates=on,off", ...]
    out: Path
    duration: str | None = None
    address: str | None = None
    use_ray: bool = True
    questions: list[str] = field(default_factory=list)
    model: ModelOptions = field(default_factory=ModelOptions)
    replay_dir: Path | None = None
    record_dir: Path | None = None
    origin: Path | None = None  # --from RUNDIR
    at: str | None = None  # --at TIME


def make_plan(options: SweepOptions) -> Plan:
    """The sweep's plan, every flag checked (and the endpoints reached) before anything runs.

    Raises IdeacoError (one line) for a bad flag, scenario, original run or endpoint."""
    _check_source(options)
    path: Path | None = None
    moment: datetime | None = None
    try:
        seeds, vary = parse_seeds(options.seeds), parse_vary(options.vary)
        if options.origin is not None:
            scenario, moment = _original(options.origin, str(options.at))
        else:
            assert options.scenario is not None
            # A file, or a shipped scenario by name (as `run` takes it).
            path = locate_scenario(options.scenario)
            scenario = load_scenario(path)
    except (PlanError, ScenarioError) as exc:
        raise IdeacoError(str(exc)) from None
    if options.duration:
        parse_run_duration(options.duration)
    if options.replay_dir is not None and not options.replay_dir.is_dir():
        raise IdeacoError(f"--replay-dir {options.replay_dir}: not a directory")
    if options.replay_dir is not None and options.record_dir is not None:
        raise IdeacoError("--replay-dir and --record-dir exclude each other")
    settings = resolve_model_settings(options.model, scenario)
    if options.replay_dir is None and not settings.embedded:
        check_some_reachable(settings.endpoints, lambda _line: None)
    m = options.model
    model = {
        "base_url": ([m.base_url] if isinstance(m.base_url, str) else list(m.base_url))
        if m.base_url
        else None,
        "model": m.model,
        "api_key_env": m.api_key_env,
        "gguf": str(m.gguf) if m.gguf else None,
        "max_calls": m.max_calls,
        "max_tokens": m.max_tokens,
        "concurrency": m.concurrency,
        "rate": m.rate,  # each run paces its own requests
        "filters": m.filters,
        "replay_dir": str(options.replay_dir.resolve()) if options.replay_dir else None,
        "record_dir": str(options.record_dir.resolve()) if options.record_dir else None,
    }
    return Plan(
        scenario=path,
        vary=vary,
        seeds=seeds,
        out=options.out,
        duration=options.duration,
        model={k: v for k, v in model.items() if v is not None},
        questions=[q.strip() for q in options.questions if q.strip()],
        origin=options.origin,
        at=moment,
    )


def _check_source(options: SweepOptions) -> None:
    """A sweep runs a scenario, or forks a run at a moment: one of them, and --from with --at."""
    if options.origin is not None and options.at is None:
        raise IdeacoError("--from RUNDIR needs --at TIME: the moment every run forks it")
    if options.at is not None and options.origin is None:
        raise IdeacoError("--at TIME needs --from RUNDIR: the run whose past every run shares")
    if options.origin is not None and options.scenario is not None:
        raise IdeacoError(
            f"give a SCENARIO or --from RUNDIR, not both: a fork of {options.origin} goes on with its scenario"
        )
    if options.origin is None and options.scenario is None:
        raise IdeacoError("a sweep needs a SCENARIO, or --from RUNDIR --at TIME to fork a run's past")


def _original(origin: Path, at: str) -> tuple[Scenario, datetime]:
    """The scenario of the run every arm forks, and the moment they fork it at, checked as
    `ideaco fork` checks them (each arm's fork checks them again, whole)."""
    try:
        run = RunLog.open(origin)  # RunLogError: one line naming the directory
        RunDir(run.path).lock().release()  # a run another process writes is not forked mid-write
        scenario = Scenario.model_validate(run.office["scenario"])
    except RunLogError as exc:
        raise IdeacoError(f"--from {exc}") from None
    except RunLockedError as exc:
        raise IdeacoError(f"--from {origin}: {exc}; fork it once that run has stopped") from None
    except (KeyError, TypeError, ValueError):
        raise IdeacoError(f"--from {origin}: holds no office state this version can fork") from None
    try:
        moment = parse_moment(at, run.start.date())
    except ValueError:
        raise IdeacoError(f"--at {at!r} is not a moment ({MOMENT_FORMS})") from None
    last = max(
        [datetime.fromisoformat(m["at"]) for m in run.messages] + [applied_at(t) for t in run.thoughts],
        default=run.start,
    )
    if moment < run.start:
        raise IdeacoError(f"--at {moment:%H:%M:%S} is before the run's start ({run.start:%H:%M:%S})")
    if moment > last:
        raise IdeacoError(f"--at {moment:%H:%M:%S} is after the run's last event ({last:%H:%M:%S})")
    return scenario, moment


def sweep(
    scenario: str | Path | None = None,
    *,
    out: str | Path,
    origin: str | Path | None = None,
    at: str | None = None,
    seeds: str = "1-5",
    vary: Mapping[str, Sequence[str]] | None = None,
    duration: str | None = None,
    questions: Sequence[str] = (),
    base_url: str | list[str] | None = None,
    model: str | None = None,
    api_key_env: str | None = None,
    replay_dir: str | Path | None = None,
    record_dir: str | Path | None = None,
    max_calls: int | None = None,
    concurrency: int = 2,
    address: str | None = None,
    use_ray: bool = True,
    say: Callable[[str], None] = print,
) -> SweepResult:
    """Run (or resume) a sweep and write its comparison; `say` gets the progress lines. With `origin`
    and `at` (no scenario), every run is a fork of that run at that moment."""
    options = SweepOptions(
        scenario=Path(scenario) if scenario is not None else None,
        seeds=seeds,
        vary=[f"{name}={','.join(values)}" for name, values in (vary or {}).items()],
        out=Path(out),
        duration=duration,
        address=address,
        use_ray=use_ray,
        questions=list(questions),
        model=ModelOptions(
            base_url=base_url,
            model=model,
            api_key_env=api_key_env,
            max_calls=max_calls,
            concurrency=concurrency,
        ),
        replay_dir=Path(replay_dir) if replay_dir else None,
        record_dir=Path(record_dir) if record_dir else None,
        origin=Path(origin) if origin is not None else None,
        at=at,
    )
    plan = make_plan(options)
    executor, why = executor_for(options.address, use_ray=options.use_ray)
    if why:
        say(why)
    try:
        return run_sweep(plan, executor, say)
    finally:
        executor.close()
