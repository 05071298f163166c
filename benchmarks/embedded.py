"""How well a whole office uses the embedded model, alone on the machine and beside one busy process.

The embedded model is started as `ideaco run` starts it (`build_llm`: one-thread llama.cpp
instances, one per call in flight up to the cores, one prompt-cache slot per employee; compact
schema). The startup office runs on it until `thoughts` thoughts are done, its requests recorded
as they complete; then fresh servers of the same layout are driven directly with the same
requests (what `OpenAIChatLLM` sends: messages, grammar, seed, the slot) by the bare `openai` SDK,
as many at a time as the office's concurrency, each employee's requests to the same server and
slot as the office sent them. Fresh servers, as the office had: servers that have seen the
prompts serve them from their prefix cache.

Rows, each measured idle and then with one competing CPU-bound process (`python -c "while True:
pass"`) running through both the office and the direct drive:
- thoughts per second and completion tokens per second, office vs direct (the ratio is the
  office's use of the model);
- the prefix cache share: cached / prompt tokens as llama.cpp reports them, over the office's calls;
- the longest wall-clock gap with no thought finishing, after the first;
- (idle only) how the model file and attention kernel were chosen: the office's requests sent one
  at a time to one server running the shipped Q4_1 file, its Q8_0 copy (what runs), and the copy
  with flash attention on; prompt and generation tokens/s as llama.cpp times them.

It needs the CPU to itself: it is skipped when another process seems to run the embedded model
(`ideaco run`/`chat` without `--base-url` or `--replay`, or pytest selecting embedded tests), and
under `--quick`.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import openai

from benchmarks.offices import open_office, startup_scenario
from benchmarks.table import Row, ratio
from ideaco.llm.base import ChatRequest, ChatResult
from ideaco.llm.config import DEFAULT_EMBEDDED_MODEL, LLMSettings
from ideaco.llm.embedded import EmbeddedServer, default_model, find_default_model
from ideaco.llm.factory import build_llm
from ideaco.llm.openai_chat import OpenAIChatLLM
from ideaco.llm.routing import RoutedLLM, SlotRouter

NAME = "embedded"


def busy_embedded() -> list[str]:
    """Command lines of other processes that look like they run the embedded model now."""
    found = []
    mine = {os.getpid(), os.getppid()}
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if int(proc.name) in mine:
                continue
            args = proc.joinpath("cmdline").read_bytes().decode(errors="replace").split("\0")
        except (OSError, ValueError):
            continue
        line = " ".join(args)
        ideaco = any(a.endswith("ideaco") or a == "ideaco" for a in args) and ({"run", "chat"} & set(args))
        if ideaco and "--base-url" not in line and "--replay" not in line:
            found.append(line)
        elif "pytest" in line and "embedded" in line and "not embedded" not in line:
            found.append(line)
    return found


class _Recorder:
    """Wraps the office's LLM: keeps each completed request, its result, and time with calls in flight."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.done: list[tuple[ChatRequest, ChatResult]] = []
        self.finished: list[float] = []  # wall seconds since `started`, per completed call
        self.in_flight = 0
        self.started = self._since = time.perf_counter()
        self.busy_time = 0.0  # integral of calls in flight over wall time

    def _tick(self, delta: int) -> None:
        now = time.perf_counter()
        self.busy_time += self.in_flight * (now - self._since)
        self._since, self.in_flight = now, self.in_flight + delta

    async def complete(self, request: ChatRequest) -> ChatResult:
        self._tick(+1)
        try:
            result = await self.inner.complete(request)
        finally:
            self._tick(-1)
        self.done.append((request, result))
        self.finished.append(time.perf_counter() - self.started)
        return result

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass
class OfficeRun:
    """What the office did on the embedded model: its calls in order of completion, and when."""

    calls: list[tuple[ChatRequest, ChatResult]]
    finished: list[float]  # wall seconds since the start, per call
    wall: float
    in_flight: float  # calls in flight on average
    placement: dict[str, tuple[int, int]]  # employee -> (server, slot), as the office's router chose
    layout: str


