"""Issue 13: people, not prompts. With a model that gives every employee the same answers, does the
engine alone make the twelve archetypes behave differently?

One office with all 12 archetypes (one department, one work room, its casual room), 2 simulated
hours, the boss stirring the work room every 40 minutes (the cadence of scenarios/workday.yaml) and
asking the lead, twice, to put work on the task board. The scripted model (`same_answers`) is one pure function of the prompt's *content*
(never of who is thinking): claim the first claimable task listed; put work on the board when the
boss asks for it; otherwise speak, with an interest and a saturation drawn from a hash of the
prompt. Each seed runs twice: everyone in the green zone, then everyone in the red (the same seed,
the same answers). Counts only, nothing timed:

- messages per hour of the most (chatterbox, talkativeness 0.95) vs least (shy introvert, 0.2)
  talkative archetype, green runs, all seeds pooled: target >= 3x; shown also with the boss
  stirring the room every 10 minutes (no target: a room-wide boss line addresses everyone, and
  the addressed answer alike, spec 2.1, so the more the boss talks the less the persons differ);
- mean scheduled look interval (a thought's `next_look_at - at`) in the red runs vs the green:
  target >= 1.5x;
- the first claim on the first claimable task of each green run goes to the highest-claims_tasks
  member (ultra grinder, 0.95): target >= 4 of 5 seeds.
"""

from __future__ import annotations

import json
import re
import zlib
from collections import Counter
from dataclasses import dataclass
from datetime import datetime
from statistics import mean

from benchmarks.offices import open_office
from benchmarks.table import Row
from ideaco.kinds import StepKind
from ideaco.llm.base import ChatRequest, ChatResult, Usage
from ideaco.mind.stamina import Stamina
from ideaco.persona import ARCHETYPES, load_archetype
from ideaco.scenario import Scenario

NAME = "people"
SEEDS = (1, 2, 3, 4, 5)
HOURS = 2.0
BOSS_EVERY = 40  # minutes between the boss's room-wide lines (scenarios/workday.yaml's cadence)
BUSY_BOSS = 10  # the same, in the busier variant shown beside it
RED = Stamina(patience=30.0, fatigue=60.0, stress=60.0)  # comfort 0: red, and it stays red for hours
LEAD = "old-hand"
_CLAIM_KEY = re.compile(r"^\[task-\d+\] .* — claim key (\S+),", re.M)
_BOARD_ASK = re.compile(r"^\* \[[\d:]+\] Boss \(BOSS\): @\w+ please put (.+) on the board", re.M)


def scenario(hours: float = HOURS, boss_every: int = BOSS_EVERY) -> Scenario:
    """All 12 archetypes (ids are the archetypes'), one department led by the old hand."""
    ids = [a.replace("-", "_") for a in ARCHETYPES]
    lead = LEAD.replace("-", "_")
    people = [
        {"id": i, "name": a.title().replace("-", ""), "role": "Engineer", "archetype": a}
        for i, a in zip(ids, ARCHETYPES, strict=True)
    ]
    lead_name = next(p["name"] for p in people if p["id"] == lead)
    minutes = int(hours * 60)
    script = [
        {"at": f"{m // 60:02d}:{m % 60:02d}", "to": "floor", "text": f"Team, where are we on item {m}?"}
        for m in range(1, minutes, boss_every)
    ]
    for m, work in ((3, "the quarterly report"), (63, "the release checklist")):
        script.append(
            {
                "at": f"{m // 60:02d}:{m % 60:02d}",
                "to": "floor",
                "text": f"@{lead_name} please put {work} on the board.",
            }
        )
    return Scenario.model_validate(
        {
            "name": "twelve",
            "company": "Twelve Corp",
            "duration": f"{int(hours * 3600)}s",
            "departments": [
                {"id": "team", "name": "Team", "mission": "Ship it.", "members": ids, "lead": lead}
            ],
            "employees": people,
            "rooms": [{"id": "floor", "name": "Floor", "kind": "work", "members": ids}],
            "script": sorted(script, key=lambda s: s["at"]),
        }
    )


def same_answers(request: ChatRequest) -> dict:
    """The one answer anyone gets for a prompt (its content decides, not the person)."""
    system, user = request.messages[0]["content"], request.messages[-1]["content"]
    name = system.split("\n", 1)[0].removeprefix("You are ").split(",", 1)[0]
    h = zlib.crc32(user.encode("utf-8"))
    out = {
        "innerThoughts": "thinking",
        "topicSaturation": 2 + h % 5,
        "interestLevel": 2 + h % 8,  # 2..9, the same spread for everyone
        "shouldSpeak": True,
        "reason": "scripted",
        "messages": [{"content": f"{name}: noted ({h % 100000})."}],
        "taskOps": [],
    }
    board = user.split("## Claimable tasks", 1)
    keys = _CLAIM_KEY.findall(board[1].split("\n\n", 1)[0]) if len(board) > 1 else []
    asked = _BOARD_ASK.findall(user)
    if keys:
        out["taskOps"] = [{"op": "create", "claimKey": keys[0]}]
        out["messages"] = [{"content": f"{name}: I'll take {keys[0]}."}]
    elif asked and f"@{name} please put" in user:
        out["taskOps"] = [{"op": "offer", "description": asked[-1], "claimKey": asked[-1].replace(" ", "-")}]
    return out


