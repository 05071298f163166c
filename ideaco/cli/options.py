"""The options several commands take, declared once: the model flags (spec 1.2), `--seed`, `--out`,
and `--switch NAME=VALUE` read into a mapping."""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Annotated

import typer

from ideaco.cli.errors import fail

# The model flags every office-running command takes (spec 1.2), declared once.
BaseUrl = Annotated[
    list[str] | None,
    typer.Option(
        "--base-url",
        help="OpenAI-compatible endpoint, e.g. http://localhost:11434/v1; give it more than once to balance "
        "calls over several.",
    ),
]
ModelName = Annotated[str | None, typer.Option("--model", help="Model name for every employee.")]
ApiKeyEnv = Annotated[
    str | None, typer.Option("--api-key-env", help="Environment variable holding the API key.")
]
AllowAgentCommands = Annotated[
    bool, typer.Option("--allow-agent-commands", help="Run the commands the scenario's agent employees name.")
]
TrustScenarioEndpoint = Annotated[
    bool,
    typer.Option(
        "--trust-scenario-endpoint",
        help="Send your API key to the endpoint the scenario's llm.base_url names (not sent otherwise).",
    ),
]
Gguf = Annotated[
    Path | None, typer.Option("--gguf", help="Serve this local GGUF model in-process instead of SmolLM2.")
]
Record = Annotated[
    Path | None, typer.Option("--record", help="Write every model request and answer to this file.")
]
Replay = Annotated[
    Path | None, typer.Option("--replay", help="Answer from a --record file; no model is contacted.")
]
MaxCalls = Annotated[
    int | None, typer.Option("--max-calls", min=1, help="Stop cleanly after this many model calls.")
]
MaxTokens = Annotated[
    int | None, typer.Option("--max-tokens", min=1, help="Stop cleanly after this many tokens.")
]
Concurrency = Annotated[int, typer.Option("--concurrency", min=1, help="Model calls in flight at once.")]
Speculate = Annotated[
    int | None,
    typer.Option(
        "--speculate",
        min=0,
        help="Model calls that may start before their think's moment, for thinks nothing before them "
        "changes (the run stays the same; 0: none). Default: --concurrency, 0 in the real-time chat.",
        show_default=False,
    ),
]
Threads = Annotated[
    int | None,
    typer.Option(
        "--threads",
        min=1,
        help="Embedded model: threads per llama.cpp instance (default 1: one instance per call in flight; env IDEACO_THREADS).",
    ),
]
Slots = Annotated[
    int | None,
    typer.Option(
        "--slots",
        min=1,
        help="Embedded model: prompt-cache slots in all (default one per employee; env IDEACO_SLOTS).",
    ),
]
Rate = Annotated[
    str | None,
    typer.Option(
        "--rate",
        help="Send at most this many model requests per unit of time, spaced evenly (retries count), "
        "e.g. 60/min, 2/s, 500/h; env IDEACO_RATE.",
        show_default="unlimited",
    ),
]
TextFilters = Annotated[
    str | None,
    typer.Option(
        "--filters",
        help="The rules people's texts are held to: strict (the guarantees and small-model hygiene) or "
        "standard (the guarantees only); docs/posting.md.",
        show_default="strict for the embedded model, standard for an endpoint",
        metavar="strict|standard",
    ),
]
Seed = Annotated[int, typer.Option("--seed", help="Seed of the run's one random generator.")]
Out = Annotated[
    Path | None, typer.Option("--out", help="The run directory itself (default runs/<scenario>-<time>/).")
]


def model_flags(params: dict) -> dict:
    """The model flags a command takes, out of its parameters, for `ideaco.model_options.ModelOptions`:
    its fields are the flags' names, listed there once (imported here when a command runs, not for
    `--help`)."""
    from ideaco.model_options import ModelOptions

    return {f.name: params[f.name] for f in fields(ModelOptions) if f.name in params}


def name_values(flag: str, items: list[str], example: str) -> list[tuple[str, str]]:
    """`NAME=VALUE` flags (the value may hold `=` itself) as pairs; one line for a malformed one."""
    out = []
    for item in items:
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            fail(f"{flag} {item!r}: expected {example}")
        out.append((name.strip(), value.strip()))
    return out


def switch_flags(items: list[str]) -> dict[str, str]:
    """`--switch gates=off` flags as a mapping (checked by `Switches.from_dict` when the run opens)."""
    return dict(name_values("--switch", items, "NAME=VALUE, e.g. gates=off"))
