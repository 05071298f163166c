"""Ablation sweeps: every combination of switches for every seed, each an ordinary run, then one table.

    import ideaco.sweep
    result = ideaco.sweep.sweep("scenarios/startup.yaml", out="runs/ablation", seeds="1-5",
                                vary={"gates": ["on", "off"], "wake": ["adaptive", "broadcast"]},
                                base_url="http://127.0.0.1:8000/v1", model="qwen2.5-7b")
    result.outputs        # comparison.md / .json / .png (and interviews.md)

`ideaco sweep` is the same from the command line (docs/evaluation.md). Runs are Ray tasks when
Ray is installed (`pip install 'ideaco[ray]'`), else they go one by one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ideaco.endpoints import check_some_reachable
from ideaco.errors import IdeacoError
from ideaco.scenario import ScenarioError, load_scenario
from ideaco.session import ModelOptions, parse_run_duration, resolve_model_settings
from ideaco.shipped import locate_scenario
from ideaco.sweep.execute import executor_for
from ideaco.sweep.plan import Plan, PlanError, parse_seeds, parse_vary
from ideaco.sweep.runner import SweepResult, run_sweep

__all__ = ["Plan", "PlanError", "SweepOptions", "SweepResult", "make_plan", "sweep"]


@dataclass
class SweepOptions:
    """A sweep as the command line gives it."""

    scenario: Path
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


def make_plan(options: SweepOptions) -> Plan:
    """The sweep's plan, every flag checked (and the endpoints reached) before anything runs.

    Raises IdeacoError (one line) for a bad flag, scenario or endpoint."""
    try:
        seeds, vary = parse_seeds(options.seeds), parse_vary(options.vary)
        path = locate_scenario(options.scenario)  # a file, or a shipped scenario by name (as `run` takes it)
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
    )


def sweep(
    scenario: str | Path,
    *,
    out: str | Path,
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
    """Run (or resume) a sweep and write its comparison; `say` gets the progress lines."""
    options = SweepOptions(
        scenario=Path(scenario),
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
    )
    plan = make_plan(options)
    executor, why = executor_for(options.address, use_ray=options.use_ray)
    if why:
        say(why)
    try:
        return run_sweep(plan, executor, say)
    finally:
        executor.close()
