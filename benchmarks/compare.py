"""`ideaco compare A B` on a 200-person run: does it answer in under 10 s (issue 39)?

Two 8-hour runs of a 200-person office (`offices.large_scenario`: 20 departments, rooms of 5-10,
the boss opening a topic in every room, here again every hour) against the zero-latency scripted
model (`plausible`), seeds 1 and 2, written by `ideaco run` as a user runs it. A third directory is
shaped as `ideaco fork` makes one (seed 1's log lines up to the fourth hour byte for byte, then
seed 2's, with a fork.json), so the fork's path is timed too. Then `ideaco compare` in its own
process (Python's start and imports included): the two seeds (they part in the first minute, so
nearly the whole runs are measured), the fork from its moment, and with `--plot`. `--quick`: 20
people for one hour.

    python -m benchmarks.compare            # the table (about 2 minutes: the runs take most of it)
    python -m benchmarks.compare --quick
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from benchmarks.fake_model import FakeModel
from benchmarks.offices import large_scenario
from benchmarks.table import Row, markdown
from ideaco.store.runlog import applied_at

NAME = "compare"
TARGET_S = 10.0
LOGS = ("messages.jsonl", "thoughts.jsonl", "changes.jsonl")


def _cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _ideaco(*args: str) -> tuple[float, subprocess.CompletedProcess[str], float]:
    """Wall seconds, the finished process, and its CPU seconds (the shared machine's load aside)."""
    began, cpu = time.perf_counter(), _cpu()
    done = subprocess.run(
        [sys.executable, "-m", "ideaco", *args], capture_output=True, text=True, check=False
    )
    return time.perf_counter() - began, done, _cpu() - cpu


def _scenario(tmp: Path, people: int, hours: int) -> Path:
    """The large office with its boss lines again at the start of every hour."""
    data = large_scenario(people).model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    from ideaco.scenario import parse_duration

    first = data["script"]
    data["script"] = [
        {**line, "at": f"{int(parse_duration(line['at']).total_seconds()) + 3600 * h}s"}
        for h in range(hours)
        for line in first
    ]
    data["duration"] = f"{hours}h"
    path = tmp / f"office-{people}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def _fork_shaped(past: Path, future: Path, out: Path, at: datetime) -> Path:
    """`past`'s lines up to `at` (a thought by when it landed), then `future`'s after it; its state."""
    out.mkdir()
    for name in LOGS:

        def when(line: bytes, name: str = name) -> datetime:
            record = json.loads(line)
            return applied_at(record) if name == "thoughts.jsonl" else datetime.fromisoformat(record["at"])

        kept = [x for x in (past / name).read_bytes().splitlines(keepends=True) if when(x) <= at]
        after = [x for x in (future / name).read_bytes().splitlines(keepends=True) if when(x) > at]
        (out / name).write_bytes(b"".join(kept + after))
    shutil.copy(future / "state.json", out / "state.json")
    fork = {
        "format": 1,
        "origin": str(past.resolve()),
        "at": at.isoformat(),
        "changes": [{"kind": "seed", "seed": 2}],
    }
    (out / "fork.json").write_text(json.dumps(fork), encoding="utf-8")
    return out


def _size(run: Path) -> dict[str, Any]:
    lines = {n: sum(1 for _ in open(run / n, "rb")) for n in LOGS[:2]}
    mb = sum((run / n).stat().st_size for n in LOGS) / 1e6
    return {"messages": lines["messages.jsonl"], "thoughts": lines["thoughts.jsonl"], "mb": mb}


def _timed(label: str, args: list[str], note: str, quick: bool) -> Row:
    wall, done, cpu = _ideaco("compare", *args, "--json")
    if done.returncode != 0:
        return Row(NAME, label, "failed", note=(done.stderr or done.stdout).strip()[-200:])
    doc = json.loads(done.stdout)
    return Row(
        NAME,
        label,
        round(wall, 2),
        target="" if quick else f"<= {TARGET_S:.0f} s",
        met=None if quick else wall <= TARGET_S,
        note=f"CPU {cpu:.2f} s; {note}; measured from {doc['from'][11:19]} ({doc['from_reason']})",
    )


async def measure(quick: bool = False) -> list[Row]:
    people, hours = (20, 1) if quick else (200, 8)
    with FakeModel(policy="plausible") as fake, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        scenario = _scenario(work, people, hours)
        runs, took = [], []
        for seed in (1, 2):
            out = work / f"s{seed}"
            run_s, done, _ = _ideaco(
                "run",
                str(scenario),
                "--seed",
                str(seed),
                "--out",
                str(out),
                "--base-url",
                fake.base_url,
                "--model",
                "scripted",
            )
            if done.returncode != 0:
                return [Row(NAME, "ideaco run", "failed", note=(done.stderr or done.stdout).strip()[-200:])]
            runs.append(out)
            took.append(run_s)
        start = large_scenario(people).start
        fork = _fork_shaped(runs[0], runs[1], work / "fork", start + timedelta(hours=hours / 2))
        a, b, f = (_size(r) for r in (*runs, fork))
        what = f"{people} people, {hours} h"
        sizes = (
            f"A {a['messages']:,} messages, {a['thoughts']:,} thoughts, {a['mb']:.1f} MB of logs; "
            f"B {b['messages']:,}, {b['thoughts']:,}, {b['mb']:.1f} MB; the runs took {took[0]:.0f} and {took[1]:.0f} s"
        )
        png = work / "compare.png"
        return [
            _timed(
                f"s for `ideaco compare A B --json` (its own process): two seeds, {what}",
                [str(runs[0]), str(runs[1])],
                sizes,
                quick,
            ),
            _timed(
                f"same, B a fork of A at hour {hours / 2:g}",
                [str(runs[0]), str(fork)],
                f"the fork {f['messages']:,} messages, {f['thoughts']:,} thoughts",
                quick,
            ),
            _timed(
                "same as the first, with --plot",
                [str(runs[0]), str(runs[1]), "--plot", str(png)],
                "the PNG written too",
                quick,
            ),
        ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compare", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 people for one hour")
    args = parser.parse_args(argv)
    began = time.perf_counter()
    rows = asyncio.run(measure(quick=args.quick))
    print(
        f"python -m benchmarks.compare{' --quick' if args.quick else ''}  ·  {datetime.now():%Y-%m-%d %H:%M}"
    )
    print()
    print(markdown(rows))
    print()
    print(f"total {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
