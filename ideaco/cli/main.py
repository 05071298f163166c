"""The `ideaco` command line: a thin layer over the office and the run directory."""

from __future__ import annotations

from pathlib import Path

import typer

from ideaco.bounds import MAX_SPEED, MIN_SPEED
from ideaco.cli.errors import OneLineErrors, UserError, fail, interrupted
from ideaco.cli.listing import list_first_sentences
from ideaco.cli.options import (
    AllowAgentCommands,
    ApiKeyEnv,
    BaseUrl,
    Concurrency,
    Gguf,
    MaxCalls,
    MaxTokens,
    ModelName,
    Out,
    Rate,
    Record,
    Replay,
    Seed,
    Slots,
    Speculate,
    TextFilters,
    Threads,
    TrustScenarioEndpoint,
    model_flags,
    name_values,
    switch_flags,
)
from ideaco.cli.signals import Interrupted
from ideaco.cli.view import view
from ideaco.shipped import shipped_scenarios

SHIPPED = ", ".join(shipped_scenarios())  # named in SCENARIO's help

app = typer.Typer(
    name="ideaco",
    cls=OneLineErrors,
    help="Run a simulated office of autonomous LLM employees.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: a flag shows no "<bool>", and it reads the same when piped
)


@app.callback()
def _main() -> None:
    """ideaco: persistent employees who wake, think once, and decide for themselves whether to speak."""


@app.command()
def run(
    scenario: Path | None = typer.Argument(
        None,
        help=f"Scenario YAML file, or a shipped scenario by name: {SHIPPED} (omit with --resume).",
        show_default=False,
    ),
    duration: str | None = typer.Option(
        None,
        "--duration",
        help="Simulated time to run, e.g. 30m, 2h, 1h30m.",
        show_default="the scenario's; with --resume: to the run's end, or the scenario's again if it ended",
    ),
    seed: Seed = 7,
    out: Out = None,
    resume: Path | None = typer.Option(None, "--resume", help="Continue the run in this run directory."),
    base_url: BaseUrl = None,
    model: ModelName = None,
    api_key_env: ApiKeyEnv = None,
    gguf: Gguf = None,
    record: Record = None,
    replay: Replay = None,
    max_calls: MaxCalls = None,
    max_tokens: MaxTokens = None,
    concurrency: Concurrency = 2,
    speculate: Speculate = None,
    threads: Threads = None,
    slots: Slots = None,
    trust_scenario_endpoint: TrustScenarioEndpoint = False,
    rate: Rate = None,
    filters: TextFilters = None,
    allow_agent_commands: AllowAgentCommands = False,
    show_thoughts: bool = typer.Option(False, "--show-thoughts", help="Also print silent thoughts (dimmed)."),
    switch: list[str] | None = typer.Option(
        None,
        "--switch",
        help="Turn a part of the engine off, e.g. gates=off, wake=broadcast (docs/evaluation.md); repeatable.",
    ),
) -> None:
    """Run an office from SCENARIO on the simulated clock, printing the conversation."""
    from ideaco.cli.display import cli_console
    from ideaco.cli.run import RunOptions, run_command
    from ideaco.session import ModelOptions

    if (scenario is None) == (resume is None):
        fail("give a SCENARIO file, or --resume RUNDIR (not both)")
    if resume is not None and out is not None:
        fail("--out does not apply to --resume: the run continues in its own directory")
    if resume is not None and switch:
        fail("--switch does not apply to --resume: the run continues with the switches it started with")
    options = RunOptions(
        scenario=scenario,
        resume=resume,
        duration=duration,
        seed=seed,
        out=out,
        show_thoughts=show_thoughts,
        model=ModelOptions(**model_flags(locals())),
        switches=switch_flags(switch or []),
    )
    try:
        code = run_command(options, cli_console())
    except UserError as exc:
        fail(str(exc))
    except Interrupted as stop:
        interrupted(stop.signum)
    raise typer.Exit(code)


