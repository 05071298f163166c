"""(Re)record the guarded runs and their expected logs: `python -m tests.guard.make [--office] [--startup]`.

- The scripted office (`office.yaml`, seeds 1-3): recorded against the fake endpoint answering with
  `scripted.respond`.
- The startup scenario (seeds 1-3, 20 minutes): recorded on the embedded model (slow: minutes).

Each run is then replayed, and the replay's messages.jsonl and thoughts.jsonl become the expected
logs in `data/<run>/`. Re-record only when a change of behaviour is meant, and say so in the commit.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.fakes.openai_server import FakeOpenAIServer
from tests.guard.runs import RUNS, SCRIPTED_URL, GuardedRun
from tests.guard.scripted import as_content, respond


def _invoke(args: list[str]) -> None:
    result = CliRunner().invoke(app, args, env={"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None})
    if result.exit_code != 0:
        sys.exit(f"ideaco {' '.join(args)} failed ({result.exit_code}):\n{result.output}")


def record(run: GuardedRun, work: Path) -> None:
    run.folder.mkdir(parents=True, exist_ok=True)
    run.recording.unlink(missing_ok=True)
    args = [a for a in run.args(work / "recorded") if a not in ("--replay", str(run.recording))]
    args += ["--record", str(run.recording)]
    if run.flags:
        with FakeOpenAIServer(handler=lambda body: as_content(respond(body))) as fake:
            _invoke([fake.base_url if a == SCRIPTED_URL else a for a in args])
    else:
        _invoke(args)


def expect(run: GuardedRun, work: Path) -> None:
    out = work / "replayed"
    _invoke(run.args(out))
    for name in ("messages.jsonl", "thoughts.jsonl"):
        shutil.copyfile(out / name, run.folder / name)
    print(
        f"{run.name}: {sum(1 for _ in open(out / 'messages.jsonl'))} messages, "
        f"{sum(1 for _ in open(out / 'thoughts.jsonl'))} thoughts"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--office", action="store_true", help="only the scripted office")
    parser.add_argument("--startup", action="store_true", help="only the startup runs (embedded model)")
    parser.add_argument(
        "--expect-only", action="store_true", help="keep the recordings, redo the expected logs"
    )
    opts = parser.parse_args()
    chosen = [
        r
        for r in RUNS
        if (opts.office == opts.startup) or (opts.office and r.flags) or (opts.startup and not r.flags)
    ]
    for run in chosen:
        with tempfile.TemporaryDirectory() as tmp:
            if not opts.expect_only:
                record(run, Path(tmp))
            expect(run, Path(tmp))


if __name__ == "__main__":
    main()
