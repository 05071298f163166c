"""The model side of opening a run: the model flags, the settings they resolve to, the stack they build.

Split from `session.py` (which opens the run around it); every office-running surface passes its
flags as `ModelOptions`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ideaco.agents.runner import MODEL as AGENT_MODEL
from ideaco.agents.runner import outcome_problem
from ideaco.endpoints import check_some_reachable
from ideaco.errors import IdeacoError
from ideaco.llm.base import LLMError
from ideaco.llm.config import BASE_URL_ENVS, DEFAULT_API_KEY_ENV, LLMSettings, resolve_settings
from ideaco.llm.factory import LLMStack, build_llm
from ideaco.redact import Secrets
from ideaco.scenario import Scenario


@dataclass
class ModelOptions:
    """The model flags every office-running command takes (spec 1.2)."""

    base_url: str | list[str] | None = None  # several: calls are balanced over them
    model: str | None = None
    api_key_env: str | None = None
    gguf: Path | None = None
    record: Path | None = None
    replay: Path | None = None
    max_calls: int | None = None
    max_tokens: int | None = None
    concurrency: int = 2
    speculate: int | None = None  # calls that may start before their think's moment (None: the default)
    threads: int | None = None  # embedded model: threads per llama.cpp instance
    slots: int | None = None  # embedded model: prompt-cache slots in all
    trust_scenario_endpoint: bool = False  # send the user's key to an endpoint the scenario chose
    rate: str | None = None  # requests sent at most, e.g. "60/min" (else IDEACO_RATE; None: unpaced)
    allow_agent_commands: bool = False  # run the commands a scenario's agent employees name (issue 20)
    filters: str | None = None  # the text rules: strict or standard (None: the scenario's, else by model)


def resolve_model_settings(options: ModelOptions, scenario: Scenario) -> LLMSettings:
    if options.filters is not None and options.filters not in ("strict", "standard"):
        raise IdeacoError(f"--filters {options.filters!r}: expected strict or standard")
    try:
        return resolve_settings(
            cli_base_url=options.base_url,
            cli_model=options.model,
            cli_api_key_env=options.api_key_env,
            gguf=options.gguf,
            scenario_llm=scenario.llm,
            env=os.environ,
            threads=options.threads,
            slots=options.slots,
            trust_scenario_endpoint=options.trust_scenario_endpoint,
            rate=options.rate,
        )
    except ValueError as exc:
        raise IdeacoError(str(exc)) from None


def run_secrets(options: ModelOptions, settings: LLMSettings, env: Mapping[str, str] = os.environ) -> Secrets:
    """The run's own secrets, for what must keep them out (an agent command): the variable holding
    the key (`--api-key-env`, else OPENAI_API_KEY) and its value, sent or withheld, and the URL
    credentials of every endpoint, the environment's base URLs included."""
    key_env = options.api_key_env or DEFAULT_API_KEY_ENV
    urls = [*settings.endpoints, *(env.get(name) for name in BASE_URL_ENVS)]
    return Secrets.of([key_env], [settings.api_key, env.get(key_env)], urls)


def open_llm(
    options: ModelOptions,
    settings: LLMSettings,
    status: Callable[[str], None],
    *,
    calls: int = 0,
    tokens: int = 0,
    employees: int = 0,
) -> LLMStack:
    """Build the model stack; says what it connects to, starts the embedded model if needed
    (keeping `employees` prompts warm: one llama.cpp cache slot each)."""
    if options.replay is None and not settings.embedded and settings.base_url:
        check_some_reachable(settings.endpoints, status)
    if options.replay is not None and not options.replay.is_file():
        raise IdeacoError(f"--replay file not found: {options.replay}")
    if options.replay is None and settings.embedded:
        if not settings.gguf:
            prepare_default_model(status)
        status(f"starting the embedded model ({settings.gguf or 'SmolLM2-135M-Instruct'}) …")
    if options.replay is None and settings.key_withheld:
        status(f"note: {settings.withheld_note()}")
    for note in settings.notes:
        status(f"note: {note}")
    try:
        stack = build_llm(
            settings,
            record=options.record,
            replay=options.replay,
            max_calls=options.max_calls,
            max_tokens=options.max_tokens,
            concurrency=options.concurrency,
            calls=calls,
            tokens=tokens,
            employees=employees,
            replay_checks={AGENT_MODEL: outcome_problem},  # an agent command's recorded outcomes
        )
    except LLMError as exc:
        raise IdeacoError(str(exc)) from None
    if stack.layout is not None:
        status(f"embedded model: {stack.layout.describe()}")
    return stack


def speculate_for(options: ModelOptions, simulated: bool) -> int:
    """How many calls may start early: as given, else as many as may be in flight (`--concurrency`)
    on the simulated clock, and none on the real one (the boss's lines there come when they come)."""
    if options.speculate is not None:
        return options.speculate
    return options.concurrency if simulated else 0


def prepare_default_model(status: Callable[[str], None]) -> None:
    """Make the default model's fast copy before the servers start, saying so (the first run only)."""
    from ideaco.llm.embedded import ModelMissing, default_model

    try:
        default_model(say=status)
    except ModelMissing:
        pass  # starting the servers says what to install
