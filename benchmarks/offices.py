"""The offices the benchmarks run: the startup scenario over a workday, and generated large offices.

Every office is built the way `ideaco run` builds one (session.py): a validated `Scenario`, the LLM
stack from `build_llm` (Budget -> Limited -> Retrying -> client, concurrency 2) pointed at an
OpenAI-compatible endpoint, a `RunJournal` writing a real run directory, and a `SimClock`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

from benchmarks.policies import PollingWakes
from ideaco.llm.config import LLMSettings
from ideaco.llm.factory import LLMStack, build_llm
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import Clock, SimClock
from ideaco.office.engine.early import EarlyCalls
from ideaco.office.engine.office import Office
from ideaco.office.resolve.journal import MemoryJournal, RunJournal
from ideaco.office.resolve.waking import WakePolicy
from ideaco.office.rules.config import config_for
from ideaco.persona import ARCHETYPES
from ideaco.scenario import Scenario
from ideaco.store.rundir import RunDir

ROOT = Path(__file__).resolve().parent.parent
STARTUP = ROOT / "scenarios" / "startup.yaml"

# The boss's workday in the startup office: a few topics spread over 8 hours (spec 1.6 script).
WORKDAY_SCRIPT: list[dict[str, str]] = [
    {
        "at": "00:01",
        "to": "launch",
        "text": "Morning team! Pine Notes 1.0 launches in two weeks. I need a launch checklist by the end of the day: what is left on design, the sync backend, the app and QA?",
    },
    {
        "at": "00:06",
        "to": "launch",
        "text": "@Zoe can you own the QA plan? @Dan what is the biggest risk on the sync backend?",
    },
    {
        "at": "00:40",
        "to": "boss:kai",
        "text": "Kai, staging has been slow all week and the launch demo runs on it. Can you find out why and tell me what you find?",
    },
    {
        "at": "01:30",
        "to": "product-casual",
        "text": "Lovely mockups yesterday, Sam. Question for both of you: which feature would you cut to ship on time?",
    },
    {
        "at": "02:30",
        "to": "launch",
        "text": "Quick status check: where are we on the checklist? Anything blocked?",
    },
    {"at": "03:00", "to": "eng-casual", "text": "Team lunch on Thursday, my treat. Any preferences?"},
    {
        "at": "04:30",
        "to": "boss:lena",
        "text": "Lena, can you draft the launch announcement and send it to me before five?",
    },
    {
        "at": "05:30",
        "to": "launch",
        "text": "Design review of the onboarding flow at four. @Sam please bring the latest screens.",
    },
    {
        "at": "06:30",
        "to": "boss:dan",
        "text": "Dan, are the sync conflict bugs fixed? I need a yes or no for the go/no-go.",
    },
    {
        "at": "07:30",
        "to": "launch",
        "text": "Wrapping up the day: what did we finish and what is first tomorrow?",
    },
]


def startup_scenario(hours: float = 8.0, *, days: int = 1, hourly: bool = False) -> Scenario:
    """The startup scenario for `hours` with the boss's workday script (repeated each day), or with
    `hourly`: the scenario's own script (six lines in its first 25 minutes) repeated every hour."""
    data = yaml.safe_load(STARTUP.read_text(encoding="utf-8"))
    script = []
    if hourly:
        for hour in range(max(1, int(hours + 0.999))):
            for line in data["script"]:
                m = int(str(line["at"]).split(":")[1])
                script.append({**line, "at": f"{hour:02d}:{m:02d}"})
    else:
        for day in range(max(1, days)):
            for line in WORKDAY_SCRIPT:
                h, m = (int(x) for x in line["at"].split(":"))
                script.append({**line, "at": f"{24 * day + h:02d}:{m:02d}"})
    data.update(name="startup-day", duration=f"{int(hours * 3600)}s", script=script)
    return Scenario.model_validate(data)


