"""Which endpoint, model and key to use: CLI flags > employee `model:` > scenario `llm:` > environment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, model_validator

from ideaco.llm.limits import parse_rate
from ideaco.redact import redact_url

DEFAULT_EMBEDDED_MODEL = "smollm2-135m"
DEFAULT_REMOTE_MODEL = "gpt-4o-mini"
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENVS = ("IDEACO_BASE_URL", "OPENAI_BASE_URL")
MODEL_ENV = "IDEACO_MODEL"
# Resilience knobs, from the environment only (a slow local model wants a longer timeout; tests
# want short waits): seconds one answer may take, tries per call, first backoff delay in seconds;
# also the defaults of the client, the retries and the balancer (openai_chat, retry, balanced).
DEFAULT_TIMEOUT = 120.0
DEFAULT_RETRY_ATTEMPTS = 4
DEFAULT_RETRY_DELAY = 1.0
DEFAULT_ENDPOINT_REST = 10.0  # seconds a failing endpoint rests first, when there are several
TIMEOUT_ENV = "IDEACO_TIMEOUT"
ENDPOINT_REST_ENV = "IDEACO_ENDPOINT_REST"
RETRIES_ENV = "IDEACO_RETRIES"
RETRY_DELAY_ENV = "IDEACO_RETRY_DELAY"
RATE_ENV = "IDEACO_RATE"  # requests sent at most, e.g. 60/min (the --rate flag wins)
# How the embedded model runs (see ideaco.llm.embedded.choose_layout): threads per llama.cpp
# instance, and prompt-cache slots in all. Unset: chosen for the machine and the office.
THREADS_ENV = "IDEACO_THREADS"
SLOTS_ENV = "IDEACO_SLOTS"
CACHE_RAM_ENV = "IDEACO_CACHE_RAM"  # MiB of llama.cpp's prompt cache in RAM per instance (0: none)

SCENARIO_KEY_ENV_REFUSED = (
    "a scenario cannot choose which environment variable is sent as your API key; "
    "pass --api-key-env NAME yourself"
)
TRUST_FLAG = "--trust-scenario-endpoint"
MAX_TOKENS_RENAMED = (
    "llm.max_tokens is deprecated: it caps each model answer, not the run (that is --max-tokens); "
    "call it llm.max_tokens_per_call"
)


def _refuse_key_choice(value: str | None) -> str | None:
    # Not `api_key_env`: a file someone sends you must not pick which of your variables is sent
    # as a Bearer token.
    if value is not None:
        raise ValueError(SCENARIO_KEY_ENV_REFUSED)
    return value


def _text(value: str | None) -> str | None:
    if value is not None and not value.strip():
        raise ValueError("expected a non-empty string")
    return value.strip() if value is not None else None


def _urls(value: str | list[str] | None) -> str | list[str] | None:
    if isinstance(value, list):  # several endpoints: calls are balanced over them
        if not value or not all(u.strip() for u in value):
            raise ValueError(f"expected a URL or a list of URLs, got {value!r}")
        return [u.strip() for u in value]
    return _text(value)


class ScenarioLLM(BaseModel):
    """A scenario's `llm:` block, validated here once; CLI flags and an employee's `model:` beat it."""

    model_config = ConfigDict(extra="forbid")

    model: Annotated[str | None, AfterValidator(_text)] = None
    base_url: Annotated[str | list[str] | None, AfterValidator(_urls)] = None
    temperature: float | None = Field(None, ge=0, le=2, strict=True)
    api_key_env: Annotated[str | None, AfterValidator(_refuse_key_choice)] = None  # named only to refuse it
    max_tokens_per_call: int | None = Field(None, gt=0, strict=True)  # the cap on each answer
    max_tokens: int | None = Field(None, gt=0, strict=True)  # its old name, still read (deprecated)

    @model_validator(mode="after")
    def _old_name(self) -> ScenarioLLM:
        if self.max_tokens is not None:
            if self.max_tokens_per_call not in (None, self.max_tokens):
                raise ValueError("give llm.max_tokens_per_call only (llm.max_tokens is its old name)")
            self.max_tokens_per_call = self.max_tokens
        return self

    @property
    def notes(self) -> tuple[str, ...]:
        """Lines to say when a run opens with this block (a deprecated key)."""
        return (MAX_TOKENS_RENAMED,) if self.max_tokens is not None else ()


@dataclass(frozen=True)
class LLMSettings:
    """Resolved model settings for a run. `embedded`: no endpoint given, ideaco serves one itself."""

    base_url: str | None  # the first endpoint (the only one, usually)
    model: str
    api_key: str | None = field(default=None, repr=False)
    embedded: bool = False
    gguf: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    retry_attempts: int = DEFAULT_RETRY_ATTEMPTS
    retry_base_delay: float = DEFAULT_RETRY_DELAY
    threads: int | None = None  # embedded only: threads per llama.cpp instance
    slots: int | None = None  # embedded only: prompt-cache slots in all
    cache_ram_mib: int | None = None  # embedded only: the RAM prompt cache per instance (None: the default)
    # Set when a key was in the environment but not sent: the scenario chose the endpoint.
    key_withheld: str | None = None
    base_urls: tuple[str, ...] = ()  # every endpoint when several are given (calls are balanced over them)
    endpoint_rest: float = DEFAULT_ENDPOINT_REST
    requests_per_second: float | None = None  # --rate / IDEACO_RATE; None: as fast as answered
    notes: tuple[str, ...] = ()  # lines to say when the run opens (a deprecated scenario key)

    @property
    def endpoints(self) -> tuple[str, ...]:
        """The endpoints to call: several, one, or none (embedded)."""
        return self.base_urls or ((self.base_url,) if self.base_url else ())

    def describe(self) -> str:
        """One line for the terminal, without the key (or a password in the URL)."""
        if self.embedded:
            source = f"embedded llama.cpp ({self.gguf or 'SmolLM2-135M-Instruct'})"
        else:
            source = ", ".join(redact_url(u) for u in self.endpoints)
        return f"model {self.model} via {source}"

    def withheld_note(self) -> str:
        """Why no key goes to the endpoint, and how to send it ("" when nothing was withheld)."""
        if not self.key_withheld:
            return ""
        return (
            f"{self.key_withheld} is not sent to {', '.join(redact_url(u) for u in self.endpoints)}, an endpoint the scenario "
            f"chose; pass {TRUST_FLAG} to send it there, or --base-url to choose the endpoint yourself"
        )


def _scenario_block(scenario_llm: ScenarioLLM | Mapping[str, Any] | None) -> ScenarioLLM:
    """The scenario's block as validated by `ScenarioLLM` (a mapping is validated now)."""
    if scenario_llm is None or isinstance(scenario_llm, ScenarioLLM):
        return scenario_llm or ScenarioLLM()
    try:
        return ScenarioLLM.model_validate(dict(scenario_llm))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(part) for part in err["loc"])
        message = str(err["msg"]).removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            message = f"unknown key (allowed: {', '.join(sorted(ScenarioLLM.model_fields))})"
        raise ValueError(f"llm.{where}: {message}" if where else f"llm: {message}") from None