class SameAnswers:
    """An in-process model: `same_answers` for every request (no HTTP, nothing timed)."""

    def __init__(self) -> None:
        self.calls = 0

    async def complete(self, request: ChatRequest) -> ChatResult:
        self.calls += 1
        content = json.dumps(same_answers(request))
        return ChatResult(content, request.model, Usage(len(str(request.messages)) // 4, len(content) // 4))

    async def aclose(self) -> None:
        return None


@dataclass
class Run:
    """What one run did: messages per archetype, look intervals, the first claim."""

    messages: Counter[str]
    intervals: list[float]
    first_claim: str | None
    calls: int
    claims: int  # claims of board work made in the run
    looks: int  # thoughts that were not re-thinks of a superseded draft (the secretary aside)


async def simulate(seed: int, *, red: bool, hours: float = HOURS, boss_every: int = BOSS_EVERY) -> Run:
    bench = open_office(scenario(hours, boss_every), llm=SameAnswers(), seed=seed)
    office = bench.office
    archetype = {e.id: e.persona.get("archetype", "") for e in office.employees.values()}
    if red:
        for emp in office.employees.values():
            emp.mind.stamina = RED
    office.start()
    try:
        await office.run()
    finally:
        await bench.aclose()
    thoughts, messages = office.journal.thoughts, office.journal.messages
    said = Counter(archetype[m["sender"]] for m in messages if m["sender"] in archetype)
    intervals = [
        (datetime.fromisoformat(t["next_look_at"]) - datetime.fromisoformat(t["at"])).total_seconds()
        for t in thoughts
        if t["next_look_at"] and t["employee"] != "secretary"
    ]
    looks = sum(1 for t in thoughts if t["employee"] != "secretary" and not t.get("rethink"))
    claims = [
        t for t in thoughts for s in t["applied"]["steps"] if s["step"] == StepKind.BOARD and s.get("removed")
    ]
    first = archetype[claims[0]["employee"]] if claims else None
    return Run(said, intervals, first, len(thoughts), len(claims), looks)


async def measure(quick: bool = False) -> list[Row]:
    seeds = SEEDS[:1] if quick else SEEDS  # --quick: a smoke run, the targets not meant to hold
    hours = 0.25 if quick else HOURS
    green = [await simulate(s, red=False, hours=hours) for s in seeds]
    red = [await simulate(s, red=True, hours=hours) for s in seeds]
    busy = [await simulate(s, red=False, hours=hours, boss_every=BUSY_BOSS) for s in seeds]
    talk = {a: load_archetype(a).tendencies.talkativeness for a in ARCHETYPES}
    keen = {a: load_archetype(a).tendencies.claims_tasks for a in ARCHETYPES}
    most, least = max(talk, key=talk.get), min(talk, key=talk.get)  # type: ignore[arg-type]
    keenest = max(keen, key=keen.get)  # type: ignore[arg-type]

    def rates(runs: list[Run]) -> dict[str, float]:
        return {a: sum(r.messages[a] for r in runs) / (hours * len(seeds)) for a in ARCHETYPES}

    def ratio(rate: dict[str, float]) -> float:
        return rate[most] / rate[least] if rate[least] else float("inf")

    per_hour, busy_rate = rates(green), rates(busy)
    talk_ratio = ratio(per_hour)
    look_green = mean(i for r in green for i in r.intervals)
    look_red = mean(i for r in red for i in r.intervals)
    employee_hours = 12 * hours * len(seeds)
    green_rate = sum(r.looks for r in green) / employee_hours
    red_rate = sum(r.looks for r in red) / employee_hours
    firsts = [r.first_claim for r in green]
    won = sum(1 for f in firsts if f == keenest)
    need = 4 if len(seeds) == 5 else len(seeds)
    spread = ", ".join(f"{a} {per_hour[a]:.1f}" for a in sorted(per_hour, key=per_hour.get, reverse=True))  # type: ignore[arg-type]
    seeds_note = f"{len(seeds)} seeds x {hours:g} h, 12 archetypes, the same answers for all, a boss line every {BOSS_EVERY} min"
    return [
        Row(
            NAME,
            f"messages per hour, most vs least talkative archetype ({most} vs {least})",
            per_hour[most],
            per_hour[least],
            f"{talk_ratio:.1f}x",
            ">= 3x",
            talk_ratio >= 3,
            seeds_note,
        ),
        Row(NAME, "messages per hour by archetype", spread, "", "", "", None, "green runs"),
        Row(
            NAME,
            f"same, the boss stirring the room every {BUSY_BOSS} min ({most} vs {least})",
            busy_rate[most],
            busy_rate[least],
            f"{ratio(busy_rate):.1f}x",
            "",
            None,
            "every room-wide boss line is answered by everyone alike (spec 2.1)",
        ),
        Row(
            NAME,
            "mean scheduled look interval (s), red zone vs green",
            look_red,
            look_green,
            f"{look_red / look_green:.2f}x",
            ">= 1.5x",
            look_red >= 1.5 * look_green,
            f"{sum(len(r.intervals) for r in red)} and {sum(len(r.intervals) for r in green)} thoughts",
        ),
        Row(
            NAME,
            "thoughts per employee-hour, green vs red zone (re-thinks aside)",
            green_rate,
            red_rate,
            f"{green_rate / red_rate:.2f}x fewer in the red",
            "",
            None,
            "what the looks came to: nudges of a busy room and the boss's lines (not scaled) included",
        ),
        Row(
            NAME,
            f"first claim on a claimable task goes to the keenest ({keenest}, claims_tasks {keen[keenest]:g})",
            f"{won} of {len(seeds)} seeds",
            "",
            "",
            f">= {need} of {len(seeds)}",
            won >= need,
            "first claims: "
            + ", ".join(str(f) for f in firsts)
            + f"; claims in the red runs: {sum(r.claims for r in red)}",
        ),
    ]
