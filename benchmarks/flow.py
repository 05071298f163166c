"""The path of one thought through the package (issue 27, item 8): `python -m benchmarks --only flow`.

Two scripted thoughts are traced with `sys.setprofile`, from the wake that starts them to the end
of their resolve (the wake, the think's begin and its finish: the three events of the office that
belong to that thought, nothing else of the office's run), each in an office that has already had
one such exchange (a running office: the caches the first thought of a kind fills are full):

- `speak`: the boss writes to Alice in her 1-on-1; she answers with one line.
- `dm+ops`: the same, and she also DMs Bob and writes a task, a memory and a relationship op.

Printed for each: the ideaco modules entered, the calls from one ideaco module into another, and
the calls from a module of `office.decide` or `office.resolve` into `office.engine` (a call back
into the engine: a stage handing a value down never calls up). Counts, not times: the same on any
machine. The checkpoint after the thought (`Office.checkpoint_after_thought`: state.json, which
the scripted model's instant thoughts make due after every one, a real model's seldom) is counted
apart too, as issue 38 measures the thought: the modules and crossings without it.
"""

from __future__ import annotations

import asyncio
import sys
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from types import FrameType
from typing import Any

from benchmarks.table import Row
from ideaco.llm.base import ChatRequest, ChatResult, Usage

NAME = "flow"
START = datetime(2026, 1, 5, 9, 0)
PACKAGE = Path(__import__("ideaco").__file__).resolve().parent
SCENARIO = {
    "name": "flow",
    "company": "Acme Labs",
    "start": START.isoformat(),
    "departments": [{"id": "eng", "name": "Engineering", "members": ["alice", "bob"]}],
    "employees": [
        {"id": "alice", "name": "Alice", "role": "Engineer", "archetype": "old-hand"},
        {"id": "bob", "name": "Bob", "role": "Engineer", "archetype": "warm-hearted"},
    ],
}
LINE = "Yes, the API draft will be ready by noon."


def _answer(ops: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "innerThoughts": "the boss asks about the draft",
        "topicSaturation": 2,
        "interestLevel": 8,
        "shouldSpeak": True,
        "reason": "the boss asked me",
        "messages": [{"content": LINE}],
        "actions": [],
        "memorySummary": None,
        "memoryOps": [],
        "relationshipOps": [],
        "taskOps": [],
    }
    if ops:
        out["actions"] = [
            {"tool": "send_message", "args": {"to": "bob", "content": "Can you review the draft?"}}
        ]
        out["memoryOps"] = [
            {
                "op": "add",
                "type": "long_term",
                "content": "The draft is due at noon",
                "category": "task",
                "importance": 7,
            }
        ]
        out["relationshipOps"] = [
            {"employeeId": "bob", "name": "Bob", "impression": "reliable", "affinity": 60}
        ]
        out["taskOps"] = [{"op": "create", "description": "Finish the API draft", "type": "oneshot"}]
    return out


class _Model:
    """Alice's scripted answer; everyone else stays silent."""

    def __init__(self, ops: bool) -> None:
        self.ops = ops

    async def complete(self, request: ChatRequest) -> ChatResult:
        import json

        mine = request.tag.startswith("alice in boss:alice")
        body = _answer(self.ops) if mine else {**_answer(False), "shouldSpeak": False, "messages": []}
        return ChatResult(content=json.dumps(body), model=request.model, usage=Usage(10, 5), latency_ms=1.0)

    async def aclose(self) -> None:
        return None


def _module(frame: FrameType) -> str | None:
    path = frame.f_code.co_filename
    if not path.startswith(str(PACKAGE)):
        return None
    return frame.f_globals.get("__name__")


def _stage(module: str) -> str:
    """The office stage a module is in (`ideaco.office.<stage>.<module>`), or "" outside the office."""
    parts = module.split(".")
    if len(parts) > 3 and parts[1] == "office":
        return parts[2]
    return ""


CHECKPOINT = ("ideaco.office.engine.office", "checkpoint_after_thought")


@dataclass
class Trace:
    modules: set[str] = field(default_factory=set)
    crossings: Counter = field(default_factory=Counter)
    callbacks: int = 0
    # The checkpoint after the thought counted apart: the modules entered outside it, its crossings.
    thought_modules: set[str] = field(default_factory=set)
    checkpoint_crossings: Counter = field(default_factory=Counter)
    _saving: FrameType | None = None  # the checkpoint's frame, while it runs

    def __call__(self, frame: FrameType, event: str, _arg: Any) -> None:
        if event == "return" and frame is self._saving:
            self._saving = None
        if event != "call":
            return
        callee = _module(frame)
        if callee is None:
            return
        if self._saving is None and (callee, frame.f_code.co_name) == CHECKPOINT:
            self._saving = frame
        saving = self._saving is not None
        self.modules.add(callee)
        if not saving:
            self.thought_modules.add(callee)
        caller = frame.f_back and _module(frame.f_back)
        if caller and caller != callee:
            self.crossings[(caller, callee)] += 1
            if saving:
                self.checkpoint_crossings[(caller, callee)] += 1
            if _stage(caller) in ("decide", "resolve") and _stage(callee) == "engine":
                self.callbacks += 1

    def thought_crossings(self) -> int:
        return sum(self.crossings.values()) - sum(self.checkpoint_crossings.values())