def longest_gap(finished: list[float]) -> float:
    """The longest wait between two finished thoughts (0 with fewer than two)."""
    times = sorted(finished)
    return max((b - a for a, b in zip(times, times[1:], strict=False)), default=0.0)


def _router(llm: Any) -> SlotRouter | None:
    """The slot router inside a stack's wrappers (each wrapper keeps its inner LLM as `.inner`)."""
    while llm is not None:
        if isinstance(llm, RoutedLLM):
            return llm.router
        llm = getattr(llm, "inner", None)
    return None


async def run_office(thoughts: int, concurrency: int) -> OfficeRun:
    scenario = startup_scenario(8)
    stack = embedded_stack(concurrency, len(scenario.employees) + 1)
    try:
        recorder = _Recorder(stack.llm)
        bench = open_office(scenario, llm=recorder)
        office = bench.office
        office.config.compact_schema = True  # as `ideaco run` asks the embedded model
        office.start()
        started = recorder.started = time.perf_counter()
        while office.stats.thoughts < thoughts and await office.step():
            pass
        wall = time.perf_counter() - started
        recorder._tick(0)
        calls, finished = list(recorder.done), list(recorder.finished)
        await office.drain()
        router = _router(stack.llm)
        return OfficeRun(
            calls=calls,
            finished=finished,
            wall=wall,
            in_flight=recorder.busy_time / wall if wall else 0.0,
            placement=dict(router.placed) if router else {},
            layout=str(stack.layout),
        )
    finally:
        await stack.aclose()


def as_sent(
    shaper: OpenAIChatLLM, request: ChatRequest, placement: dict[str, tuple[int, int]]
) -> tuple[int, dict[str, Any]]:
    """(server, SDK arguments): exactly what the office sent for `request`, to its server and slot."""
    server, slot = placement.get(request.cache_key, (0, None))
    return server, shaper._arguments(replace(request, slot=slot), "grammar")


async def drive_directly(
    urls: list[str], placement: dict[str, tuple[int, int]], requests: list[ChatRequest], workers: int
) -> tuple[float, int, int]:
    """(wall seconds, prompt tokens, cached tokens) for the requests sent by `workers` SDK clients,
    each request to the server and slot the office sent it to."""
    shaper = OpenAIChatLLM(urls[0], None, llama_grammar=True)
    queue: asyncio.Queue[tuple[int, dict[str, Any]]] = asyncio.Queue()
    for request in requests:
        queue.put_nowait(as_sent(shaper, request, placement))
    await shaper.aclose()
    clients = [openai.AsyncOpenAI(base_url=u, api_key="sk-no-key", max_retries=0, timeout=600) for u in urls]
    prompt = cached = 0

    async def worker() -> None:
        nonlocal prompt, cached
        while not queue.empty():
            server, args = queue.get_nowait()
            response = await clients[server].chat.completions.create(**args)
            usage = response.usage
            prompt += usage.prompt_tokens if usage else 0
            details = getattr(usage, "prompt_tokens_details", None)
            hit = getattr(details, "cached_tokens", None)
            if hit is None:
                timings = (response.model_extra or {}).get("timings") or {}
                hit = timings.get("cache_n", 0)
            cached += hit or 0

    started = time.perf_counter()
    try:
        await asyncio.gather(*(worker() for _ in range(workers)))
    finally:
        for client in clients:
            await client.close()
    return time.perf_counter() - started, prompt, cached


@dataclass
class Speeds:
    """llama.cpp's own timings over a set of requests: tokens read and generated, and their seconds."""

    prompt: int = 0
    prompt_s: float = 0.0
    generated: int = 0
    generated_s: float = 0.0
    wall: float = 0.0

    def add(self, timings: dict[str, Any]) -> None:
        self.prompt += int(timings.get("prompt_n") or 0)
        self.prompt_s += float(timings.get("prompt_ms") or 0) / 1000
        self.generated += int(timings.get("predicted_n") or 0)
        self.generated_s += float(timings.get("predicted_ms") or 0) / 1000


