"""The ablation sweep of issue 14, timed as a user runs it: `ideaco sweep` in its own process.

The startup scenario (its own 30 simulated minutes) with the zero-latency scripted model
(`plausible`), 5 seeds x {gates on, off} x {adaptive, broadcast} = 20 runs, through Ray local when
Ray is installed (else one by one, and the note says so). Target: under 5 minutes on 2 cores,
Ray's start included. `--quick`: 1 seed x {gates on, off}, 5 minutes each, without Ray.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.fake_model import FakeModel
from benchmarks.table import Row

ROOT = Path(__file__).resolve().parents[1]
TARGET_S = 300.0


def _command(out: Path, base_url: str, quick: bool) -> list[str]:
    args = [
        sys.executable,
        "-m",
        "ideaco",
        "sweep",
        str(ROOT / "scenarios" / "startup.yaml"),
        "--out",
        str(out),
        "--base-url",
        base_url,
        "--model",
        "scripted",
        "--vary",
        "gates=on,off",
    ]
    if quick:
        return [*args, "--seeds", "1", "--duration", "5m", "--no-ray"]
    return [*args, "--vary", "wake=adaptive,broadcast", "--seeds", "1-5"]


async def measure(quick: bool = False) -> list[Row]:
    with FakeModel(policy="plausible") as fake, tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sweep"
        began = time.perf_counter()
        done = subprocess.run(
            _command(out, fake.base_url, quick), capture_output=True, text=True, check=False
        )
        wall = time.perf_counter() - began
        if done.returncode != 0:
            return [Row("sweep", "ideaco sweep", "failed", note=(done.stderr or done.stdout).strip()[-200:])]
        data = json.loads((out / "comparison.json").read_text(encoding="utf-8"))
    runs = sum(len(v["seeds"]) for v in data["variants"])
    how = "Ray local" if "on Ray" in done.stdout else "one by one (no Ray)"
    rows = [
        Row(
            "sweep",
            f"wall s for {runs} runs ({len(data['variants'])} variants), {how}",
            wall,
            target="<= 300 s" if not quick else "",
            met=wall <= TARGET_S if not quick else None,
            note=f"startup {'5m' if quick else '30m'} each, scripted model; start-up included",
        ),
    ]
    calls = {v["name"]: data["metrics"]["calls"]["by_variant"][v["name"]]["mean"] for v in data["variants"]}
    if "gates-on_wake-broadcast" in calls:
        adaptive, broadcast = calls["gates-on_wake-adaptive"], calls["gates-on_wake-broadcast"]
        rows.append(
            Row(
                "sweep",
                "calls per run: broadcast vs adaptive waking (gates on)",
                adaptive,
                broadcast,
                f"{broadcast / adaptive:.1f}x fewer",
                note="mean over seeds",
            )
        )
    return rows
