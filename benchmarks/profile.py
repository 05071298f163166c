"""Item 6: where the engine's time goes, per thought (cProfile over the item 1 set-up).

An office of 100 employees against the zero-latency scripted model; after a warm-up, the next
thoughts run under cProfile. The table gives the time of each area (own time of its functions,
as a share of all profiled time) and the ideaco functions with the most time of their own.
cProfile slows Python calls down, so the shares matter, not the milliseconds.
"""

from __future__ import annotations

import asyncio
import cProfile
import pstats
import tempfile
import time
from pathlib import Path

from benchmarks.fake_model import FakeModel
from benchmarks.offices import large_scenario, open_office
from benchmarks.table import Row

NAME = "profile"

AREAS = (  # (area, path fragments); the first match wins
    (
        "openai SDK and HTTP client",
        (
            "openai/",
            "httpx",
            "httpcore",
            "h11",
            "anyio",
            "sniffio",
            "typing.py",
            "typing_extensions",
            "inspect.py",
            "_utils",
        ),
    ),
    ("asyncio event loop and sockets", ("asyncio/", "selectors.py", "socket")),
    (
        "state.json save (ideaco/store/state.py, TinyDB, atomic write)",
        ("ideaco/store/state.py", "ideaco/store/atomic.py", "tinydb", "fsync", "posix.replace"),
    ),
    ("JSON encode/decode", ("json/",)),
    ("prompt templates (jinja2)", ("jinja2", "<template>")),
    ("pydantic", ("pydantic",)),
    ("retries (tenacity)", ("tenacity",)),
    ("ideaco: llm (structured output, wrappers)", ("ideaco/llm/",)),
    ("ideaco: office (wakes, think, gates, effects)", ("ideaco/office/",)),
    ("ideaco: mind (prompt, memory, tasks, thought)", ("ideaco/mind/",)),
    ("ideaco: logs (jsonl)", ("ideaco/store/",)),
)


def _label(func: tuple[str, int, str]) -> str:
    path, line, name = func
    if path == "~":
        return name
    parts = Path(path).parts
    short = "/".join(parts[parts.index("ideaco") :]) if "ideaco" in parts else "/".join(parts[-2:])
    return f"{short}:{line} {name}"


def _area(func: tuple[str, int, str]) -> str:
    path, _, name = func
    text = f"{path} {name}"
    for area, fragments in AREAS:
        if any(f in text for f in fragments):
            return area
    return "other (builtins, stdlib)"


async def profile_office(employees: int, warm: int, count: int) -> tuple[pstats.Stats, float, int]:
    with FakeModel("plausible") as fake, tempfile.TemporaryDirectory() as tmp:
        bench = open_office(large_scenario(employees), base_url=fake.base_url, run_dir=Path(tmp) / "run")
        office = bench.office
        office.start()
        try:
            while office.stats.thoughts < warm and await office.step():
                pass
            first = office.stats.thoughts
            profiler = cProfile.Profile()
            started = time.perf_counter()
            profiler.enable()
            while office.stats.thoughts < first + count and await office.step():
                pass
            profiler.disable()
            elapsed = time.perf_counter() - started
            done = office.stats.thoughts - first
        finally:
            await office.drain()
            await bench.aclose()
    return pstats.Stats(profiler), elapsed, done


def top(stats: pstats.Stats, key: int, n: int, only_ideaco: bool = False) -> list[tuple[str, float]]:
    """(label, seconds) of the n entries with the largest tottime (key=2) or cumtime (key=3)."""
    entries = []
    for func, values in stats.stats.items():  # type: ignore[attr-defined]
        if only_ideaco and "ideaco" not in func[0]:
            continue
        entries.append((_label(func), values[key]))
    return sorted(entries, key=lambda e: e[1], reverse=True)[:n]


def areas(stats: pstats.Stats) -> dict[str, float]:
    """Own time (seconds) per area."""
    out: dict[str, float] = {}
    for func, values in stats.stats.items():  # type: ignore[attr-defined]
        area = _area(func)
        out[area] = out.get(area, 0.0) + values[2]
    return out


async def measure(quick: bool = False) -> list[Row]:
    employees, warm, count = (20, 10, 30) if quick else (100, 30, 300)
    stats, elapsed, done = await profile_office(employees, warm, count)
    per = 1000 / max(done, 1)
    by_area = areas(stats)
    total = sum(by_area.values()) or 1.0
    rows = [
        Row(
            NAME,
            f"profiled: {employees} employees, {done} thoughts",
            f"{elapsed * per:.2f} ms/thought",
            note="under cProfile (slower than unprofiled)",
        )
    ]
    for area, seconds in sorted(by_area.items(), key=lambda a: a[1], reverse=True):
        rows.append(Row(NAME, f"area: {area}", f"{seconds * per:.3f} ms", ratio=f"{seconds / total:.0%}"))
    for label, seconds in top(stats, 2, 4 if quick else 8, only_ideaco=True):
        rows.append(
            Row(NAME, f"ideaco function: {label}", f"{seconds * per:.3f} ms", ratio=f"{seconds / total:.0%}")
        )
    return rows


if __name__ == "__main__":
    from benchmarks.table import markdown

    print(markdown(asyncio.run(measure())))
