"""Run the benchmarks and print one table: `python -m benchmarks [--quick] [--only NAME ...]`.

NAME is one of: engine, life, prompt, persistence, embedded, secretary, profile, sweep, people, viewer,
concurrency, costs, requirement, flow, filters, labels, fork (comma-separated or repeated).
`--quick` uses tiny sizes (a smoke run: 18-24 s measured on 2 shared cores) and skips the embedded model.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import platform
import sys
import time
from datetime import datetime

from benchmarks.table import Row, markdown

BENCHES = (
    "engine",
    "life",
    "prompt",
    "persistence",
    "embedded",
    "secretary",
    "profile",
    "sweep",
    "people",
    "viewer",
    "concurrency",
    "costs",
    "requirement",
    "flow",
    "filters",
    "labels",
    "fork",
)


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, no embedded model")
    parser.add_argument(
        "--only", action="append", default=[], metavar="NAME", help=f"one of {', '.join(BENCHES)}"
    )
    args = parser.parse_args(argv)
    names = [n.strip() for item in args.only for n in item.split(",") if n.strip()]
    unknown = sorted(set(names) - set(BENCHES))
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r} (known: {', '.join(BENCHES)})")
    args.names = [b for b in BENCHES if b in names] if names else list(BENCHES)
    return args


async def run(names: list[str], quick: bool) -> list[Row]:
    rows: list[Row] = []
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        started = time.perf_counter()
        print(f"running {name} ...", file=sys.stderr, flush=True)
        rows += await module.measure(quick=quick)
        print(f"  {name}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    started = time.perf_counter()
    rows = asyncio.run(run(args.names, args.quick))
    command = "python -m benchmarks " + " ".join(argv if argv is not None else sys.argv[1:])
    print(
        f"{command.strip()}  ·  {datetime.now():%Y-%m-%d %H:%M}  ·  {os.cpu_count()} CPUs  ·  Python {platform.python_version()}"
    )
    print()
    print(markdown(rows))
    print()
    print(f"total {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