async def trace_thought(ops: bool, tmp: Path) -> Trace:
    """The trace of Alice's one thought after the boss's line in her 1-on-1."""
    from ideaco.office.engine.build import office_from_scenario
    from ideaco.scenario import Scenario

    clock_mod = _clock()
    journal_mod = _journal()
    office = office_from_scenario(
        Scenario.model_validate(SCENARIO),
        tmp,
        llm=_Model(ops),
        clock=clock_mod.SimClock(START),
        seed=1,
        journal=journal_mod.MemoryJournal(),
    )
    office.start()
    await office.run(timedelta(seconds=1))
    # One exchange untraced first: the thought traced is one of a running office, whose caches
    # (schemas, field bounds, the prompt's fixed part) the first thought of its kind filled.
    await _exchange(office, "Alice, good morning: what is on your plate today?")
    await office.run(timedelta(minutes=5))
    trace = Trace()
    traced = ("_on_wake", "begin_think", "_finish")
    originals = {name: getattr(office, name) for name in traced}

    def wrap(name: str):
        original = originals[name]

        if asyncio.iscoroutinefunction(original):

            async def run_async(*args: Any, **kwargs: Any) -> Any:
                if not _is_alice(name, args):
                    return await original(*args, **kwargs)
                sys.setprofile(trace)
                try:
                    return await original(*args, **kwargs)
                finally:
                    sys.setprofile(None)

            return run_async

        def run(*args: Any, **kwargs: Any) -> Any:
            if not _is_alice(name, args):
                return original(*args, **kwargs)
            sys.setprofile(trace)
            try:
                return original(*args, **kwargs)
            finally:
                sys.setprofile(None)

        return run

    for name in traced:
        setattr(office, name, wrap(name))
    await _exchange(office, "Alice, is the API draft on track?")
    return trace


async def _exchange(office: Any, line: str) -> None:
    """The boss writes `line` to Alice; the office runs until she has answered it."""
    said = sum(m["sender"] == "alice" for m in office.journal.messages)
    office.post_as_boss("boss:alice", line)
    while sum(m["sender"] == "alice" for m in office.journal.messages) == said:
        if not await office.step():
            raise RuntimeError("Alice never answered")


def _is_alice(name: str, args: tuple[Any, ...]) -> bool:
    if name == "_finish":
        return getattr(args[0], "employee", None) == "alice"
    return bool(args) and args[0] == "alice"


def _clock():
    from ideaco.office.engine import clock

    return clock


def _journal():
    from ideaco.office.resolve import journal

    return journal


async def measure(quick: bool = False) -> list[Row]:
    import tempfile

    rows: list[Row] = []
    targets = {"speak": (45, 180), "dm+ops": (None, 260)}  # issue 38, the checkpoint counted apart
    for label, ops in (("speak", False), ("dm+ops", True)):
        with tempfile.TemporaryDirectory() as tmp:
            trace = await trace_thought(ops, Path(tmp))
        modules = trace.thought_modules
        office = sum(1 for m in modules if m.startswith("ideaco.office"))
        crossings = trace.thought_crossings()
        saving = sum(trace.checkpoint_crossings.values())
        top = ", ".join(
            f"{a.split('.')[-1]}->{b.split('.')[-1]} {n}"
            for (a, b), n in (trace.crossings - trace.checkpoint_crossings).most_common(3)
        )
        max_modules, max_calls = targets[label]
        if max_modules is not None:
            rows.append(
                Row(
                    NAME,
                    f"modules entered, one thought ({label}), the checkpoint apart",
                    len(modules),
                    "",
                    "",
                    f"<= {max_modules}",
                    len(modules) <= max_modules,
                    f"{office} of them in office/; {len(trace.modules)} with the checkpoint",
                )
            )
        rows.append(
            Row(
                NAME,
                f"calls across module boundaries ({label}), the checkpoint apart",
                crossings,
                "",
                "",
                f"<= {max_calls}",
                crossings <= max_calls,
                f"{crossings + saving} with the checkpoint's {saving}; most: {top}",
            )
        )
        rows.append(
            Row(
                NAME,
                f"calls back into the engine from decide/resolve ({label})",
                trace.callbacks,
                "",
                "",
                "0",
                trace.callbacks == 0,
            )
        )
    if quick:
        rows.append(Row(NAME, "module crossings a thought over a whole scripted run", "skipped (--quick)"))
        return rows
    thoughts, crossings = await asyncio.to_thread(whole_run)
    rows.append(
        Row(
            NAME,
            f"module crossings a thought over a whole scripted run through the API ({thoughts} thoughts)",
            round(crossings / thoughts),
            "",
            "",
            "<= 400",
            crossings / thoughts <= 400,
            "the guard office, seed 1, two hours, replayed (tests/guard); checkpoints included",
        )
    )
    return rows


def whole_run() -> tuple[int, int]:
    """The guard office's two hours (seed 1) replayed through `ideaco.load(...).run()`, traced on the
    office's own thread: (thoughts, calls from one ideaco module into another)."""
    import concurrent.futures
    import tempfile

    import ideaco

    guard = PACKAGE.parent / "tests" / "guard"
    with tempfile.TemporaryDirectory() as tmp:
        sim = ideaco.load(
            guard / "office.yaml",
            out=Path(tmp) / "run",
            seed=1,
            model="scripted",
            base_url="http://127.0.0.1:9/v1",  # never contacted: the replay answers
            replay=guard / "data" / "office-s1" / "replay.jsonl",
        )
        trace = Trace()

        def on_loop(profile: Any) -> None:  # the office runs on its own thread's loop
            done: concurrent.futures.Future[None] = concurrent.futures.Future()
            sim._loop.call_soon_threadsafe(lambda: done.set_result(sys.setprofile(profile)))
            done.result()

        on_loop(trace)
        try:
            sim.run("2h")
        finally:
            on_loop(None)
        thoughts = len(sim.thoughts)
        sim.close()
    return thoughts, sum(trace.crossings.values()) + sum(trace.checkpoint_crossings.values())


if __name__ == "__main__":
    from benchmarks.table import markdown

    print(markdown(asyncio.run(measure())))