# The most each variable may say (issue 37, item 3): past it a value overflows what llama.cpp or the
# clock takes (IDEACO_THREADS=4294967296 ended in an OverflowError traceback), so it is refused.
MOST_SECONDS = 86_400.0  # a timeout, a backoff delay, an endpoint's rest: a day
MOST_COUNT = 1024  # retries, threads, slots
MOST_MIB = 1 << 20  # a prompt cache of 1 TiB


def _env_number(
    env: Mapping[str, str], name: str, default: float, *, integer: bool = False, most: float = MOST_SECONDS
) -> float:
    """A positive number from the environment, at most `most`; ValueError naming the variable if it
    is not one (digits of another script, `²`, a sign, NaN or infinity, too large)."""
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    value: float | None = None
    if raw.isascii():  # int() and float() read Arabic-Indic or full-width digits, and "²" is a digit
        try:
            value = int(raw) if integer else float(raw)
        except ValueError:
            value = None
    kind = "a positive integer" if integer else "a positive number of seconds"
    if value is None or not 0 < value <= most:
        raise ValueError(f"environment variable {name}: expected {kind} up to {most:g}, got {raw!r}")
    return value


def _first(*values: str | None) -> str | None:
    for value in values:
        if value:
            return value
    return None


def _origin(url: str | None) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of a URL, for "the same endpoint"; None if it has none."""
    try:
        parts = urlsplit(url or "")
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme.lower())
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return parts.scheme.lower(), parts.hostname.lower(), port


def _url_list(value: str | Sequence[str] | None) -> list[str]:
    if not value:
        return []
    return [value] if isinstance(value, str) else [v for v in value if v]


def resolve_settings(
    *,
    cli_base_url: str | Sequence[str] | None = None,
    cli_model: str | None = None,
    cli_api_key_env: str | None = None,
    gguf: str | Path | None = None,
    scenario_llm: ScenarioLLM | Mapping[str, Any] | None = None,
    env: Mapping[str, str],
    threads: int | None = None,
    slots: int | None = None,
    trust_scenario_endpoint: bool = False,
    rate: str | None = None,
) -> LLMSettings:
    """Merge the sources into one LLMSettings; ValueError with one clear line if they conflict.

    The user's own flags and environment decide which key goes where: a key is sent to an endpoint
    the scenario chose only with `trust_scenario_endpoint`, or when the user configured the same
    endpoint (scheme, host and port) in IDEACO_BASE_URL / OPENAI_BASE_URL.
    """
    block = _scenario_block(scenario_llm)
    if gguf is not None and cli_base_url:
        raise ValueError("--gguf and --base-url exclude each other: --gguf serves a local model file itself")

    gguf_path: str | None = None
    urls: list[str] = []
    if gguf is not None:
        path = Path(gguf).expanduser()
        if not path.is_file():
            raise ValueError(f"--gguf model file not found: {path}")
        gguf_path = str(path)
        base_url = None  # --gguf beats any endpoint from the scenario or the environment
    else:
        urls = (
            _url_list(cli_base_url)
            or _url_list(block.base_url)
            or _url_list(_first(*(env.get(name) for name in BASE_URL_ENVS)))
        )
        if len(set(urls)) != len(urls):
            raise ValueError(f"--base-url: the same endpoint is given twice ({', '.join(urls)})")
        base_url = urls[0] if urls else None
    embedded = base_url is None

    key_env = cli_api_key_env
    if key_env and not env.get(key_env):
        raise ValueError(f"--api-key-env: environment variable {key_env} is not set")
    api_key = None if embedded else env.get(key_env or DEFAULT_API_KEY_ENV) or None
    withheld = None
    scenario_urls = _url_list(block.base_url)
    chosen_by_scenario = not embedded and not cli_base_url and bool(scenario_urls) and urls == scenario_urls
    if api_key and chosen_by_scenario and not trust_scenario_endpoint:
        users = {_origin(env.get(name)) for name in BASE_URL_ENVS if env.get(name)}
        if any(_origin(url) not in users - {None} for url in urls):
            api_key, withheld = None, key_env or DEFAULT_API_KEY_ENV

    if embedded:
        default_model = Path(gguf_path).stem if gguf_path else DEFAULT_EMBEDDED_MODEL
    else:
        default_model = DEFAULT_REMOTE_MODEL
    model = _first(cli_model, block.model, env.get(MODEL_ENV)) or default_model

    return LLMSettings(
        base_url=base_url.rstrip("/") if base_url else None,
        base_urls=tuple(u.rstrip("/") for u in urls) if len(urls) > 1 else (),
        model=model,
        api_key=api_key,
        embedded=embedded,
        gguf=gguf_path,
        timeout=_env_number(env, TIMEOUT_ENV, DEFAULT_TIMEOUT),
        retry_attempts=int(
            _env_number(env, RETRIES_ENV, DEFAULT_RETRY_ATTEMPTS, integer=True, most=MOST_COUNT)
        ),
        retry_base_delay=_env_number(env, RETRY_DELAY_ENV, DEFAULT_RETRY_DELAY),
        threads=threads or _env_count(env, THREADS_ENV),
        slots=slots or _env_count(env, SLOTS_ENV),
        cache_ram_mib=_env_mib(env, CACHE_RAM_ENV),
        key_withheld=withheld,
        endpoint_rest=_env_number(env, ENDPOINT_REST_ENV, DEFAULT_ENDPOINT_REST),
        requests_per_second=_rate(rate, env),
        notes=block.notes,
    )


def _rate(cli_rate: str | None, env: Mapping[str, str]) -> float | None:
    """Requests per second from --rate, else IDEACO_RATE; None when neither is given."""
    if cli_rate:
        where, text = "--rate", cli_rate
    elif (env.get(RATE_ENV) or "").strip():
        where, text = RATE_ENV, env[RATE_ENV]
    else:
        return None
    try:
        return parse_rate(text)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None


def _env_count(env: Mapping[str, str], name: str) -> int | None:
    """A positive integer from the environment, None when unset."""
    if not (env.get(name) or "").strip():
        return None
    return int(_env_number(env, name, 1, integer=True, most=MOST_COUNT))


def _env_mib(env: Mapping[str, str], name: str) -> int | None:
    """A size in MiB from the environment, 0 allowed (none); None when unset."""
    raw = (env.get(name) or "").strip()
    if not raw:
        return None
    if not (raw.isascii() and raw.isdigit()) or int(raw) > MOST_MIB:
        raise ValueError(
            f"environment variable {name}: expected a size in MiB up to {MOST_MIB} (0 for none), got {raw!r}"
        )
    return int(raw)


@dataclass(frozen=True)
class Models:
    """Which model each employee of a run uses: the CLI's --model (`forced`) beats the employee's
    `model:` beats the run's. A value the office is handed and its reading reads (`of`)."""

    run: str = "default"
    forced: str | None = None

    def of(self, employee_model: str | None) -> str:
        return self.forced or employee_model or self.run


DEFAULT_MODELS = Models()  # a run's own model, "default", no --model: an office built in a test or a notebook


def model_for(settings: LLMSettings, employee_model: str | None, cli_model: str | None) -> str:
    """The model one employee uses: the CLI's --model beats the employee's `model:` beats the run's."""
    return Models(settings.model, cli_model).of(employee_model)
