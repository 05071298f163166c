"""Item 4: persistence cost per logged event and per state save, at 1k vs 100k events.

A startup office writing a real run directory (`RunJournal`: messages.jsonl, thoughts.jsonl,
state.json) is driven straight through the engine's effects, without a model or a clock loop,
so that 100k events take seconds: three thoughts for each message, every thought applying ops
through `effects.apply_effects` (a memory every third thought, an impression every third, a task
created every 20th and resolved 10 thoughts later, a rolling summary), each logged with a
realistic record, each message posted with `Office.post`; simulated time advances 30 s per event.

At 1k, 10k and 100k events it times appending 1,000 more records to the logs (half thoughts, half
messages; µs per record) and saving the state (`Office.checkpoint`: the office snapshot and
the atomic state.json write; the cheapest of several saves, ms), and reports state.json's size;
and, as a what-if, the same save with resolved and failed tasks left out of the employees.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from benchmarks.offices import open_office, startup_scenario
from benchmarks.table import Row, ratio
from ideaco.mind.thought import validate_thought
from ideaco.office import effects
from ideaco.office.clock import SimClock
from ideaco.office.office import Office

NAME = "persistence"
FLAT = 1.25  # "flat": the cost at 100x the events within this factor


class _ManualClock(SimClock):
    """A simulated clock moved by hand; scheduled wakes are dropped (nothing runs them here)."""

    def advance(self, seconds: float) -> None:
        self._now += timedelta(seconds=seconds)
        self._queue.clear()


def _raw_thought(i: int, other: str, pending: str | None) -> dict[str, Any]:
    ops: dict[str, Any] = {"memoryOps": [], "relationshipOps": [], "taskOps": []}
    if i % 3 == 0:
        layer = "long_term" if i % 2 else "short_term"
        ops["memoryOps"] = [
            {
                "op": "add",
                "type": layer,
                "content": f"Fact number {i}: the sync backend needs review {i % 97}",
                "category": "fact",
                "importance": 1 + i % 10,
            }
        ]
    if i % 3 == 1:
        ops["relationshipOps"] = [
            {"employeeId": other, "impression": f"helpful on topic {i % 50}", "affinity": 40 + i % 30}
        ]
    if i % 20 == 0:
        ops["taskOps"] = [
            {"op": "create", "description": f"Check item {i} of the launch list", "type": "oneshot"}
        ]
    elif i % 20 == 10 and pending:
        ops["taskOps"] = [{"op": "resolve", "taskId": pending, "result": "checked, fine"}]
    return {
        "innerThoughts": f"Thought {i}: reading the room, weighing whether to add something useful.",
        "topicSaturation": 1 + i % 9,
        "interestLevel": 1 + i % 10,
        "shouldSpeak": False,
        "reason": "nothing new to add",
        "messages": [],
        "actions": [],
        "memorySummary": f"After event {i}: the team discussed the launch checklist, QA and staging speed.",
        **ops,
    }


class Driver:
    """Feeds events to one office: thoughts through the effects, messages through `post`."""

    def __init__(self, office: Office) -> None:
        self.office = office
        self.events = 0
        self.people = sorted(e for e in office.employees if e != "secretary")

    def step(self) -> None:
        office, i = self.office, self.events
        emp = office.employees[self.people[i % len(self.people)]]
        convs = office.conversations_of(emp.id)
        conv = convs[i % len(convs)]
        office.clock.advance(30)  # type: ignore[attr-defined]
        if i % 4 == 3:
            office.post(
                office.make_message(
                    conv.id, emp.id, f"Message {i}: status of the launch checklist, item {i % 40}."
                )
            )
        else:
            other = self.people[(i + 1) % len(self.people)]
            pending = next((t.id for t in emp.tasks if t.pending), None)
            thought, _ = validate_thought(_raw_thought(i, other, pending))
            notes = effects.apply_effects(office, emp, conv, thought, calls=1)
            emp.focus.clear()  # owed thinks (task reports) are what the next thinks do
            office.stats.thoughts += 1
            office.journal.thought(self.record(i, emp.id, conv.id, thought.to_record(), notes))
        self.events += 1

    def record(
        self, i: int, emp: str, conv: str, thought: dict[str, Any], notes: list[str]
    ) -> dict[str, Any]:
        now = self.office.clock.now()
        return {
            "id": f"t{i:06d}",
            "at": now.isoformat(),
            "employee": emp,
            "conversation": conv,
            "trigger": "nudge",
            "thought": thought,
            "spoke": False,
            "gate": "chose_silence",
            "llm": {
                "model": "bench",
                "prompt_tokens": 1400,
                "completion_tokens": 160,
                "cached_tokens": 600,
                "latency_ms": 3.1,
                "calls": 1,
            },
            "corrections": notes,
            "next_look_at": (now + timedelta(seconds=120)).isoformat(),
            "messages": [],
            "rethink": False,
        }


def append_cost(driver: Driver, n: int = 1000, rounds: int = 5) -> float:
    """µs per record to append `n` more records (half thought records, half messages) to the logs,
    in `rounds` batches; the cheapest batch counts (other processes only ever add time)."""
    office = driver.office
    emp, conv = driver.people[0], office.conversations_of(driver.people[0])[0].id
    thought, _ = validate_thought(_raw_thought(1, driver.people[1], None))
    best = float("inf")
    for r in range(rounds):
        size = n // rounds // 2
        records = [
            driver.record(10_000_000 + r * size + k, emp, conv, thought.to_record(), []) for k in range(size)
        ]
        messages = [
            office.make_message(
                conv, emp, f"Extra message {k}", msg_id=f"bench-{driver.events}-{r}-{k}"
            ).to_record()
            for k in range(size)
        ]
        started = time.perf_counter()
        for rec, msg in zip(records, messages, strict=True):
            office.journal.thought(rec)
            office.journal.message(msg)
        best = min(best, (time.perf_counter() - started) * 1e6 / (2 * size))
    return best


def save_cost(office: Office, tries: int = 15, *, closed_tasks: bool = True) -> float:
    """ms per state save (the cheapest of `tries`: other processes only ever add time).

    `closed_tasks=False` is a what-if: the same save with resolved and failed tasks left out.
    """
    kept = {e.id: e.tasks for e in office.employees.values()}
    if not closed_tasks:
        for emp in office.employees.values():
            emp.tasks = [t for t in emp.tasks if t.pending]
    best = float("inf")
    try:
        for _ in range(tries):
            started = time.perf_counter()
            office.checkpoint()
            best = min(best, time.perf_counter() - started)
    finally:
        for emp in office.employees.values():
            emp.tasks = kept[emp.id]
    return best * 1000


async def measure(quick: bool = False) -> list[Row]:
    small, middle, large = (200, 1_000, 2_000) if quick else (1_000, 10_000, 100_000)
    marks: dict[int, tuple[float, float, int, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        bench = open_office(startup_scenario(8), llm=object(), run_dir=Path(tmp) / "run")
        office = bench.office
        office.clock = _ManualClock(office.clock.now())
        office.checkpoint()
        driver = Driver(office)
        try:
            for mark in (small, middle, large):
                while driver.events < mark:
                    driver.step()
                state_path = Path(tmp) / "run" / "state.json"
                what_if = save_cost(office, closed_tasks=False)
                marks[mark] = (append_cost(driver), save_cost(office), state_path.stat().st_size, what_if)
        finally:
            office.journal.close()
    log_ratio = ratio(marks[large][0], marks[small][0])
    rows = [
        Row(
            NAME,
            f"µs per logged record at {large:,} vs {small:,} events",
            marks[large][0],
            marks[small][0],
            log_ratio,
            f"flat (<= {FLAT})",
            log_ratio <= FLAT,
        )
    ]
    for base, target in ((small, f"flat (<= {FLAT})"), (middle, "")):
        save_ratio = ratio(marks[large][1], marks[base][1])
        rows.append(
            Row(
                NAME,
                f"ms per state save at {large:,} vs {base:,} events",
                marks[large][1],
                marks[base][1],
                save_ratio,
                target,
                save_ratio <= FLAT if target else None,
                f"state.json {marks[large][2] / 1024:,.0f} KB vs {marks[base][2] / 1024:,.0f} KB",
            )
        )
    what_if = ratio(marks[large][3], marks[small][3])
    rows.append(
        Row(
            NAME,
            f"what-if, closed tasks left out: ms per state save at {large:,} vs {small:,} / {middle:,} events",
            marks[large][3],
            f"{marks[small][3]:.2f} / {marks[middle][3]:.2f}",
            f"{what_if:.2f} / {ratio(marks[large][3], marks[middle][3]):.2f}",
            "",
            None,
            "what remains grows only until memories reach their caps",
        )
    )
    return rows


if __name__ == "__main__":
    from benchmarks.table import markdown

    print(markdown(asyncio.run(measure())))
