"""Whether the secretary acts on plain requests on the embedded model (issue 12, item 5).

For each of 5 seeds, an empty company (only the secretary) on the embedded model, compact schema as
`ideaco run` asks it, hears the plain request of docs/organization.md; after 5 simulated minutes
we look at the company: was a department opened, was someone hired into it, and was the hire an
old hand as asked. The same again with a second request, a requirement handed to the department.
Runs as `python -m benchmarks --only secretary` (minutes: every think is a real model call).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from benchmarks.embedded import busy_embedded, embedded_stack
from benchmarks.table import Row
from ideaco.ids import SECRETARY
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import SimClock
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.scenario import Scenario

NAME = "secretary"
START = datetime(2026, 1, 5, 9, 0)
ASK = "Please open an Engineering department and hire a backend engineer who is an old hand."
REQUIREMENT = "Hand the requirement 'Build the login API' to Engineering."
SEEDS = (1, 2, 3, 4, 5)


async def one_seed(seed: int) -> dict[str, Any]:
    """What the secretary did for the two requests, on one seed."""
    stack = embedded_stack(concurrency=2, employees=3)  # as `ideaco run` starts it
    try:
        scenario = Scenario.model_validate({"name": "newco", "company": "NewCo", "start": START.isoformat()})
        office = office_from_scenario(
            scenario, ".", llm=stack.llm, clock=SimClock(START), seed=seed, journal=MemoryJournal()
        )
        office.config.compact_schema = True
        office.start()
        office.post_as_boss(f"boss:{SECRETARY}", ASK)
        await office.run(timedelta(minutes=5))
        departments = dict(office.company_model.departments)
        hired = [e for e in office.employees.values() if e.id != SECRETARY and not e.dismissed]
        office.post_as_boss(f"boss:{SECRETARY}", REQUIREMENT)
        await office.run(timedelta(minutes=5))
        tasks = [t for e in office.employees.values() for t in e.mind.tasks if t.origin == "boss"]
        await office.drain()
        return {
            "department": bool(departments),
            "hired": bool(hired) and any(e.department in departments for e in hired),
            "old_hand": any(e.persona.get("id") == "old-hand" for e in hired),
            "requirement": bool(tasks),
            "calls": office.stats.thoughts,
        }
    finally:
        await stack.aclose()


async def measure(quick: bool = False) -> list[Row]:
    if quick:
        return [Row(NAME, "secretary on the embedded model", "skipped (--quick)")]
    busy = busy_embedded()
    if busy:
        return [Row(NAME, "secretary on the embedded model", "skipped: another embedded run is active")]
    try:
        results = [await one_seed(seed) for seed in SEEDS]
    except Exception as exc:  # no model installed: say so in the table
        return [Row(NAME, "secretary on the embedded model", f"skipped: {exc}")]
    n = len(results)

    def row(what: str, key: str, target: str = "") -> Row:
        done = sum(r[key] for r in results)
        met = None if not target else done >= int(target.split()[-1].split("/")[0])
        return Row(
            NAME, what, f"{done}/{n} seeds", "", "", target, met, f"seeds {', '.join(map(str, SEEDS))}"
        )

    return [
        row("a plain request opens a department", "department", ">= 4/5"),
        row("... and hires someone into it", "hired", ">= 4/5"),
        row("... an old hand, as asked", "old_hand"),
        row("a plain requirement reaches the department as a task", "requirement"),
    ]


if __name__ == "__main__":
    import asyncio

    from benchmarks.table import markdown

    print(markdown(asyncio.run(measure())))
