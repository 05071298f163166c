"""Item 2: the cost of life. Model calls and tokens per employee per simulated hour.

The startup scenario (5 employees, plus the secretary every company has) over an 8-hour
simulated workday with the boss's day script (`offices.WORKDAY_SCRIPT`: ten lines spread over the
day), against the scripted model (`fake_model`), for ideaco and for the two baselines of
`policies.py`, all in this one run. Per employee-hour divides by the 5 scenario employees (the
secretary's calls, if any, are counted in the total). "Uncached" prompt tokens are those the
simulated per-employee prefix cache did not serve (see `fake_model`).

"Same life": each row also shows the messages posted and how many of the boss's lines got an
answer (an employee's message in that conversation within 30 simulated minutes).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from benchmarks.fake_model import FakeModel
from benchmarks.offices import open_office, startup_scenario
from benchmarks.policies import POLICIES
from benchmarks.table import Row, ratio
from ideaco.store import jsonl

NAME = "life"
EMPLOYEES = 5  # the startup scenario's; the secretary is not counted as a head


@dataclass
class Day:
    """What one policy's simulated day cost and produced."""

    policy: str
    model: str
    hours: float
    calls: int
    prompt_tokens: int
    cached_tokens: int
    cached_clock_last: int
    cached_rules_first: int
    completion_tokens: int
    max_prompt_tokens: int
    messages: int
    boss_lines: int
    answered: int
    wall_s: float
    prompt_by_hour: list[int]  # the largest prompt (tokens) thought in each simulated hour

    def per_head_hour(self, value: float) -> float:
        return value / EMPLOYEES / self.hours


async def simulate(
    fake: FakeModel, policy: str, model: str, hours: float, tmp: Path, *, hourly: bool = False
) -> Day:
    """Run the startup office for `hours` under `policy` with `model` ("plausible" or "silent");
    the boss follows the workday script, or with `hourly` the scenario's own script every hour."""
    fake.reset(model)
    run_dir = tmp / f"{policy[:8].replace(' ', '-')}-{model}-{hours}-{'hourly' if hourly else 'day'}"
    bench = open_office(
        startup_scenario(hours, hourly=hourly),
        base_url=fake.base_url,
        run_dir=run_dir,
        policy=POLICIES[policy](),
    )
    office = bench.office
    office.start()
    started = time.perf_counter()
    try:
        await office.run()
    finally:
        await bench.aclose()
    wall = time.perf_counter() - started
    stats = fake.stats()
    boss_lines, answered, agent_messages = _answered(jsonl.read(run_dir / "messages.jsonl"))
    by_hour = [0] * max(1, int(hours + 0.999))
    start = datetime.fromisoformat(office.meta["start"])
    for t in jsonl.read(run_dir / "thoughts.jsonl"):
        hour = min(len(by_hour) - 1, int((datetime.fromisoformat(t["at"]) - start) / timedelta(hours=1)))
        by_hour[hour] = max(by_hour[hour], (t.get("llm") or {}).get("prompt_tokens", 0))
    return Day(
        policy=policy,
        model=model,
        hours=hours,
        calls=stats["calls"],
        prompt_tokens=stats["prompt_tokens"],
        cached_tokens=stats["cached_tokens"],
        cached_clock_last=stats["cached_tokens_clock_last"],
        cached_rules_first=stats["cached_tokens_rules_first"],
        completion_tokens=stats["completion_tokens"],
        max_prompt_tokens=stats["max_prompt_tokens"],
        messages=agent_messages,
        boss_lines=boss_lines,
        answered=answered,
        wall_s=wall,
        prompt_by_hour=by_hour,
    )


def _answered(messages: list[dict], within: timedelta = timedelta(minutes=30)) -> tuple[int, int, int]:
    """(boss lines, those answered by an employee in the same conversation within `within`, agent messages)."""
    boss = [m for m in messages if m["sender"] == "boss"]
    answered = 0
    for line in boss:
        at = datetime.fromisoformat(line["at"])
        if any(
            m["conversation"] == line["conversation"]
            and m["sender"] not in ("boss", "system")
            and at <= datetime.fromisoformat(m["at"]) <= at + within
            for m in messages
        ):
            answered += 1
    agents = sum(1 for m in messages if m["sender"] not in ("boss", "system"))
    return len(boss), answered, agents


