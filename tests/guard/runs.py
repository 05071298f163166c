"""The guarded runs: which scenario, seed, length and model flags each replays (see make.py, test_guard.py)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DATA = HERE / "data"
# The replay never contacts this address; giving one keeps the settings of a remote endpoint (the
# full-length schema), as when the scripted office was recorded. An endpoint's text rules default
# to `standard`; the scripted office was recorded under the small model's, `--filters strict`.
SCRIPTED_URL = "http://127.0.0.1:9/v1"


@dataclass(frozen=True)
class GuardedRun:
    name: str
    scenario: Path
    seed: int
    duration: str
    flags: tuple[str, ...]  # the model flags of the recording (the replay gives the same)

    @property
    def folder(self) -> Path:
        return DATA / self.name

    @property
    def recording(self) -> Path:
        return self.folder / "replay.jsonl"

    def args(self, out: Path) -> list[str]:
        """`ideaco run` arguments that replay this run into `out`."""
        return [
            "run",
            str(self.scenario),
            "--seed",
            str(self.seed),
            "--duration",
            self.duration,
            "--out",
            str(out),
            "--replay",
            str(self.recording),
            *self.flags,
        ]


RUNS = [
    *(GuardedRun(f"startup-s{s}", ROOT / "scenarios" / "startup.yaml", s, "20m", ()) for s in (1, 2, 3)),
    *(
        GuardedRun(
            f"office-s{s}", HERE / "office.yaml", s, "2h", (
                "--model",
                "scripted",
                "--base-url",
                SCRIPTED_URL,
                "--filters",
                "strict",
            )
        )
        for s in (1, 2, 3)
    ),
]


def comparable_thoughts(path: Path) -> list[dict[str, Any]]:
    """thoughts.jsonl as the guard compares it: every field but `applied` (issue 10 adds it)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            record = json.loads(line)
            record.pop("applied", None)
            out.append(record)
    return out