def large_scenario(employees: int, *, room_size: tuple[int, int] = (5, 10), dept_size: int = 10) -> Scenario:
    """`employees` people in departments of `dept_size` (each with its casual room), split into work
    rooms of 5-10 (sizes cycle through the range); the boss opens a topic in every work room, one
    room per second from the start, and asks each department's first member for a report."""
    people = [
        {
            "id": f"e{i:04d}",
            "name": f"Emp{i:04d}",
            "role": ("Engineer", "Designer", "Analyst", "Manager")[i % 4],
            "archetype": ARCHETYPES[i % len(ARCHETYPES)],
            "age": 25 + i % 30,
        }
        for i in range(employees)
    ]
    ids = [p["id"] for p in people]
    departments = [
        {
            "id": f"d{n:03d}",
            "name": f"Dept {n}",
            "mission": f"Ship project {n} on time.",
            "members": ids[i : i + dept_size],
        }
        for n, i in enumerate(range(0, employees, dept_size))
    ]
    rooms, i, sizes = [], 0, list(range(room_size[0], room_size[1] + 1))
    while i < employees:
        size = sizes[len(rooms) % len(sizes)]
        members = ids[i : i + size]
        if len(members) < 2:  # a lone leftover joins the previous room
            rooms[-1]["members"] += members
            break
        rooms.append(
            {"id": f"r{len(rooms):03d}", "name": f"Room {len(rooms)}", "kind": "work", "members": members}
        )
        i += size
    script = [
        {
            "at": f"{n // 3600:02d}:{n // 60 % 60:02d}:{n % 60:02d}",
            "to": r["id"],
            "text": f"Team, what is the plan for project {n} this week?",
        }
        for n, r in enumerate(rooms)
    ]
    script += [
        {
            "at": f"00:{10 + n // 60 % 50:02d}:{n % 60:02d}",
            "to": f"boss:{d['members'][0]}",
            "text": "Please send me a short status report.",
        }
        for n, d in enumerate(departments)
    ]
    return Scenario.model_validate(
        {
            "name": f"office-{employees}",
            "company": "Bench Corp",
            "duration": "8h",
            "departments": departments,
            "employees": people,
            "rooms": rooms,
            "script": script,
        }
    )


@dataclass
class Bench:
    """An office under measurement and what to close afterwards."""

    office: Office
    stack: LLMStack | None

    async def aclose(self) -> None:
        if self.stack is not None:
            await self.stack.aclose()
        self.office.journal.close()


def open_office(
    scenario: Scenario,
    *,
    base_url: str | None = None,
    llm: Any = None,
    run_dir: Path | None = None,
    seed: int = 7,
    policy: WakePolicy | None = None,
    concurrency: int = 2,
    clock: Clock | None = None,
    speculate: int = 0,
) -> Bench:
    """An office on a SimClock, against `base_url` (or a given `llm`), logging to `run_dir` (or memory);
    `speculate`: how many calls may start before their think's moment (`ideaco run --speculate`)."""
    stack = None
    if llm is None:
        settings = LLMSettings(base_url=base_url, model="bench", timeout=30.0, retry_attempts=1)
        stack = build_llm(settings, concurrency=concurrency)
        llm = stack.llm
    journal = RunJournal(RunDir(run_dir).create()) if run_dir is not None else MemoryJournal()
    config = config_for(scenario)
    if isinstance(policy, PollingWakes):
        config.timers = PollingWakes.timers(config.timers)
    office = office_from_scenario(
        copy.deepcopy(scenario),
        ROOT,
        llm=llm,
        clock=clock or SimClock(scenario.start),
        seed=seed,
        journal=journal,
        config=config,
        policy=policy,  # None: ideaco's own (AdaptiveWakes)
        early_calls=EarlyCalls(speculate, budget=stack.budget if stack is not None else None),
    )
    return Bench(office, stack)


def hours_between(start: datetime, end: datetime) -> float:
    return (end - start) / timedelta(hours=1)
