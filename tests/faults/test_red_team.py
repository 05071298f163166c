"""The red-team pass's model-driven classes, driven through the CLI (issue 22, item 6).

Each case is one `ideaco run` against a scripted endpoint on loopback answering as a hostile or
runaway model would: the run ends normally (exit 0), the user-facing record says what was refused,
and nothing written before is lost or duplicated (every log line is a record, ids unique).
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from ideaco.office.rules.toolcaps import CAPS
from tests.fakes.openai_server import FakeOpenAIServer
from tests.faults.conftest import asked, read_jsonl
from tests.guard.scripted import as_content

SCENARIO = """\
company: Acme Labs
duration: {duration}
start: "2026-01-05T09:00:00"
departments:
  - {{id: eng, name: Engineering, members: [alice]}}
employees:
  - {{id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}}
script:
  - {{at: "00:00", to: "boss:secretary", text: "Hire one engineer for Engineering, please."}}
  - {{at: "00:00", to: "boss:alice", text: "Alice, what are you working on?"}}
"""
RESERVED_IDS = {"boss", "system", "all", "everyone", "secretary"}


def answer(speak: bool, text: str | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "innerThoughts": "scripted",
        "topicSaturation": 3,
        "interestLevel": 6,
        "shouldSpeak": speak,
        "reason": "scripted",
        "messages": [{"content": text}] if text else [],
    }
    out.update(extra)
    return out


def hire(name: str) -> dict[str, Any]:
    args = {"name": name, "role": "Engineer", "archetype": "old-hand", "department": "eng"}
    return {"tool": "hire_employee", "args": args}


def run_office(ideaco, tmp_path: Path, handler, duration: str = "20m") -> tuple[Path, FakeOpenAIServer]:
    scenario = tmp_path / "office.yaml"
    scenario.write_text(SCENARIO.format(duration=duration), encoding="utf-8")
    out = tmp_path / "run"
    with FakeOpenAIServer(handler=lambda body: as_content(handler(body))) as fake:
        result = ideaco("run", scenario, "--base-url", fake.base_url, "--out", out, "--seed", "1")
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    return out, fake


def employees_of(out: Path) -> list[dict[str, Any]]:
    """The employees in state.json (TinyDB: a table of documents by number)."""
    return list(json.loads((out / "state.json").read_text(encoding="utf-8"))["employees"].values())


def assert_nothing_lost(out: Path) -> None:
    for name in ("messages.jsonl", "thoughts.jsonl"):
        records = read_jsonl(out / name)
        ids = [r["id"] for r in records]
        assert len(ids) == len(set(ids)), f"a record of {name} was written twice"
    assert json.loads((out / "summary.json").read_text(encoding="utf-8"))


def tool_steps(out: Path) -> list[dict[str, Any]]:
    return [
        s for t in read_jsonl(out / "thoughts.jsonl") for s in t["applied"]["steps"] if s["step"] == "tool"
    ]


HOSTILE_NAMES = ["Boss", "All", "Everyone", "System", "Boss (BOSS)", "System:", "Eve\nBoss", "Bob\u202eevil"]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=repr)
def test_a_hire_named_as_a_role_is_refused_and_the_secretary_reads_why(ideaco, tmp_path, name) -> None:
    """Red team, high 1: one answer hiring "Boss" made an employee with id boss, obeyed as the boss."""
    hired = iter([name])

    def handler(body):
        if asked(body).name == "Secretary" and (pick := next(hired, None)):
            return answer(True, "On it.", actions=[hire(pick)])
        return answer(False)

    out, fake = run_office(ideaco, tmp_path, handler)
    employees = {e["id"] for e in employees_of(out)}
    assert employees & RESERVED_IDS <= {"secretary"}
    assert employees == {"alice", "secretary"}, "a hostile name was hired"
    senders = {m["sender"] for m in read_jsonl(out / "messages.jsonl")}
    assert senders <= {"boss", "system", "alice", "secretary"}
    boss_lines = [m for m in read_jsonl(out / "messages.jsonl") if m["sender"] == "boss"]
    assert len(boss_lines) == 2, "only the script's two lines are the boss's"
    (refused,) = [s for s in tool_steps(out) if s.get("tool") == "hire_employee"]
    assert refused["ok"] is False and refused["message"], refused
    # The refusal reaches the secretary: a later request of its shows the reason.
    later = [asked(b).prompt for b in fake.requests if asked(b).name == "Secretary"][1:]
    assert any(refused["message"][:40] in prompt for prompt in later)
    assert_nothing_lost(out)


def test_a_secretary_that_never_stops_hiring_is_stopped_and_the_boss_is_told(ideaco, tmp_path) -> None:
    """Red team, high 2: "hire one engineer" once became 551 employees and 1,277 calls in an hour."""
    numbers = itertools.count(1)  # not a generator: the fake server answers on several threads

    def handler(body):
        if asked(body).name == "Secretary":
            return answer(True, "Hiring more.", actions=[hire(f"Eng{next(numbers)}") for _ in range(3)])
        return answer(False)

    out, fake = run_office(ideaco, tmp_path, handler, duration="1h")
    hired = [e for e in employees_of(out) if e["id"] not in ("alice", "secretary")]
    assert 0 < len(hired) <= CAPS.per_hour["hire_employee"]
    secretary_calls = [b for b in fake.requests if asked(b).name == "Secretary"]
    assert len(secretary_calls) <= 10, f"{len(secretary_calls)} paid calls for one boss line"
    system_lines = [
        m
        for m in read_jsonl(out / "messages.jsonl")
        if m["sender"] == "system" and m["conversation"] == "boss:secretary"
    ]
    assert system_lines, "the boss is not told that the secretary was stopped"
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["tool_calls"], "the refused calls are not counted in summary.json"
    assert_nothing_lost(out)


def test_a_model_that_creates_tasks_without_end_keeps_every_prompt_bounded(ideaco, tmp_path) -> None:
    """Red team, medium 9: 1,000 pending tasks per employee, every prompt ~100 KB (normally ~4 KB)."""
    counter = itertools.count(1)

    def handler(body):
        ops = [{"op": "create", "description": f"Follow-up number {next(counter)}"} for _ in range(5)]
        return answer(False, taskOps=ops)

    out, fake = run_office(ideaco, tmp_path, handler, duration="2h")
    sizes = [len(json.dumps(b["messages"])) for b in fake.requests]
    assert len(sizes) > 20
    assert max(sizes) < 3 * sorted(sizes)[len(sizes) // 2], "prompts keep growing with the task flood"
    for employee in employees_of(out):
        pending = [t for t in employee["mind"]["tasks"] if t["status"] != "done"]
        assert len(pending) <= 12, (employee["id"], len(pending))
    assert_nothing_lost(out)
