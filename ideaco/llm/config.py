"""Which endpoint, model and key to use: CLI flags > employee `model:` > scenario `llm:` > environment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ideaco.llm.limits import parse_rate
from ideaco.redact import redact_url

DEFAULT_EMBEDDED_MODEL = "smollm2-135m"
DEFAULT_REMOTE_MODEL = "gpt-4o-mini"
DEFAULT_TEMPERATURE = 0.8
DEFAULT_MAX_TOKENS = 700
DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"
BASE_URL_ENVS = ("IDEACO_BASE_URL", "OPENAI_BASE_URL")
MODEL_ENV = "IDEACO_MODEL"
# Resilience knobs, from the environment only (a slow local model wants a longer timeout; tests
# want short waits): seconds one answer may take, tries per call, first backoff delay in seconds.
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

# Keys a scenario's `llm:` block may hold (scenario validation can reuse this). Not `api_key_env`:
# a file someone sends you must not pick which of your variables is sent as a Bearer token.
SCENARIO_LLM_KEYS = frozenset({"base_url", "model", "temperature", "max_tokens"})
SCENARIO_KEY_ENV_REFUSED = (
    "a scenario cannot choose which environment variable is sent as your API key; "
    "pass --api-key-env NAME yourself"
)
TRUST_FLAG = "--trust-scenario-endpoint"


@dataclass(frozen=True)
class LLMSettings:
    """Resolved model settings for a run. `embedded`: no endpoint given, ideaco serves one itself."""

    base_url: str | None  # the first endpoint (the only one, usually)
    model: str
    api_key: str | None = field(default=None, repr=False)
    temperature: float = DEFAULT_TEMPERATURE
    embedded: bool = False
    gguf: str | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    timeout: float = DEFAULT_TIMEOUT
    retry_attempts: int = DEFAULT_RETRY_ATTEMPTS
    retry_base_delay: float = DEFAULT_RETRY_DELAY
    threads: int | None = None  # embedded only: threads per llama.cpp instance
    slots: int | None = None  # embedded only: prompt-cache slots in all
    # Set when a key was in the environment but not sent: the scenario chose the endpoint.
    key_withheld: str | None = None
    base_urls: tuple[str, ...] = ()  # every endpoint when several are given (calls are balanced over them)
    endpoint_rest: float = DEFAULT_ENDPOINT_REST
    requests_per_second: float | None = None  # --rate / IDEACO_RATE; None: as fast as answered

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


def _scenario_block(scenario_llm: Mapping[str, Any] | None) -> dict[str, Any]:
    block = {k: v for k, v in (scenario_llm or {}).items() if not (k == "api_key_env" and v is None)}
    if "api_key_env" in block:
        raise ValueError(f"llm.api_key_env: {SCENARIO_KEY_ENV_REFUSED}")
    unknown = sorted(set(block) - SCENARIO_LLM_KEYS)
    if unknown:
        allowed = ", ".join(sorted(SCENARIO_LLM_KEYS))
        raise ValueError(f"llm: unknown key {unknown[0]!r} (allowed: {allowed})")
    urls = block.get("base_url")
    if isinstance(urls, list):  # several endpoints: calls are balanced over them
        if not urls or not all(isinstance(u, str) and u.strip() for u in urls):
            raise ValueError(f"llm.base_url: expected a URL or a list of URLs, got {urls!r}")
        block["base_url"] = [u.strip() for u in urls]
    for name in ("base_url", "model"):
        value = block.get(name)
        if name == "base_url" and isinstance(value, list):
            continue
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise ValueError(f"llm.{name}: expected a non-empty string, got {value!r}")
    temperature = block.get("temperature")
    if temperature is not None and (
        isinstance(temperature, bool)
        or not isinstance(temperature, (int, float))
        or not 0 <= temperature <= 2
    ):
        raise ValueError(f"llm.temperature: expected a number from 0 to 2, got {temperature!r}")
    max_tokens = block.get("max_tokens")
    if max_tokens is not None and (
        isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1
    ):
        raise ValueError(f"llm.max_tokens: expected a positive integer, got {max_tokens!r}")
    return block


def _env_number(env: Mapping[str, str], name: str, default: float, *, integer: bool = False) -> float:
    """A positive number from the environment; ValueError naming the variable if it is not one."""
    raw = (env.get(name) or "").strip()
    if not raw:
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        value = None
    kind = "a positive integer" if integer else "a positive number of seconds"
    if value is None or not value > 0 or value == float("inf"):
        raise ValueError(f"environment variable {name}: expected {kind}, got {raw!r}")
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
    scenario_llm: Mapping[str, Any] | None = None,
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
            or _url_list(block.get("base_url"))
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
    scenario_urls = _url_list(block.get("base_url"))
    chosen_by_scenario = not embedded and not cli_base_url and bool(scenario_urls) and urls == scenario_urls
    if api_key and chosen_by_scenario and not trust_scenario_endpoint:
        users = {_origin(env.get(name)) for name in BASE_URL_ENVS if env.get(name)}
        if any(_origin(url) not in users - {None} for url in urls):
            api_key, withheld = None, key_env or DEFAULT_API_KEY_ENV

    if embedded:
        default_model = Path(gguf_path).stem if gguf_path else DEFAULT_EMBEDDED_MODEL
    else:
        default_model = DEFAULT_REMOTE_MODEL
    model = _first(cli_model, block.get("model"), env.get(MODEL_ENV)) or default_model

    return LLMSettings(
        base_url=base_url.rstrip("/") if base_url else None,
        base_urls=tuple(u.rstrip("/") for u in urls) if len(urls) > 1 else (),
        model=model,
        api_key=api_key,
        temperature=float(block.get("temperature", DEFAULT_TEMPERATURE)),
        embedded=embedded,
        gguf=gguf_path,
        max_tokens=int(block.get("max_tokens", DEFAULT_MAX_TOKENS)),
        timeout=_env_number(env, TIMEOUT_ENV, DEFAULT_TIMEOUT),
        retry_attempts=int(_env_number(env, RETRIES_ENV, DEFAULT_RETRY_ATTEMPTS, integer=True)),
        retry_base_delay=_env_number(env, RETRY_DELAY_ENV, DEFAULT_RETRY_DELAY),
        threads=threads or _env_count(env, THREADS_ENV),
        slots=slots or _env_count(env, SLOTS_ENV),
        key_withheld=withheld,
        endpoint_rest=_env_number(env, ENDPOINT_REST_ENV, DEFAULT_ENDPOINT_REST),
        requests_per_second=_rate(rate, env),
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
    return int(_env_number(env, name, 1, integer=True))


def model_for(settings: LLMSettings, employee_model: str | None, cli_model: str | None) -> str:
    """The model one employee uses: the CLI's --model beats the employee's `model:` beats the run's."""
    return cli_model or employee_model or settings.model