@app.command()
def chat(
    source: Path | None = typer.Argument(
        None, help="Scenario YAML (a new run) or a run directory (continued)."
    ),
    new: str | None = typer.Option(
        None, "--new", help="Start an empty company with this name: the boss and the secretary."
    ),
    out: Out = None,
    speed: float | None = typer.Option(
        None,
        "--speed",
        min=MIN_SPEED,
        max=MAX_SPEED,
        help="Real clock: every delay K times shorter.",
        show_default="1, or the last chat's in this run directory",
    ),
    seed: Seed = 7,
    base_url: BaseUrl = None,
    model: ModelName = None,
    api_key_env: ApiKeyEnv = None,
    gguf: Gguf = None,
    record: Record = None,
    replay: Replay = None,
    max_calls: MaxCalls = None,
    max_tokens: MaxTokens = None,
    concurrency: Concurrency = 2,
    speculate: Speculate = None,
    threads: Threads = None,
    slots: Slots = None,
    trust_scenario_endpoint: TrustScenarioEndpoint = False,
    rate: Rate = None,
    filters: TextFilters = None,
    allow_agent_commands: AllowAgentCommands = False,
) -> None:
    """Talk to the office as the boss while it runs (type /help for commands)."""
    from ideaco.cli.chat import ChatOptions, chat_command
    from ideaco.session import ModelOptions

    options = ChatOptions(
        source=source,
        new=new,
        out=out,
        speed=speed,
        seed=seed,
        model=ModelOptions(**model_flags(locals())),
    )
    try:
        code = chat_command(options)
    except UserError as exc:
        fail(str(exc))
    except Interrupted as stop:
        interrupted(stop.signum)
    raise typer.Exit(code)


@app.command()
def inspect(
    rundir: Path = typer.Argument(..., help="A run directory."),
    employee: str | None = typer.Option(None, "--employee", help="Only this employee's thoughts."),
    conversation: str | None = typer.Option(
        None, "--conversation", help="Only thoughts in this conversation."
    ),
    gate: str | None = typer.Option(None, "--gate", help="Only thoughts held by this gate (or 'spoke')."),
    since: str | None = typer.Option(
        None, "--since", help="Only thoughts from this simulated time (HH:MM or ISO)."
    ),
    follow: bool = typer.Option(False, "--follow", "-f", help="Keep printing new thoughts of a live run."),
    as_json: bool = typer.Option(False, "--json", help="One JSON document instead of the timeline."),
    compact: bool = typer.Option(False, "--compact", help="With --json: on one line, not indented."),
    docs: bool = typer.Option(False, "--docs", help="The workspace: each document's versions and reviews."),
) -> None:
    """The inner monologues: why each employee spoke or kept quiet."""
    from ideaco.cli.inspect import InspectOptions, inspect_command

    options = InspectOptions(
        rundir=rundir,
        employee=employee,
        conversation=conversation,
        gate=gate,
        since=since,
        follow=follow,
        as_json=as_json,
        compact=compact,
        docs=docs,
    )
    try:
        code = inspect_command(options)
    except UserError as exc:
        fail(str(exc))
    raise typer.Exit(code)


