"""Item 1: the engine's own cost per thought at 10, 100 and 1000 employees.

The model is the zero-latency scripted one (`fake_model`, `plausible` policy) served over HTTP
from another process. An office is built as `ideaco run` builds it (LLM stack at concurrency 2,
a run directory on disk, simulated clock) and stepped until `warm` thoughts are done; then the
next `count` thoughts are timed. Everything the engine does in that time counts: empty looks,
prompts, the HTTP call through the `openai` SDK, parsing, gates, logs and state checkpoints.

The reference is a bare `openai` SDK call (`AsyncOpenAI().chat.completions.create`) with the same
arguments as one of the engine's own requests, to the same server, in the same process, one
after another, measured again right before each office so both see the same machine conditions.

Two clocks, because this 2-core machine is shared: the CPU time of this process per thought
(`time.process_time`: what the engine and the SDK compute, unaffected by other processes and by
the server's own time) decides the targets; the wall time per thought (the cheapest of several
chunks: other processes only ever add time) is shown next to it. With a zero-latency server and
calls one after another, wall = client CPU + server time, so the CPU difference is the wall
difference; with concurrent calls the engine's wall time can hide part of its CPU time.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai

from benchmarks.fake_model import FakeModel
from benchmarks.offices import large_scenario, open_office
from benchmarks.table import Row, ratio
from ideaco.llm.base import ChatRequest, ChatResult

NAME = "engine"


@dataclass
class Cost:
    """Per thought (or per bare call): CPU ms of this process, and wall ms (cheapest chunk)."""

    cpu_ms: float
    wall_ms: float
    count: int


class _Capture:
    """Wraps the office's LLM while warming up, to keep one real request for the reference call."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.last: ChatRequest | None = None

    async def complete(self, request: ChatRequest) -> ChatResult:
        self.last = request
        return await self.inner.complete(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


def sdk_arguments(request: ChatRequest) -> dict[str, Any]:
    """What `OpenAIChatLLM` sends at its first rung (json_schema), as plain SDK arguments."""
    return {
        "model": request.model,
        "messages": list(request.messages),
        "max_tokens": request.max_tokens,
        "temperature": request.temperature,
        "seed": request.seed,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": request.schema_name, "schema": request.json_schema, "strict": False},
        },
    }


async def office_cost(
    fake: FakeModel, employees: int, warm: int, count: int, tmp: Path, rounds: int = 5, speculate: int = 2
) -> tuple[Cost, ChatRequest | None]:
    """The cost per thought of an office of `employees` (calls may start early as `ideaco run`'s
    default lets them: `speculate` = the concurrency), and one request the engine sent."""
    fake.reset("plausible")
    bench = open_office(
        large_scenario(employees),
        base_url=fake.base_url,
        run_dir=tmp / f"office-{employees}-{speculate}",
        speculate=speculate,
    )
    office = bench.office
    capture = _Capture(office.llm)
    office.llm = capture
    office.start()
    wall, cpu, done = float("inf"), 0.0, 0
    try:
        while office.stats.thoughts < warm and await office.step():
            pass
        office.llm = capture.inner
        for _ in range(rounds):
            first, started, cpu_started = office.stats.thoughts, time.perf_counter(), time.process_time()
            while office.stats.thoughts < first + count // rounds and await office.step():
                pass
            n = office.stats.thoughts - first
            if n:
                wall = min(wall, (time.perf_counter() - started) * 1000 / n)
                cpu += (time.process_time() - cpu_started) * 1000
            done += n
    finally:
        await office.drain()
        await bench.aclose()
    return Cost(cpu / max(done, 1), wall, done), capture.last


async def bare_cost(base_url: str, request: ChatRequest, calls: int, rounds: int = 5) -> Cost:
    """The cost of a bare SDK call, one after another, after a few warm-up calls."""
    client = openai.AsyncOpenAI(base_url=base_url, api_key="sk-bench", max_retries=0)
    args = sdk_arguments(request)
    wall, cpu, per_round = float("inf"), 0.0, max(1, calls // rounds)
    try:
        for _ in range(10):
            await client.chat.completions.create(**args)
        for _ in range(rounds):
            started, cpu_started = time.perf_counter(), time.process_time()
            for _ in range(per_round):
                await client.chat.completions.create(**args)
            wall = min(wall, (time.perf_counter() - started) * 1000 / per_round)
            cpu += (time.process_time() - cpu_started) * 1000
        return Cost(cpu / (per_round * rounds), wall, per_round * rounds)
    finally:
        await client.close()


async def measure(quick: bool = False) -> list[Row]:
    sizes = (10, 30) if quick else (10, 100, 1000)
    warm, count = (10, 40) if quick else (30, 400)
    rows: list[Row] = []
    with FakeModel("plausible") as fake, tempfile.TemporaryDirectory() as tmp:
        # A small office first, only to obtain a real request for the reference.
        _, request = await office_cost(fake, 10, 5, 1, Path(tmp) / "probe", rounds=1)
        assert request is not None
        costs = {}
        for n in sizes:
            # The reference is taken again right before each office: same machine conditions.
            bare = await bare_cost(fake.base_url, request, 50 if quick else 300)
            cost, _ = await office_cost(fake, n, warm, count, Path(tmp))
            alone, _ = await office_cost(fake, n, warm, count, Path(tmp), speculate=0)
            costs[n] = cost
            extra = cost.cpu_ms - bare.cpu_ms
            rows.append(
                Row(
                    NAME,
                    f"CPU ms per thought, {n} employees",
                    cost.cpu_ms,
                    bare.cpu_ms,
                    f"+{extra:.2f} ms",
                    "<= bare SDK call + 2 ms",
                    extra <= 2.0,
                    f"{cost.count} thoughts; wall ms per thought {cost.wall_ms:.2f} vs bare call "
                    f"{bare.wall_ms:.2f}; with no call started early (--speculate 0) "
                    f"+{alone.cpu_ms - bare.cpu_ms:.2f} ms",
                )
            )
        small, large = costs[sizes[0]], costs[sizes[-1]]
        r = ratio(large.cpu_ms, small.cpu_ms)
        rows.append(
            Row(
                NAME,
                f"CPU ms per thought, {sizes[-1]} vs {sizes[0]} employees",
                large.cpu_ms,
                small.cpu_ms,
                r,
                "<= 1.5",
                r <= 1.5,
                f"wall: {ratio(large.wall_ms, small.wall_ms):.2f}",
            )
        )
    return rows


if __name__ == "__main__":
    from benchmarks.table import markdown

    print(markdown(asyncio.run(measure())))
