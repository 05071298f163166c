"""A sweep's plan (pure): seeds, switches varied, variants and run names, a re-run's check."""

from __future__ import annotations

from pathlib import Path

import pytest

from ideaco.office.rules.config import Switches
from ideaco.sweep import plan
from ideaco.sweep.plan import Plan, PlanError, parse_seeds, parse_vary, variants


def test_seeds_are_numbers_and_ranges_in_order_without_repeats() -> None:
    assert parse_seeds("1-10") == list(range(1, 11))
    assert parse_seeds("3, 1,2-4") == [3, 1, 2, 4]
    assert parse_seeds("7") == [7]
    for bad in ("", "a", "3-1", "1..3", "1-"):
        with pytest.raises(PlanError, match="--seeds"):
            parse_seeds(bad)


def test_a_range_too_long_is_refused_before_it_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[int] = []

    def counted(low: int, high: int) -> range:
        built.append(high - low)
        assert high - low <= 10_000, "the range was built before it was checked"
        return range(low, high)

    monkeypatch.setattr(plan, "range", counted, raising=False)
    with pytest.raises(PlanError, match="more than 10000 seeds"):
        parse_seeds("1-300000000")
    with pytest.raises(PlanError, match="more than 10000 seeds"):
        parse_seeds("1-6000,20001-26000")  # each range fits, together they do not
    assert built == [6000, 6000]


def test_vary_names_real_switches_and_their_values() -> None:
    assert parse_vary(["gates=on,off", "wake=adaptive,broadcast"]) == {
        "gates": ["on", "off"],
        "wake": ["adaptive", "broadcast"],
    }
    for bad, says in [
        (["loud=on,off"], "unknown switch 'loud'"),
        (["gates=on,maybe"], "gates takes on, off"),
        (["wake=on"], "wake takes adaptive, broadcast"),
        (["gates"], "expected NAME=VALUE"),
        (["gates=on", "gates=off"], "given twice"),
        (["gates=on,on"], "a value is given twice"),
    ]:
        with pytest.raises(PlanError, match=says):
            parse_vary(bad)


def test_variants_are_every_combination_the_first_vary_slowest() -> None:
    found = variants({"gates": ["on", "off"], "wake": ["adaptive", "broadcast"]})
    assert [v.name for v in found] == [
        "gates-on_wake-adaptive",
        "gates-on_wake-broadcast",
        "gates-off_wake-adaptive",
        "gates-off_wake-broadcast",
    ]
    assert found[3].label == "gates=off wake=broadcast"
    assert found[3].switches == Switches(gates=False, wake="broadcast")
    (nothing,) = variants({})
    assert (nothing.name, nothing.label, nothing.switches) == ("default", "today's engine", Switches())


def test_runs_go_seed_by_seed_and_land_in_their_own_directories(tmp_path: Path) -> None:
    plan = Plan(Path("s.yaml"), {"gates": ["on", "off"]}, [1, 2], tmp_path)
    assert [r.name for r in plan.runs()] == ["gates-on-s1", "gates-off-s1", "gates-on-s2", "gates-off-s2"]
    run = plan.runs()[1]
    assert plan.run_dir(run) == tmp_path / "runs" / "gates-off-s1"
    assert plan.interview_path(run) == tmp_path / "interviews" / "gates-off-s1.json"


def test_a_re_run_must_be_the_same_sweep_but_may_add_seeds(tmp_path: Path) -> None:
    plan = Plan(Path("s.yaml"), {"gates": ["on", "off"]}, [1, 2], tmp_path, duration="10m")
    saved = {**plan.identity(), "seeds": [1, 2, 3]}
    plan.check_same(saved)  # the seeds are not part of the identity
    other = Plan(Path("s.yaml"), {"gates": ["on", "off"]}, [1], tmp_path, duration="20m")
    with pytest.raises(PlanError, match="holds another sweep \\(duration was '10m', now '20m'\\)"):
        other.check_same(saved)
