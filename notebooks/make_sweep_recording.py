"""(Re)create `notebooks/data/sweep/`, the recorded model calls notebook 3 replays.

    python notebooks/make_sweep_recording.py

It runs the sweep notebook 3 runs (the startup scenario, SEEDS x VARY, DURATION each, the
QUESTIONS at the end) against the benchmarks' scripted model (`benchmarks/fake_model.py`,
policy `plausible`: it answers the boss, replies when addressed, joins a fresh topic now and then,
remembers, judges colleagues, takes and resolves tasks, and answers interviews from the prompt),
with `record_dir=`, then gzips each run's recording into `data/sweep/<run>.jsonl.gz`. A replay
answers by request key (model, messages, schema, sampling settings): any change to the prompts,
the scenario or the settings below means re-running this script.
"""

from __future__ import annotations

import gzip
import shutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the scripted model lives in benchmarks/, not in the package

SCENARIO = ROOT / "scenarios" / "startup.yaml"
RECORDINGS = HERE / "data" / "sweep"
SEEDS = "1-2"
VARY = {"gates": ["on", "off"], "wake": ["adaptive", "broadcast"]}
DURATION = "15m"
QUESTIONS = ("What went well today, and what did not?",)
MODEL = "scripted"


def main() -> None:
    import ideaco.sweep
    from benchmarks.fake_model import FakeModel

    with FakeModel(policy="plausible") as fake, tempfile.TemporaryDirectory() as tmp:
        calls = Path(tmp) / "calls"
        ideaco.sweep.sweep(
            SCENARIO, out=Path(tmp) / "sweep", seeds=SEEDS, vary=VARY, duration=DURATION,
            questions=QUESTIONS, base_url=fake.base_url, model=MODEL, record_dir=calls, use_ray=False,
        )  # fmt: skip
        if RECORDINGS.exists():
            shutil.rmtree(RECORDINGS)
        RECORDINGS.mkdir(parents=True)
        for path in sorted(calls.glob("*.jsonl")):
            # mtime=0: the same calls give the same bytes, so an unchanged recording is no diff.
            packed = gzip.compress(path.read_bytes(), compresslevel=9, mtime=0)
            (RECORDINGS / f"{path.name}.gz").write_bytes(packed)
    total = sum(p.stat().st_size for p in RECORDINGS.iterdir())
    print(f"wrote {len(list(RECORDINGS.iterdir()))} recordings ({total // 1024} KB) to {RECORDINGS}")


if __name__ == "__main__":
    main()
