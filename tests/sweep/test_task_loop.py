"""A sweep run one by one from inside a running event loop (Jupyter without Ray) still runs."""

from __future__ import annotations

import asyncio

from ideaco.sweep.task import _run_to_end


async def _answer() -> int:
    await asyncio.sleep(0)
    return 42


def test_outside_a_loop() -> None:
    assert _run_to_end(_answer()) == 42


async def test_inside_a_running_loop() -> None:
    assert asyncio.get_running_loop()
    assert _run_to_end(_answer()) == 42  # asyncio.run here would raise: it cannot nest
