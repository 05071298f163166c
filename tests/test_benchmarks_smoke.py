"""The benchmark suite runs end to end in --quick mode and prints its table (no timing is asserted)."""

from __future__ import annotations

import pytest

from benchmarks import __main__ as bench_main
from benchmarks.fake_model import Model
from benchmarks.scripted import plausible, read_prompt
from benchmarks.table import HEADER


def test_quick_run_prints_one_table_with_a_row_per_measurement(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main.main(["--quick"]) == 0
    out = capsys.readouterr().out
    header = "| " + " | ".join(HEADER) + " |"
    assert header in out
    rows = [line for line in out.splitlines() if line.startswith("| ") and line != header]
    benches = {row.split(" | ")[0].removeprefix("| ") for row in rows}
    assert benches == set(bench_main.BENCHES)
    assert all(row.count(" | ") == len(HEADER) - 1 for row in rows)
    assert "skipped (--quick)" in out  # the embedded model is never started by --quick
    for target in ("<= bare SDK call + 2 ms", ">= 5x fewer", "<= 2.5", "<= 1.2", "flat", ">= 3x", ">= 1.5x"):
        assert target in out


def test_only_rejects_an_unknown_benchmark(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench_main.parse(["--only", "engine,nope"])
    assert "unknown benchmark 'nope'" in capsys.readouterr().err
    assert bench_main.parse(["--only", "prompt,engine"]).names == ["engine", "prompt"]


def _body(system: str, user: str) -> dict:
    return {
        "model": "m",
        "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
    }


def test_fake_model_serves_a_repeated_prefix_from_its_per_employee_cache() -> None:
    model = Model("silent")
    first = model.answer(_body("You are Ann, QA.\nrules", "It is 09:00.\nrest"))["usage"]
    again = model.answer(_body("You are Ann, QA.\nrules", "It is 09:05.\nrest"))["usage"]
    other = model.answer(_body("You are Bob, QA.\nrules", "It is 09:05.\nrest"))["usage"]
    assert first["prompt_tokens_details"]["cached_tokens"] == 0
    shared = len("system:You are Ann, QA.\nrules\nuser:It is 09:0") // 4
    assert again["prompt_tokens_details"]["cached_tokens"] == shared
    assert other["prompt_tokens_details"]["cached_tokens"] == 0  # another employee's cache
    assert model.stats["calls"] == 3


def test_plausible_model_answers_the_boss_in_a_one_on_one_and_creates_a_task() -> None:
    system = "You are Kai, DevOps engineer, at Pixel.\n\n## Where you are\nA private 1-on-1 chat with the boss (Boss and Kai).\nMembers: Kai (id kai, DevOps engineer), Boss (id boss, your boss)."
    user = (
        "It is Monday 09:40. The boss has written to you.\n\nNo open tasks.\n\n"
        "## Recent messages in Boss and Kai (oldest first; * = new since you last looked)\n"
        "* [09:40] Boss (BOSS): Kai, staging is slow. Find out why.\n\n## Your answer"
    )
    seen = read_prompt(_body(system, user))
    assert (seen["name"], seen["kind"]) == ("Kai", "boss")
    assert seen["lines"][0]["boss"] and seen["lines"][0]["unread"]
    thought = plausible(_body(system, user))
    assert thought["shouldSpeak"] is True and thought["messages"]
    assert thought["taskOps"][0]["op"] == "create"


def test_the_embedded_bench_finds_the_longest_wait_and_the_router() -> None:
    from benchmarks.embedded import _router, longest_gap
    from ideaco.llm.budget import BudgetLLM
    from ideaco.llm.routing import RoutedLLM, SlotRouter

    assert longest_gap([5.0, 1.0, 12.0, 14.0]) == 7.0  # unsorted finish times: 1 -> 5 -> 12 -> 14
    assert longest_gap([3.0]) == 0.0
    router = SlotRouter(2, 3)
    routed = RoutedLLM([object(), object()], router)  # type: ignore[list-item]
    assert _router(BudgetLLM(routed)) is router  # found through the stack's wrappers
    assert _router(BudgetLLM(object())) is None  # type: ignore[arg-type]


def test_the_flow_trace_counts_the_thought_and_the_calls_back_into_the_engine(tmp_path) -> None:
    import asyncio

    from benchmarks import flow

    trace = asyncio.run(flow.trace_thought(False, tmp_path))
    assert "ideaco.mind.prompt" in trace.modules  # the think built a prompt
    assert sum(trace.crossings.values()) > len(trace.modules)
    # The checkpoint after the thought (state.json) is counted apart: what only it enters and calls.
    assert "ideaco.office.engine.persistence" in trace.modules - trace.thought_modules
    assert trace.checkpoint_crossings[("ideaco.office.engine.office", "ideaco.office.engine.persistence")] > 0
    assert 0 < trace.thought_crossings() < sum(trace.crossings.values())
    calls_back = flow.Trace()
    assert flow._stage("ideaco.office.decide.speech") == "decide"
    assert flow._stage("ideaco.office.engine.office") == "engine"
    assert flow._stage("ideaco.mind.prompt") == ""
    assert calls_back.callbacks == 0