@app.command()
def fork(
    rundir: Path = typer.Argument(..., help="The run directory to fork (never changed).", show_default=False),
    at: str = typer.Option(..., "--at", help="The moment to fork at: HH:MM, HH:MM:SS or an ISO date-time."),
    out: Out = None,
    duration: str | None = typer.Option(
        None, "--duration", help="Simulated time to run after the moment.", show_default="to the run's end"
    ),
    say: list[str] | None = typer.Option(
        None,
        "--say",
        help="A boss line at the moment: ROOM=TEXT (a room id, boss:ID for a 1-on-1, or an employee id); repeatable.",
    ),
    switch: list[str] | None = typer.Option(
        None, "--switch", help="Turn a part of the engine off from the moment on, e.g. gates=off; repeatable."
    ),
    archetype: list[str] | None = typer.Option(
        None, "--archetype", help="Give an employee another personality: EMPLOYEE=ARCHETYPE; repeatable."
    ),
    drop_script: bool = typer.Option(
        False, "--drop-script", help="The scenario's boss lines after the moment are not posted."
    ),
    seed: int | None = typer.Option(None, "--seed", help="Another future from the same past: a new seed."),
    base_url: BaseUrl = None,
    model: ModelName = None,
    api_key_env: ApiKeyEnv = None,
    gguf: Gguf = None,
    record: Record = None,
    replay: Replay = None,
    max_calls: MaxCalls = None,
    max_tokens: MaxTokens = None,
    concurrency: Concurrency = 2,
    speculate: Speculate = None,
    threads: Threads = None,
    slots: Slots = None,
    trust_scenario_endpoint: TrustScenarioEndpoint = False,
    rate: Rate = None,
    filters: TextFilters = None,
    allow_agent_commands: AllowAgentCommands = False,
    show_thoughts: bool = typer.Option(False, "--show-thoughts", help="Also print silent thoughts (dimmed)."),
) -> None:
    """Fork a run at a past moment: the same past, one change or a few, then a new future (the original is never touched)."""
    from ideaco.cli.display import cli_console
    from ideaco.cli.fork import fork_command
    from ideaco.session import ModelOptions

    options = ModelOptions(**model_flags(locals()))
    try:
        code = fork_command(
            rundir,
            at=at,
            out=out,
            duration=duration,
            say=tuple(name_values("--say", say or [], "ROOM=TEXT, e.g. launch='We launch next week'")),
            switches=switch_flags(switch or []),
            archetypes=dict(
                name_values(
                    "--archetype", archetype or [], "EMPLOYEE=ARCHETYPE, e.g. zoe=anxious-perfectionist"
                )
            ),
            drop_script=drop_script,
            seed=seed,
            model=options,
            show_thoughts=show_thoughts,
            console=cli_console(),
        )
    except UserError as exc:
        fail(str(exc))
    except Interrupted as stop:
        interrupted(stop.signum)
    raise typer.Exit(code)


@app.command()
def report(
    rundir: Path = typer.Argument(..., help="A run directory."),
    as_json: bool = typer.Option(False, "--json", help="The metrics as one JSON document."),
    compact: bool = typer.Option(False, "--compact", help="With --json: on one line, not indented."),
    no_plots: bool = typer.Option(False, "--no-plots", help="Do not write the PNG plots."),
) -> None:
    """Metrics per employee and per simulated hour, collaboration metrics, and PNG plots in the run directory."""
    from ideaco.cli.report import report_command

    try:
        code = report_command(rundir, as_json=as_json, plots=not no_plots, compact=compact)
    except UserError as exc:
        fail(str(exc))
    raise typer.Exit(code)


@app.command()
def compare(
    a: Path = typer.Argument(..., help="A run directory (the control).", show_default=False),
    b: Path = typer.Argument(
        ..., help="Another run directory (a fork of A, or any other run).", show_default=False
    ),
    as_json: bool = typer.Option(False, "--json", help="The comparison as one JSON document."),
    compact: bool = typer.Option(False, "--compact", help="With --json: on one line, not indented."),
    plot: Path | None = typer.Option(
        None, "--plot", help="Draw the summary metrics of both runs into this PNG file."
    ),
    since: str | None = typer.Option(
        None,
        "--from",
        help="Measure from this moment (HH:MM or ISO) or from the start.",
        show_default="the fork's moment, else where the messages first differ",
    ),
) -> None:
    """Two runs side by side: where they part, and their metrics from that moment on (docs/evaluation.md)."""
    from ideaco.cli.compare import compare_command

    try:
        code = compare_command(a, b, as_json=as_json, plot=plot, since=since, compact=compact)
    except UserError as exc:
        fail(str(exc))
    raise typer.Exit(code)