async def one_at_a_time(model: Path, requests: list[ChatRequest], placement: dict, *, flash: bool) -> Speeds:
    """The requests sent one after the other to one fresh one-thread server of `model`, each to its slot."""
    slots = 1 + max((slot or 0 for _, slot in placement.values()), default=0)
    server = EmbeddedServer(model, n_parallel=max(slots, 2), threads=1, flash_attention=flash)
    url = server.start()
    shaper = OpenAIChatLLM(url, None, llama_grammar=True)
    client = openai.AsyncOpenAI(base_url=url, api_key="sk-no-key", max_retries=0, timeout=600)
    speeds = Speeds()
    started = time.perf_counter()
    try:
        for request in requests:
            _, args = as_sent(shaper, request, placement)
            response = await client.chat.completions.create(**args)
            speeds.add((response.model_extra or {}).get("timings") or {})
    finally:
        speeds.wall = time.perf_counter() - started
        await client.close()
        await shaper.aclose()
        server.stop()
    return speeds


async def model_choice_rows(office: OfficeRun) -> list[Row]:
    """The shipped Q4_1 file vs its Q8_0 copy vs the copy with flash attention, on the office's requests."""
    requests = [r for r, _ in office.calls]
    shipped, copy = find_default_model(), default_model()
    if copy == shipped:
        return [Row(NAME, "model file: Q4_1 vs Q8_0 copy", "skipped: no Q8_0 copy could be made")]
    runs = {
        "shipped Q4_1": await one_at_a_time(shipped, requests, office.placement, flash=False),
        "Q8_0 copy": await one_at_a_time(copy, requests, office.placement, flash=False),
        "Q8_0 copy, flash attention": await one_at_a_time(copy, requests, office.placement, flash=True),
    }
    used = runs["Q8_0 copy"]
    rows = []
    for label, other in runs.items():
        if other is used:
            continue
        rows += [
            Row(
                NAME,
                f"prompt tokens/s, what runs (Q8_0, no flash attention) vs {label}, one at a time",
                used.prompt / used.prompt_s,
                other.prompt / other.prompt_s,
                ratio(used.prompt / used.prompt_s, other.prompt / other.prompt_s),
                note=f"{used.prompt} prompt tokens read (not cached) over {len(requests)} requests",
            ),
            Row(
                NAME,
                f"generated tokens/s, what runs vs {label}",
                used.generated / used.generated_s,
                other.generated / other.generated_s,
                ratio(used.generated / used.generated_s, other.generated / other.generated_s),
            ),
            Row(
                NAME,
                f"wall seconds for the office's requests, {label} / what runs",
                other.wall,
                used.wall,
                ratio(other.wall, used.wall),
                "> 1",
                other.wall > used.wall,
            ),
        ]
    return rows


def embedded_stack(concurrency: int, employees: int) -> Any:
    """The embedded model laid out as `ideaco run` lays it out (build_llm, no endpoint)."""
    return build_llm(
        LLMSettings(base_url=None, model=DEFAULT_EMBEDDED_MODEL, embedded=True),
        concurrency=concurrency,
        employees=employees,
    )


@contextmanager
def competing_process(on: bool) -> Iterator[None]:
    """One CPU-bound process beside the measurement (a user's machine is shared)."""
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if on else None
    try:
        yield
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()


LAYOUTS = ((2, 1, 1), (2, 1, 2), (1, 2, 1), (1, 1, 2), (1, 2, 2))  # instances x threads x in flight each


