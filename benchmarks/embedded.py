"""Item 5: how well a whole office uses the embedded model, and how much its prefix cache serves.

The embedded llama.cpp server (SmolLM2-135M, `ideaco.llm.embedded.EmbeddedServer`, 2 slots) is
started as `ideaco run` starts it (`build_llm`, concurrency 2, compact schema). The startup office
runs on it until `thoughts` thoughts are done, its requests recorded as they complete; then the
same server is driven directly with the same requests (the same arguments `OpenAIChatLLM` sends:
messages, grammar, seed...) by the bare `openai` SDK with 2 workers, the office's concurrency.
The direct run uses a fresh server, as the office did: a server that has seen the prompts
serves them from its prefix cache. Utilisation = direct wall time / office wall time for the
same calls. The prefix cache ratio is cached / prompt tokens as llama.cpp reports them
(`timings.cache_n`), over the office's calls. llama.cpp's threads spin while they wait for
each other, so other processes on the 2 cores slow it down a lot: the load average is shown.

It needs the CPU to itself: it is skipped when another process seems to run the embedded model
(`ideaco run`/`chat` without `--base-url` or `--replay`, or pytest selecting embedded tests), and
under `--quick`.
"""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import openai

from benchmarks.offices import open_office, startup_scenario
from benchmarks.table import Row, ratio
from ideaco.llm.base import ChatRequest, ChatResult
from ideaco.llm.config import DEFAULT_EMBEDDED_MODEL, LLMSettings
from ideaco.llm.factory import build_llm
from ideaco.llm.openai_chat import OpenAIChatLLM

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
        self.in_flight = 0
        self._since = time.perf_counter()
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
        return result

    async def aclose(self) -> None:
        await self.inner.aclose()


async def drive_directly(base_url: str, requests: list[ChatRequest], workers: int) -> tuple[float, int, int]:
    """(wall seconds, prompt tokens, cached tokens) for the requests sent by `workers` SDK clients."""
    shaper = OpenAIChatLLM(base_url, None, llama_grammar=True)
    queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    for request in requests:
        queue.put_nowait(shaper._arguments(request, "grammar"))  # exactly what the office sends
    await shaper.aclose()
    client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-no-key", max_retries=0, timeout=300)
    prompt = cached = 0

    async def worker() -> None:
        nonlocal prompt, cached
        while not queue.empty():
            args = queue.get_nowait()
            response = await client.chat.completions.create(**args)
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
        await client.close()
    return time.perf_counter() - started, prompt, cached


def _stack(concurrency: int) -> Any:
    return build_llm(
        LLMSettings(base_url=None, model=DEFAULT_EMBEDDED_MODEL, embedded=True), concurrency=concurrency
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
    concurrency = 2
    load_before = os.getloadavg()[0]
    try:
        stack = _stack(concurrency)
    except Exception as exc:  # no model installed: say so in the table
        return [Row(NAME, "embedded model utilisation", f"skipped: {exc}")]
    try:
        recorder = _Recorder(stack.llm)
        bench = open_office(startup_scenario(8), llm=recorder)
        office = bench.office
        office.config.compact_schema = True  # as `ideaco run` asks the embedded model
        office.start()
        started = time.perf_counter()
        while office.stats.thoughts < thoughts and await office.step():
            pass
        office_wall = time.perf_counter() - started
        recorder._tick(0)
        calls = list(recorder.done)
        await office.drain()
    finally:
        await stack.aclose()
    # A fresh server for the direct run: one that has seen these prompts serves them from its
    # cache and would look twice as fast (prompt processing is half of a call here).
    direct = _stack(concurrency)
    try:
        direct_wall, _, _ = await drive_directly(
            str(direct.settings.base_url), [r for r, _ in calls], concurrency
        )
    finally:
        await direct.aclose()
    load_after = os.getloadavg()[0]
    prompt = sum(res.usage.prompt_tokens for _, res in calls)
    cached = sum(res.usage.cached_tokens for _, res in calls)
    util = ratio(direct_wall, office_wall)
    cache = ratio(cached, prompt)
    employees = len({r.tag.split(" in ")[0] for r, _ in calls})
    return [
        Row(
            NAME,
            f"thoughts per second, office vs llama.cpp driven directly ({len(calls)} calls, {concurrency} at a time)",
            len(calls) / office_wall,
            len(calls) / direct_wall,
            util,
            ">= 0.9",
            util >= 0.9,
            f"calls in flight on average: office {recorder.busy_time / office_wall:.2f} of {concurrency}; "
            f"load average {load_before:.1f} before, {load_after:.1f} after",
        ),
        Row(
            NAME,
            "prefix cache: cached / prompt tokens (llama.cpp, the office's calls)",
            cache,
            "",
            "",
            ">= 0.5",
            cache >= 0.5,
            f"{employees} employees share {concurrency} llama.cpp slots",
        ),
    ]


if __name__ == "__main__":
    from benchmarks.table import markdown

    print(markdown(asyncio.run(measure())))
