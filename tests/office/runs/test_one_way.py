"""A thought goes one way (issue 27, item 2): from its wake to its resolve, no module of `decide` or
`resolve` calls back into the engine (it is handed values: a `ThinkContext`, a `Landing`). Traced
with `benchmarks.flow`, which the flow benchmark prints: counts, not times."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.flow import trace_thought


@pytest.mark.parametrize("ops", [False, True], ids=["speak", "dm+ops"])
async def test_decide_and_resolve_never_call_back_into_the_engine(ops: bool, tmp_path: Path) -> None:
    trace = await trace_thought(ops, tmp_path)
    assert any(m.startswith("ideaco.office.resolve") for m in trace.modules)  # the trace saw the resolve
    assert any(m.startswith("ideaco.office.decide") for m in trace.modules)
    assert trace.callbacks == 0, [
        pair
        for pair in trace.crossings
        if ".engine." in pair[1] and (".decide." in pair[0] or ".resolve." in pair[0])
    ]
