"""Issue 19: how many model calls an office keeps in flight, against what its dependencies allow.

The model is the scripted one (`fake_model`, `plausible` policy: the answer a pure function of the
request) with a fixed latency per answer, in its own process, counting the answers it is giving at
every moment. Each run is `ideaco run` as a user starts it, in a subprocess:

- the shipped workday (10 people) for 1 simulated hour, at several `--concurrency` and
  `--speculate` values;
- a generated 100-person office (`offices.large_scenario`) for 10 simulated minutes.

Per run: wall time, calls in flight (mean: the server's call-seconds over the run's wall time;
peak), calls made / used / dropped (summary.json), and the **dependency bound**: the number of
thoughts divided by the longest chain of thoughts in which each one read something an earlier one
wrote (the same employee, or a message posted to the conversation it read before it began). The
thoughts are the same whatever the order; only their order in wall time can change, so with every
call taking the same time no run can keep more calls in flight on average than that bound.
A last row compares each run's logs with the `--concurrency 1 --speculate 0` run's: the same
messages and thoughts, wall-clock fields aside.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from benchmarks.embedded import busy_embedded, competing_process
from benchmarks.fake_model import FakeModel
from benchmarks.offices import ROOT, large_scenario
from benchmarks.table import Row

NAME = "concurrency"
WORKDAY = ROOT / "scenarios" / "workday.yaml"
LATENCY_S = 0.5


@dataclass
class Measured:
    """One run: what it cost in wall time and how busy it kept the model."""

    label: str
    wall_s: float
    calls: int
    mean_in_flight: float
    peak_in_flight: int
    bound: float
    summary: dict[str, Any]
    run_dir: Path


def dependency_bound(run_dir: Path, *, wakes: bool = False) -> tuple[float, int, int]:
    """(thoughts / longest chain, thoughts, longest chain) for a run directory's logs.

    A thought depends on the employee's previous thought, and on every thought whose message was
    posted to the conversation it read before it began (messages carry their thought's id). With
    `wakes`, also on every message posted before it began in any conversation its employee is a
    member of (such a post may be what woke it, and so set its moment): a stricter bound.
    """
    thoughts = _records(run_dir / "thoughts.jsonl")
    messages = _records(run_dir / "messages.jsonl")
    members = _memberships(run_dir) if wakes else {}
    events: list[tuple[datetime, int, dict[str, Any]]] = []
    for m in messages:
        events.append((datetime.fromisoformat(m["at"]), 0, m))  # posts first at the same moment
    for t in thoughts:
        if t.get("llm"):
            events.append((datetime.fromisoformat(t["at"]), 1, t))
    chain_of: dict[str, int] = {}
    by_employee: dict[str, int] = {}
    by_conversation: dict[str, int] = {}
    for _, kind, rec in sorted(events, key=lambda e: (e[0], e[1])):
        if kind == 0:
            author = str(rec["id"]).split("-")[0]
            depth = chain_of.get(author, 0)
            for conv in (rec["conversation"],):
                by_conversation[conv] = max(by_conversation.get(conv, 0), depth)
            for member in members.get(rec["conversation"], ()):
                by_employee[member] = max(by_employee.get(member, 0), depth)
            continue
        depth = 1 + max(by_employee.get(rec["employee"], 0), by_conversation.get(rec["conversation"], 0))
        chain_of[rec["id"]] = depth
        by_employee[rec["employee"]] = depth
    longest = max(chain_of.values(), default=0)
    n = len(chain_of)
    return (n / longest if longest else 0.0), n, longest


def _memberships(run_dir: Path) -> dict[str, list[str]]:
    """Conversation id -> members, as the run's state.json holds them (TinyDB: table -> id -> doc)."""
    state = json.loads((run_dir / "state.json").read_text(encoding="utf-8"))
    table = state.get("conversations") or {}
    docs = table.values() if isinstance(table, dict) else table
    return {d["id"]: list(d.get("members") or ()) for d in docs if isinstance(d, dict) and "id" in d}


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def comparable(run_dir: Path) -> tuple[list[Any], list[Any]]:
    """A run's messages and thoughts without what the server's state decides, not the request: a
    call's latency, and its cached tokens (the fake model's prefix cache, like a provider's, also
    holds the prompts of calls that were dropped)."""
    thoughts = _records(run_dir / "thoughts.jsonl")
    for t in thoughts:
        if t.get("llm"):
            t["llm"].pop("latency_ms", None)
            t["llm"].pop("cached_tokens", None)
    return _records(run_dir / "messages.jsonl"), thoughts


def run_office(
    fake: FakeModel, scenario: Path, duration: str, out: Path, label: str, *flags: str
) -> Measured:
    """`ideaco run` against the fake model, in a subprocess; what the server and the logs say of it."""
    fake.reset("plausible")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IDEACO_", "OPENAI_"))}
    args = [
        sys.executable,
        "-m",
        "ideaco",
        "run",
        str(scenario),
        "--duration",
        duration,
        "--seed",
        "7",
        "--out",
        str(out),
        "--base-url",
        fake.base_url,
        "--model",
        "bench",
        *flags,
    ]
    started = time.perf_counter()
    done = subprocess.run(args, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{label}: ideaco run failed ({done.returncode}): {done.stderr[-2000:]}")
    stats = fake.stats()
    bound, _, _ = dependency_bound(out)
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    run_wall = float(summary.get("wall_time_s") or wall)
    return Measured(
        label,
        run_wall,
        int(stats["calls"]),
        stats["busy_s"] / run_wall if run_wall else 0.0,
        int(stats["peak_in_flight"]),
        bound,
        summary,
        out,
    )


def _hundred(tmp: Path) -> Path:
    path = tmp / "office-100.yaml"
    data = large_scenario(100).to_dict()
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


@dataclass(frozen=True)
class Case:
    label: str
    scenario: str  # "workday" or "hundred"
    duration: str
    flags: tuple[str, ...]
    reference: bool = False  # the run the others' logs are compared with


CASES = (
    Case(
        "workday 1 h, --concurrency 1 --speculate 0",
        "workday",
        "1h",
        ("--concurrency", "1", "--speculate", "0"),
        True,
    ),
    Case(
        "workday 1 h, --concurrency 16 --speculate 0",
        "workday",
        "1h",
        ("--concurrency", "16", "--speculate", "0"),
    ),
    Case("workday 1 h, --concurrency 16 (--speculate 16)", "workday", "1h", ("--concurrency", "16")),
    Case(
        "workday 1 h, --concurrency 16 --speculate 4",
        "workday",
        "1h",
        ("--concurrency", "16", "--speculate", "4"),
    ),
    Case(
        "100 people 10 min, --concurrency 64 --speculate 0",
        "hundred",
        "10m",
        ("--concurrency", "64", "--speculate", "0"),
        True,
    ),
    Case("100 people 10 min, --concurrency 64 (--speculate 64)", "hundred", "10m", ("--concurrency", "64")),
)


def rows_for(m: Measured, reference: Measured | None) -> list[Row]:
    calls = m.summary.get("calls") or {}
    made, used = calls.get("made", m.calls), calls.get("used", m.calls)
    same = (
        None
        if reference is None or reference is m
        else comparable(m.run_dir) == comparable(reference.run_dir)
    )
    note = f"{used} calls used in {m.wall_s:.1f} s; peak {m.peak_in_flight} in flight"
    if same is not None:
        note += "; the same logs as the reference" if same else "; LOGS DIFFER from the reference"
    waste = made / used if used else 0.0
    ratio = m.mean_in_flight / m.bound if m.bound else 0.0
    return [
        Row(
            NAME,
            f"{m.label}: mean calls in flight (vs the dependency bound)",
            m.mean_in_flight,
            m.bound,
            ratio,
            "",
            None,
            note,
        ),
        Row(
            NAME,
            f"{m.label}: calls made / used",
            waste,
            f"{made} / {used}",
            "",
            "<= 1.25",
            waste <= 1.25 if calls.get("early", {}).get("started") else None,
            f"dropped {calls.get('dropped', 0)}, tokens used by no thought {calls.get('tokens_unused', 0):,}",
        ),
    ]


TARGETS = {  # the targets for mean calls in flight
    "workday 1 h, --concurrency 16 (--speculate 16)": 2.5,
    "100 people 10 min, --concurrency 64 (--speculate 64)": 12.0,
}


STARTUP = ROOT / "scenarios" / "startup.yaml"


def embedded_startup(out: Path, contended: bool) -> Row:
    """The README's first command (startup, 30 simulated minutes, the embedded model, every default)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("IDEACO_", "OPENAI_"))}
    args = [sys.executable, "-m", "ideaco", "run", str(STARTUP), "--duration", "30m", "--out", str(out)]
    with competing_process(contended):
        started = time.perf_counter()
        done = subprocess.run(args, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - started
    label = "beside 1 busy process" if contended else "machine to itself"
    if done.returncode != 0:
        return Row(
            NAME, f"embedded startup 30 min, {label}", f"failed ({done.returncode})", note=done.stderr[-200:]
        )
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    calls = summary.get("calls") or {}
    flight = calls.get("in_flight") or {}
    target = 250.0 if contended else 200.0
    return Row(
        NAME,
        f"embedded startup 30 min (the README's first command), {label}: wall s",
        wall,
        "",
        "",
        f"<= {target:.0f} s",
        wall <= target,
        f"{summary['thoughts']} thoughts; {flight.get('mean', 0):.2f} calls in flight on average "
        f"(peak {flight.get('peak', 0)}); made / used {calls.get('made', 0)} / {calls.get('used', 0)}; "
        f"{summary['wall_time_s']:.0f} s in the run itself",
    )


async def measure(quick: bool = False, embedded: bool = True) -> list[Row]:
    rows: list[Row] = []
    latency = 0.02 if quick else LATENCY_S  # --quick: a smoke run, a few seconds
    with FakeModel("plausible", latency=latency) as fake, tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        scenarios = {"workday": WORKDAY, "hundred": _hundred(work)}
        references: dict[str, Measured] = {}
        for n, case in enumerate(CASES):
            if quick and (
                case.scenario == "hundred" or "--speculate" in case.flags[2:] and not case.reference
            ):
                continue
            duration = "10m" if quick else case.duration
            m = run_office(
                fake, scenarios[case.scenario], duration, work / f"run-{n}", case.label, *case.flags
            )
            if case.reference:
                references[case.scenario] = m
            rows += rows_for(m, references.get(case.scenario))
            target = TARGETS.get(case.label)
            if target is not None and not quick:
                rows.append(
                    Row(
                        NAME,
                        f"{case.label}: mean calls in flight, target",
                        m.mean_in_flight,
                        "",
                        "",
                        f">= {target}",
                        m.mean_in_flight >= target,
                    )
                )
        if quick or not embedded:
            why = "--quick" if quick else "--no-embedded"
            rows.append(Row(NAME, "embedded startup 30 min", f"skipped ({why})"))
        elif busy_embedded():
            rows.append(Row(NAME, "embedded startup 30 min", "skipped: another embedded run is active"))
        else:
            for contended in (False, True):
                rows.append(embedded_startup(work / f"startup-{int(contended)}", contended))
    return rows


if __name__ == "__main__":
    import asyncio

    from benchmarks.table import markdown

    # --no-embedded: the fake model's offices only (about 3 minutes instead of 10)
    print(
        markdown(asyncio.run(measure(quick="--quick" in sys.argv, embedded="--no-embedded" not in sys.argv)))
    )
