"""Item 4: persistence cost per logged event and per state save, at 1k vs 100k events.

A startup office writing a real run directory (`RunJournal`: messages.jsonl, thoughts.jsonl,
state.json) is driven straight through the engine, without a model or a clock loop, so that 100k
events take seconds: three thoughts for each message, every thought an answer already in hand that
the engine decides on and resolves as a finished model call (`decision.decide` on the office's `OfficeRead`, `Office.resolve`:
a memory every third thought, an impression every third, a task created every 20th and resolved
10 thoughts later, a rolling summary), logged with its `applied` record, each message posted with
`Office.post`; simulated time advances 30 s per event.

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
from ideaco.cycle import Phase, Trigger
from ideaco.llm.base import ChatResult, Usage
from ideaco.llm.structured import StructuredAnswer
from ideaco.mind.thought import validate_thought
from ideaco.office.core.think import ThinkContext
from ideaco.office.decide.decision import decide
from ideaco.office.engine.clock import SimClock
from ideaco.office.engine.office import Office
from ideaco.office.perceive.view import office_read

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
    """Feeds events to one office: finished thinks through `decide` and `resolve`, messages through `post`."""

    def __init__(self, office: Office) -> None:
        self.office = office
        self.events = 0
        self.people = sorted(e for e in office.employees if e != "secretary")
        self.last_record: dict[str, Any] = {}
        office.observers.append(self)

    def on_message(self, office: Office, message: Any) -> None:
        pass

    def on_thought(self, office: Office, record: dict[str, Any]) -> None:
        self.last_record = record

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
            pending = next((t.id for t in emp.mind.tasks if t.pending), None)
            thought, notes = validate_thought(_raw_thought(i, other, pending))
            call = asyncio.get_running_loop().create_future()
            usage = Usage(prompt_tokens=1400, completion_tokens=160, cached_tokens=600)
            call.set_result(StructuredAnswer(thought, "", notes, [ChatResult("{}", "bench", usage, 3.1)]))
            now = office.now()
            ctx = ThinkContext(
                office.next_id("thought"), emp.id, conv.id, Trigger.NUDGE, now, conv.count, False, call
            )
            emp.desk.phase = Phase.THINKING
            office.resolve(decide(office_read(office, now), ctx, now))
            emp.desk.owed.clear()  # owed thinks (task reports) are what the next thinks do
        self.events += 1


def append_cost(driver: Driver, n: int = 1000, rounds: int = 5) -> float:
    """µs per record to append `n` more records (half thought records, half messages) to the logs,
    in `rounds` batches; the cheapest batch counts (other processes only ever add time)."""
    office = driver.office
    emp, conv = driver.people[0], office.conversations_of(driver.people[0])[0].id
    best = float("inf")
    for r in range(rounds):
        size = n // rounds // 2
        records = [driver.last_record | {"id": f"t{10_000_000 + r * size + k}"} for k in range(size)]
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
    kept = {e.id: list(e.mind.tasks) for e in office.employees.values()}
    if not closed_tasks:
        for emp in office.employees.values():
            emp.mind.tasks = [t for t in emp.mind.tasks if t.pending]
    best = float("inf")
    try:
        for _ in range(tries):
            started = time.perf_counter()
            office.checkpoint()
            best = min(best, time.perf_counter() - started)
    finally:
        for emp in office.employees.values():
            emp.mind.tasks = kept[emp.id]
    return best * 1000


async def measure(quick: bool = False) -> list[Row]:
    small, middle, large = (200, 1_000, 2_000) if quick else (1_000, 10_000, 100_000)
    marks: dict[int, tuple[float, float, int, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        scenario = startup_scenario(8)
        bench = open_office(
            scenario, llm=object(), run_dir=Path(tmp) / "run", clock=_ManualClock(scenario.start)
        )
        office = bench.office
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