async def layout_rows(office: OfficeRun, label: str) -> list[Row]:
    """The office's requests on fresh servers of each layout (instances x threads x calls in flight
    per instance), each employee's to its own slot: what more calls in flight buy on this machine."""
    requests = [r for r, _ in office.calls]
    model, walls = default_model(), {}
    for servers, threads, per in LAYOUTS:
        slots = max(2, -(-len(office.placement) // servers))
        placement = office.placement
        if servers == 1:  # every employee on the one server, a slot each
            placement = {key: (0, n % slots) for n, key in enumerate(office.placement)}
        instances = [EmbeddedServer(model, n_parallel=slots, threads=threads) for _ in range(servers)]
        try:
            urls = [instance.start() for instance in instances]
            walls[(servers, threads, per)], _, _ = await drive_directly(
                urls, placement, requests, servers * per
            )
        finally:
            for instance in instances:
                instance.stop()
    used = walls[LAYOUTS[0]]
    return [
        Row(
            NAME,
            f"layout {s} instance{'s' if s > 1 else ''} x {t} thread{'s' if t > 1 else ''} x {k} in flight each, {label}: thoughts/s",
            len(requests) / wall,
            len(requests) / used,
            ratio(used, wall),
            "",
            None,
            "what runs (one call per one-thread instance)" if (s, t, k) == LAYOUTS[0] else "vs what runs",
        )
        for (s, t, k), wall in walls.items()
    ]


async def measure_once(thoughts: int, concurrency: int, contended: bool) -> list[Row]:
    label = "beside 1 busy process" if contended else "machine to itself"
    with competing_process(contended):
        office = await run_office(thoughts, concurrency)
        direct = embedded_stack(concurrency, len(office.placement))  # fresh servers, the same layout
        try:
            urls = [str(s.base_url) for s in direct.servers]
            direct_wall, _, _ = await drive_directly(
                urls, office.placement, [r for r, _ in office.calls], concurrency
            )
        finally:
            await direct.aclose()
        layouts = await layout_rows(office, label)
    calls = office.calls
    n = len(calls)
    completion = sum(res.usage.completion_tokens for _, res in calls)
    prompt = sum(res.usage.prompt_tokens for _, res in calls)
    cached = sum(res.usage.cached_tokens for _, res in calls)
    util = ratio(direct_wall, office.wall)
    choice = [] if contended else await model_choice_rows(office)
    return (
        choice
        + layouts
        + [
            Row(
                NAME,
                f"thoughts/s, office vs llama.cpp driven directly, {label} ({n} calls, {concurrency} at a time)",
                n / office.wall,
                n / direct_wall,
                util,
                ">= 0.9",
                util >= 0.9,
                f"{office.layout}; calls in flight on average {office.in_flight:.2f} of {concurrency}",
            ),
            Row(
                NAME,
                f"completion tokens/s, office vs direct, {label}",
                completion / office.wall,
                completion / direct_wall,
                util,
                "",
                None,
                f"{completion / max(1, n):.0f} completion tokens per thought",
            ),
            Row(
                NAME,
                f"prefix cache: cached / prompt tokens, {label}",
                ratio(cached, prompt),
                "",
                "",
                "",
                None,  # the >= 0.5 target is over a long run (summary.json): here each first prompt is cold
                f"{prompt / max(1, n):.0f} prompt tokens per thought; one slot per employee; "
                f"{len(office.placement)} first prompts uncached",
            ),
            Row(
                NAME,
                f"longest wait between two finished thoughts (s), {label}",
                longest_gap(office.finished),
                "",
                "",
                "",
                None,
                f"office wall {office.wall:.0f} s for {n} thoughts",
            ),
        ]
    )


async def measure(quick: bool = False, thoughts: int = 16) -> list[Row]:
    if quick:
        return [Row(NAME, "embedded model utilisation", "skipped (--quick)")]
    busy = busy_embedded()
    if busy:
        return [
            Row(
                NAME,
                "embedded model utilisation",
                "skipped: another embedded run is active",
                note=busy[0][:80],
            )
        ]
    rows: list[Row] = []
    for contended in (False, True):
        try:
            rows += await measure_once(thoughts, 2, contended)
        except Exception as exc:  # no model installed: say so in the table
            return rows + [Row(NAME, "embedded model utilisation", f"skipped: {exc}")]
    return rows


if __name__ == "__main__":  # python -m benchmarks.embedded [THOUGHTS]: a shorter or longer run
    from benchmarks.table import markdown

    print(markdown(asyncio.run(measure(thoughts=int(sys.argv[1]) if len(sys.argv) > 1 else 16))))
