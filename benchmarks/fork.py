"""Forking a workday (issue 39): the past restored with no model call, in a small share of the time
the original took to reach the moment, and a fork with no change that goes on exactly as it did.

The original: `scenarios/workday.yaml` (10 people) run by `ideaco run` in its own process for its
first four simulated hours on the scripted model (`plausible`) answering each call after a fixed
latency (1 s: five times faster than the embedded model's calls on 2 cores, so the share printed
is an upper bound for that model). The fork: `open_fork` at the fourth hour, in this process; the
time until its past is retraced (`OpenedRun.begin`) is measured, and the model calls made in it
counted (only thinks under way at the moment may call: their answers were not logged yet).
Then exactness: the same office run for 30 minutes more in one go with `--record`, and a fork of it
with no change at the moment, 30 minutes on those answers (`--replay`, `--concurrency 16`): their
messages.jsonl compared byte for byte.
`--quick`: 15 minutes, latency 0.05 s.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

from benchmarks.fake_model import FakeModel
from benchmarks.table import Row
from ideaco.fork import open_fork
from ideaco.model_options import ModelOptions
from ideaco.store.runlog import applied_at

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "scenarios" / "workday.yaml"
TARGET = 0.05  # the past restored in at most 5% of the original's wall time to the moment


def _run(args: list[str]) -> float:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "ideaco", *args], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise RuntimeError((done.stderr or done.stdout).strip()[-300:])
    return time.perf_counter() - began


async def measure(quick: bool = False) -> list[Row]:
    minutes, latency = (15, 0.05) if quick else (240, 1.0)
    with FakeModel(policy="plausible", latency=latency) as fake, tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        flags = ["--base-url", fake.base_url, "--model", "scripted", "--seed", "3"]
        original, longer, answers = base / "original", base / "longer", base / "answers.jsonl"
        wall = _run(["run", str(SCENARIO), "--duration", f"{minutes}m", "--out", str(original), *flags])
        thoughts = [
            json.loads(line) for line in (original / "thoughts.jsonl").read_text().splitlines() if line
        ]
        start = datetime.fromisoformat(
            json.loads((original / "messages.jsonl").read_text().splitlines()[0])["at"]
        )
        moment = min(
            start.replace(minute=0, second=0) + timedelta(minutes=minutes),
            max(applied_at(t) for t in thoughts),
        )
        in_flight = sum(1 for t in thoughts if datetime.fromisoformat(t["at"]) <= moment < applied_at(t))
        before = fake.stats()["calls"]
        began = time.perf_counter()
        opened = open_fork(
            original,
            at=moment,
            model=ModelOptions(base_url=fake.base_url, model="scripted"),
            out=base / "fork",
        )
        try:
            await opened.begin()
            restored = time.perf_counter() - began
            past_calls = fake.stats()["calls"] - before
        finally:
            opened.office.stop("measured")
            await opened.office.drain()
            opened.close()
        past = sum(1 for t in thoughts if applied_at(t) <= moment)
        # Exact when nothing changes: the office 30 minutes longer in one go, and a fork of it at the moment.
        longer_run = ["run", str(SCENARIO), "--duration", f"{minutes + 30}m", "--out", str(longer)]
        _run([*longer_run, "--record", str(answers), *flags])
        replay = ["--replay", str(answers), "--base-url", fake.base_url, "--model", "scripted"]
        at = moment.isoformat()
        same_run = ["fork", str(longer), "--at", at, "--out", str(base / "same"), "--concurrency", "16"]
        _run([*same_run, *replay])
        same = (base / "same" / "messages.jsonl").read_bytes() == (longer / "messages.jsonl").read_bytes()
    share = restored / wall
    return [
        Row(
            "fork",
            f"the past restored: {past} thoughts of {minutes / 60:g} simulated hours (workday, 10 people)",
            restored,
            wall,
            f"{share:.1%}",
            target="<= 5% of the original's wall time",
            met=share <= TARGET if not quick else None,
            note=f"original on a {latency:g} s-a-call scripted model, 2 in flight; seconds",
        ),
        Row(
            "fork",
            "model calls for the past",
            past_calls - in_flight if past_calls >= in_flight else past_calls,
            "",
            "",
            target="0",
            met=past_calls <= in_flight,
            note=f"{past_calls} calls made while retracing, {in_flight} of them thinks under way at the moment",
        ),
        Row(
            "fork",
            "a fork with no change, the last 30 minutes at --concurrency 16: messages.jsonl = the original's",
            "byte for byte" if same else "differs",
            target="byte for byte",
            met=same,
            note="both on the original's recorded answers (--replay)",
        ),
    ]