@app.command()
def sweep(
    scenario: Path | None = typer.Argument(
        None,
        help=f"Scenario YAML file, or a shipped scenario by name: {SHIPPED}. Not with --from.",
        show_default=False,
    ),
    out: Path = typer.Option(..., "--out", help="The sweep's directory (the same again resumes the sweep)."),
    origin: Path | None = typer.Option(
        None, "--from", help="Fork this run directory: every run shares its past up to --at."
    ),
    at: str | None = typer.Option(
        None, "--at", help="With --from: the moment every run forks at (HH:MM, HH:MM:SS or ISO)."
    ),
    seeds: str = typer.Option("1-5", "--seeds", help="Seeds, e.g. 1-10 or 1,3,5."),
    vary: list[str] | None = typer.Option(
        None,
        "--vary",
        help="A switch and its values, e.g. gates=on,off or wake=adaptive,broadcast; repeatable.",
    ),
    duration: str | None = typer.Option(
        None,
        "--duration",
        help="Simulated time per run (default: the scenario's; with --from, after the moment, "
        "default to the original's end).",
    ),
    question: list[str] | None = typer.Option(
        None, "--question", help="Ask every employee this at the end of each run; repeatable."
    ),
    address: str | None = typer.Option(
        None, "--address", help="Join this Ray cluster (auto, ray://host:10001)."
    ),
    no_ray: bool = typer.Option(
        False, "--no-ray", help="Run one by one in this process even with Ray installed."
    ),
    replay_dir: Path | None = typer.Option(
        None, "--replay-dir", help="Answer each run from DIR/<run>.jsonl[.gz]; no model is contacted."
    ),
    record_dir: Path | None = typer.Option(
        None, "--record-dir", help="Record each run's calls to DIR/<run>.jsonl."
    ),
    base_url: BaseUrl = None,
    model: ModelName = None,
    api_key_env: ApiKeyEnv = None,
    gguf: Gguf = None,
    max_calls: MaxCalls = None,
    max_tokens: MaxTokens = None,
    concurrency: Concurrency = 2,
    rate: Rate = None,
    filters: TextFilters = None,
) -> None:
    """Run every combination of the varied switches for every seed, then compare them (docs/evaluation.md).

    With --from RUNDIR --at TIME every run is a fork of that run's past, measured from the moment on."""
    from ideaco.cli.sweep import sweep_command
    from ideaco.session import ModelOptions
    from ideaco.sweep import SweepOptions

    options = SweepOptions(
        scenario=scenario,
        seeds=seeds,
        vary=vary or [],
        out=out,
        duration=duration,
        address=address,
        use_ray=not no_ray,
        questions=question or [],
        replay_dir=replay_dir,
        record_dir=record_dir,
        model=ModelOptions(**model_flags(locals())),
        origin=origin,
        at=at,
    )
    try:
        code = sweep_command(options)
    except UserError as exc:
        fail(str(exc))
    raise typer.Exit(code)


@app.command()
def interview(
    rundir: Path = typer.Argument(..., help="A run directory."),
    words: list[str] = typer.Argument(
        ...,
        metavar="[EMPLOYEE] QUESTION",
        help='EMPLOYEE "question", or with --all just "question".',
    ),
    everyone: bool = typer.Option(
        False, "--all", help="Ask every employee but the secretary (ask it by id)."
    ),
    at: str | None = typer.Option(
        None, "--at", help="Ask about this simulated moment (HH:MM or ISO), not the end."
    ),
    as_json: bool = typer.Option(False, "--json", help="The answers as one JSON document."),
    base_url: BaseUrl = None,
    model: ModelName = None,
    api_key_env: ApiKeyEnv = None,
    gguf: Gguf = None,
    record: Record = None,
    replay: Replay = None,
    rate: Rate = None,
) -> None:
    """Ask an employee a question, in character, from its memory, relationships and tasks (the run is only read)."""
    from ideaco.cli.interview import InterviewOptions, interview_command
    from ideaco.session import ModelOptions

    options = InterviewOptions(
        rundir=rundir,
        words=words,
        everyone=everyone,
        at=at,
        as_json=as_json,
        model=ModelOptions(**model_flags(locals())),
    )
    try:
        code = interview_command(options)
    except UserError as exc:
        fail(str(exc))
    raise typer.Exit(code)


@app.command("reset-relationships")
def reset_relationships(
    rundir: Path = typer.Argument(..., help="A run directory."),
    employee: str | None = typer.Option(
        None, "--employee", help="Only impressions of this employee (default: all)."
    ),
) -> None:
    """Reset impressions: everyone's of one employee, or all of them (affinity back to 50)."""
    from ideaco.cli.display import cli_console
    from ideaco.cli.relationships import reset_relationships as reset

    try:
        cli_console().print(reset(rundir, employee))
    except UserError as exc:
        fail(str(exc))


app.command()(view)

list_first_sentences(app)  # click would cut each description at 45 characters