def day_rows(days: dict[str, Day], silent: Day, eager: dict[str, Day]) -> list[Row]:
    ours = days["ideaco"]
    broadcast = days["every member answers every message"]
    polling = days["fixed 10 s polling"]
    h = ours.per_head_hour
    rows = [
        Row(
            NAME,
            "calls per employee-hour vs 'every member answers every message'",
            h(ours.calls),
            broadcast.per_head_hour(broadcast.calls),
            f"{ratio(broadcast.calls, ours.calls):.1f}x fewer",
            ">= 5x fewer",
            broadcast.calls >= 5 * ours.calls,
        ),
        Row(
            NAME,
            "same, with a model twice as eager to speak",
            eager["ideaco"].per_head_hour(eager["ideaco"].calls),
            eager["every member answers every message"].per_head_hour(
                eager["every member answers every message"].calls
            ),
            f"{ratio(eager['every member answers every message'].calls, eager['ideaco'].calls):.1f}x fewer",
            "",
            None,
            f"agent messages: {eager['ideaco'].messages} vs {eager['every member answers every message'].messages}",
        ),
        Row(
            NAME,
            "calls per employee-hour vs 'fixed 10 s polling'",
            h(ours.calls),
            polling.per_head_hour(polling.calls),
            f"{ratio(polling.calls, ours.calls):.1f}x fewer",
            "",
            None,
            "an empty poll costs no call here; a poll that always calls: 360/h",
        ),
        Row(
            NAME,
            "calls per employee-hour",
            h(ours.calls),
            "GA 54, TinyTroupe 9, Concordia 98-140",
            "",
            "<= 8",
            h(ours.calls) <= 8,
        ),
        Row(
            NAME,
            "prompt tokens per employee-hour",
            h(ours.prompt_tokens),
            f"{broadcast.per_head_hour(broadcast.prompt_tokens):,.0f} / {polling.per_head_hour(polling.prompt_tokens):,.0f}",
            "",
            "<= 12k",
            h(ours.prompt_tokens) <= 12_000,
            "reference: broadcast / polling baselines",
        ),
        Row(
            NAME,
            "prompt tokens not served from the prefix cache, per employee-hour",
            h(ours.prompt_tokens - ours.cached_tokens),
            f"{broadcast.per_head_hour(broadcast.prompt_tokens - broadcast.cached_tokens):,.0f} / {polling.per_head_hour(polling.prompt_tokens - polling.cached_tokens):,.0f}",
            "",
            "<= 6k",
            h(ours.prompt_tokens - ours.cached_tokens) <= 6_000,
            "simulated per-employee prefix cache",
        ),
        Row(
            NAME,
            "completion tokens per employee-hour",
            h(ours.completion_tokens),
            f"{broadcast.per_head_hour(broadcast.completion_tokens):,.0f} / {polling.per_head_hour(polling.completion_tokens):,.0f}",
        ),
        Row(
            NAME,
            "prefix cache: cached / prompt tokens (fake model)",
            ratio(ours.cached_tokens, ours.prompt_tokens),
            f"{ratio(ours.cached_clock_last, ours.prompt_tokens):.2f} / {ratio(ours.cached_rules_first, ours.prompt_tokens):.2f}",
            "",
            "",
            None,
            "what-if: the clock line moved to the end / and the rules before the scene",
        ),
        Row(
            NAME,
            "same life: agent messages, boss lines answered within 30 min",
            f"{ours.messages}, {ours.answered}/{ours.boss_lines}",
            f"{broadcast.messages}, {broadcast.answered}/{broadcast.boss_lines} / {polling.messages}, {polling.answered}/{polling.boss_lines}",
            "",
            "",
            None,
            "reference: broadcast / polling baselines",
        ),
        Row(
            NAME,
            "silent office (model always silent): calls per employee-hour",
            silent.per_head_hour(silent.calls),
            "",
            "",
            "<= 2.5",
            silent.per_head_hour(silent.calls) <= 2.5,
        ),
    ]
    return rows


async def measure(quick: bool = False) -> list[Row]:
    hours = 1.0 if quick else 8.0
    with FakeModel("plausible") as fake, tempfile.TemporaryDirectory() as tmp:
        days = {p: await simulate(fake, p, "plausible", hours, Path(tmp)) for p in POLICIES}
        silent = await simulate(fake, "ideaco", "silent", hours, Path(tmp))
        eager = {p: await simulate(fake, p, "eager", hours, Path(tmp)) for p in list(POLICIES)[:2]}
    return day_rows(days, silent, eager)


if __name__ == "__main__":
    from benchmarks.table import markdown

    print(markdown(asyncio.run(measure())))
