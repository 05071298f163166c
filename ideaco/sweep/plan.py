"""What a sweep runs: every combination of the varied switches, for every seed, each a run directory.

Pure: parsing `--seeds 1-10` and `--vary gates=on,off`, naming variants and runs, and laying out
the sweep's directory (docs/evaluation.md):

    DIR/sweep.json            the plan (a re-run must match it; seeds may be added)
    DIR/progress.jsonl        one line per run as it finishes (done or failed)
    DIR/runs/<variant>-s<seed>/   an ordinary run directory (inspect, report and --resume read it)
    DIR/interviews/<run>.json the answers to --question (outside the run directories)
    DIR/comparison.{md,json,png}  the table over seeds, per metric and variant

A sweep from a fork (`--from RUNDIR --at TIME`) has no scenario of its own: every run is a fork of
that run at that moment (its variant's switches and its seed the changes made there), measured from
the moment on.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ideaco.office.rules.config import SWITCHES, WAKES, Switches

VALUES = {name: ("adaptive", "broadcast") if name == "wake" else ("on", "off") for name in SWITCHES}
assert VALUES["wake"] == WAKES
MAX_SEEDS = 10_000
RUNS = "runs"  # where a sweep keeps its runs, each a run directory: runs/<variant>-s<seed>


class PlanError(ValueError):
    """A sweep that cannot be planned; `str()` is one line naming the flag."""


def parse_seeds(text: str) -> list[int]:
    """`1-10`, `1,3,5`, `1-3,7` -> the seeds, in order, without repeats."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        found = re.fullmatch(r"(\d+)(?:\s*-\s*(\d+))?", part)
        if not found:
            raise PlanError(f"--seeds {text!r}: expected numbers and ranges, e.g. 1-10 or 1,3,5")
        low, high = int(found[1]), int(found[2] or found[1])
        if high < low:
            raise PlanError(f"--seeds {text!r}: the range {part} goes backwards")
        if high - low + 1 > MAX_SEEDS:  # before the range is built: 1-300000000 would fill the memory
            raise PlanError(f"--seeds {text!r}: more than {MAX_SEEDS} seeds")
        seen = set(seeds)
        seeds += [s for s in range(low, high + 1) if s not in seen]
        if len(seeds) > MAX_SEEDS:
            raise PlanError(f"--seeds {text!r}: more than {MAX_SEEDS} seeds")
    return seeds


def parse_vary(items: Sequence[str]) -> dict[str, list[str]]:
    """`["gates=on,off", "wake=adaptive,broadcast"]` -> {"gates": ["on", "off"], "wake": [...]}, in order."""
    out: dict[str, list[str]] = {}
    for item in items:
        name, sep, values = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise PlanError(f"--vary {item!r}: expected NAME=VALUE,VALUE, e.g. gates=on,off")
        if name not in VALUES:
            raise PlanError(f"--vary {item!r}: unknown switch {name!r} (known: {', '.join(SWITCHES)})")
        if name in out:
            raise PlanError(f"--vary {name} is given twice")
        chosen = [v.strip() for v in values.split(",") if v.strip()]
        bad = [v for v in chosen if v not in VALUES[name]]
        if not chosen or bad:
            raise PlanError(f"--vary {item!r}: {name} takes {', '.join(VALUES[name])}")
        if len(set(chosen)) != len(chosen):
            raise PlanError(f"--vary {item!r}: a value is given twice")
        out[name] = chosen
    return out


@dataclass(frozen=True)
class Variant:
    """One combination of switch values (the switches not varied keep today's engine)."""

    values: tuple[tuple[str, str], ...]  # (switch, value), in the order of --vary

    @property
    def name(self) -> str:
        """A file-name-safe id: `gates-off_wake-broadcast` (`default` when nothing varies)."""
        return "_".join(f"{k}-{v}" for k, v in self.values) or "default"

    @property
    def label(self) -> str:
        return " ".join(f"{k}={v}" for k, v in self.values) or "today's engine"

    @property
    def switches(self) -> Switches:
        return Switches.from_dict(dict(self.values))


def variants(vary: dict[str, list[str]]) -> list[Variant]:
    """Every combination, the first --vary changing slowest."""
    names = list(vary)
    return [Variant(tuple(zip(names, combo, strict=True))) for combo in itertools.product(*vary.values())]


@dataclass(frozen=True)
class RunSpec:
    """One run of a sweep: a variant and a seed."""

    variant: Variant
    seed: int

    @property
    def name(self) -> str:
        return f"{self.variant.name}-s{self.seed}"


@dataclass
class Plan:
    """A sweep: the scenario (or the run every arm forks, and when), the variants, the seeds, and how
    every run is made."""

    scenario: Path | None  # None for a sweep from a fork: the original's scenario goes on
    vary: dict[str, list[str]]
    seeds: list[int]
    out: Path
    duration: str | None = None
    model: dict[str, Any] = field(default_factory=dict)  # the model flags every run gets
    questions: list[str] = field(default_factory=list)
    origin: Path | None = None  # --from: the run whose past every run of the sweep shares
    at: datetime | None = None  # --at: the moment each run forks it (and is measured from)

    @property
    def variants(self) -> list[Variant]:
        return variants(self.vary)

    def label(self, variant: Variant) -> str:
        """How a variant reads in the table: in a sweep from a fork, no switch varied is no change."""
        return "no change" if self.origin is not None and not variant.values else variant.label

    def runs(self) -> list[RunSpec]:
        """Seed by seed, every variant of each: early seeds give a first comparison soonest."""
        return [RunSpec(v, s) for s in self.seeds for v in self.variants]

    @property
    def runs_dir(self) -> Path:
        """Where each run's own run directory is: `runs/<run name>`."""
        return self.out / RUNS

    def run_dir(self, run: RunSpec) -> Path:
        return self.runs_dir / run.name

    def interview_path(self, run: RunSpec) -> Path:
        return self.out / "interviews" / f"{run.name}.json"

    def identity(self) -> dict[str, Any]:
        """What a re-run with the same --out must repeat (the seeds may grow)."""
        mine: dict[str, Any] = {
            "scenario": str(self.scenario.resolve()) if self.scenario is not None else None,
            "vary": self.vary,
            "duration": self.duration,
            "model": self.model,
            "questions": self.questions,
        }
        if self.origin is not None:  # a plain sweep's sweep.json stays as it was
            assert self.at is not None
            mine |= {"from": str(self.origin.resolve()), "at": self.at.isoformat()}
        return mine

    def check_same(self, saved: dict[str, Any]) -> None:
        """PlanError naming the first difference from the plan saved in sweep.json."""
        mine = self.identity()
        for key, value in mine.items():
            if saved.get(key) != value:
                raise PlanError(
                    f"{self.out} holds another sweep ({key} was {saved.get(key)!r}, now {value!r}); "
                    "give another --out, or repeat its command to resume it"
                )
