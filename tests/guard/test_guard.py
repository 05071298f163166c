"""The restructuring guard (issue 10): recorded runs replay to the same logs, byte for byte.

Each guarded run (tests/guard/runs.py) is replayed through `ideaco run --replay`; its
messages.jsonl must equal the expected file byte for byte, and its thoughts.jsonl record for record
apart from `applied`. A change of behaviour that is meant re-records them (`python -m tests.guard.make`)
and says so in its commit.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.guard.runs import RUNS, GuardedRun, comparable_thoughts

CLEAN_ENV = {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "IDEACO_MODEL": None}


@pytest.mark.parametrize("run", RUNS, ids=[r.name for r in RUNS])
def test_replay_gives_the_recorded_logs(run: GuardedRun, tmp_path: Path) -> None:
    out = tmp_path / "run"
    result = CliRunner().invoke(app, run.args(out), env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    expected = run.folder / "messages.jsonl"
    assert (out / "messages.jsonl").read_bytes() == expected.read_bytes()
    got, want = (
        comparable_thoughts(out / "thoughts.jsonl"),
        comparable_thoughts(run.folder / "thoughts.jsonl"),
    )
    assert len(got) == len(want)
    for mine, theirs in zip(got, want, strict=True):
        assert mine == theirs, f"thought {theirs.get('id')} differs"


def test_the_scripted_office_reaches_the_mechanics() -> None:
    """The guard is only worth its runs: the scripted office must reach what the core moves."""
    import json

    thoughts = [
        json.loads(line)
        for run in RUNS
        if run.flags
        for line in (run.folder / "thoughts.jsonl").read_text(encoding="utf-8").splitlines()
    ]
    gates = {t["gate"] for t in thoughts}
    triggers = {t["trigger"] for t in thoughts}
    assert {"chose_silence", "saturation", "superseded", "loop_breaker", "anti_spam"} <= gates
    assert {"boss", "nudge", "timer", "idle", "system", "task", "on_resolve"} <= triggers
    notes = " ".join(c for t in thoughts for c in t["corrections"])
    for seen in ("repair:", "clamped", "refused: unknown department", "duplicate of mem-"):
        assert seen in notes
    spoken = " ".join(m["content"] for t in thoughts if t["thought"] for m in t["thought"]["messages"])
    for seen in ("is stuck", "worn out", "Summary: we agreed", "Hello, I'm Nora", "Report: task-"):
        assert seen in spoken
    read = " ".join(n for t in thoughts for n in t["applied"]["began"].get("notes") or ())
    assert "You were on hold since 09:40" in read  # Ben, held and released by the boss
    board = [s for t in thoughts for s in t["applied"]["steps"] if s["step"] == "board"]
    put = [o for s in board for o in s.get("added") or ()]
    assert any(o["reason"] for o in put) and any(not o["reason"] for o in put)  # released, offered
    assert any(s.get("removed") for s in board)  # claimed
    assert "Escalating: that thread is going in circles" in spoken  # an unanswered thread, to the boss
