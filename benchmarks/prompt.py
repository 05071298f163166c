"""Item 3: the prompt stays bounded. The largest prompt of a 1-hour run vs a 24-hour run.

The startup office with the `plausible` scripted model (which adds memories, impressions, tasks
and a rolling summary as it goes), run for 1 and for 24 simulated hours; the largest prompt (in
the fake model's tokens: characters // 4) of each run is compared.

The target is checked on a steady workload, the scenario's own script (six boss lines in 25
minutes) repeated every hour, so that the first hour and the last have the same activity and any
difference is growth with the length of the run. The workday script (ten lines over 8 hours,
two of them in the first hour) is shown too: there the 1-hour prompt has not yet filled its
bounded sections (20 messages, 25 memories), so its ratio measures filling up, not growth.
A third row shows the largest prompt hour by hour in the steady 24-hour run: where it levels off.
"""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from benchmarks.fake_model import FakeModel
from benchmarks.life import simulate
from benchmarks.table import Row, ratio

NAME = "prompt"


async def measure(quick: bool = False) -> list[Row]:
    short, long = (0.25, 2.0) if quick else (1.0, 24.0)
    rows = []
    with FakeModel("plausible") as fake, tempfile.TemporaryDirectory() as tmp:
        for hourly in (True, False):
            first = await simulate(fake, "ideaco", "plausible", short, Path(tmp), hourly=hourly)
            day = await simulate(fake, "ideaco", "plausible", long, Path(tmp), hourly=hourly)
            r = ratio(day.max_prompt_tokens, first.max_prompt_tokens)
            rows.append(
                Row(
                    NAME,
                    f"largest prompt (tokens), {long:g} h vs {short:g} h run, "
                    + ("script every hour" if hourly else "workday script (first hour: 2 boss lines)"),
                    day.max_prompt_tokens,
                    first.max_prompt_tokens,
                    r,
                    "<= 1.2" if hourly else "",
                    r <= 1.2 if hourly else None,
                    f"{day.calls} and {first.calls} calls",
                )
            )
            if hourly:
                curve = day.prompt_by_hour
                marks = sorted({1, 2, 4, 8, 12, len(curve)} & set(range(1, len(curve) + 1)))
                third = max(1, len(curve) // 3)
                late = max(curve[third:], default=0)
                rows.append(
                    Row(
                        NAME,
                        f"largest prompt in hour h of the {long:g} h run (script every hour)",
                        ", ".join(f"h{h}: {curve[h - 1]:,}" for h in marks),
                        "",
                        f"{ratio(late, max(curve[:third])):.2f}",
                        "",
                        None,
                        "ratio: last two thirds vs first third of the run",
                    )
                )
    return rows


if __name__ == "__main__":
    from benchmarks.table import markdown

    print(markdown(asyncio.run(measure())))
