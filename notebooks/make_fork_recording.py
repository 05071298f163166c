"""(Re)create the recorded model calls notebook 04 replays: `notebooks/data/fork-original.jsonl`
(the startup run's first 20 minutes) and `notebooks/data/fork-intervention.jsonl` (its fork).

    python notebooks/make_fork_recording.py

The same scripted fake endpoint as `make_recording.py` (answers from the prompt alone); the same
session as the notebook: the startup scenario, seed 7, 20 minutes; then a fork at 09:05:59, just
before the boss's second line, with the scenario's later lines dropped and another line said
instead, 14 minutes. A change to the prompts, the scenario or this session means re-running it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for path in (ROOT, HERE):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from make_recording import MODEL, SCENARIO, SEED, reply  # noqa: E402  (beside this file)

ORIGINAL = HERE / "data" / "fork-original.jsonl"
INTERVENTION = HERE / "data" / "fork-intervention.jsonl"
FIRST_RUN = "20m"
MOMENT = "09:05:59"
LINE = ("launch", "Change of plan: we launch in one week, not two. @Sam @Dan, what do we cut?")
FORK_RUN = "14m"


def main() -> None:
    import ideaco
    from tests.fakes.openai_server import FakeOpenAIServer

    for recording in (ORIGINAL, INTERVENTION):
        recording.unlink(missing_ok=True)
    with FakeOpenAIServer(handler=reply) as fake, tempfile.TemporaryDirectory() as tmp:
        flags = {"base_url": fake.base_url, "model": MODEL}
        sim = ideaco.load(SCENARIO, out=Path(tmp) / "run", seed=SEED, record=ORIGINAL, **flags)
        try:
            sim.run(FIRST_RUN)
            fork = sim.fork(
                at=MOMENT, out=Path(tmp) / "fork", say=[LINE], drop_script=True, record=INTERVENTION, **flags
            )
            try:
                fork.run(FORK_RUN)
            finally:
                fork.close()
        finally:
            sim.close()
    for recording in (ORIGINAL, INTERVENTION):
        calls = len(recording.read_text(encoding="utf-8").splitlines())
        print(f"{recording.relative_to(ROOT)}: {calls} calls")


if __name__ == "__main__":
    main()
