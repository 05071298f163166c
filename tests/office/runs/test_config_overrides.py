"""Scenario `timers:` and `gates:` overrides reach the engine; unknown keys are one clear line."""

from __future__ import annotations

import pytest

from ideaco.office.rules.config import config_for, gate_config
from ideaco.scenario import Scenario

BASE = {
    "company": "C",
    "employees": [{"id": "a", "name": "A", "role": "r", "archetype": "old-hand"}],
}


def test_gate_overrides_change_only_what_they_name() -> None:
    gates = gate_config({"work.cooldown_s": 30, "casual.max_posts": 6, "saturation_silence_at": 8})
    assert gates.work.cooldown_s == 30 and gates.work.max_posts == 2
    assert gates.casual.max_posts == 6 and isinstance(gates.casual.max_posts, int)
    assert gates.saturation_silence_at == 8
    assert gates.dm == gate_config({}).dm


@pytest.mark.parametrize("key", ["work.cooldown", "lobby.cooldown_s", "cooldown_s"])
def test_an_unknown_gate_setting_is_named(key: str) -> None:
    with pytest.raises(ValueError, match=f"gates.{key}: unknown gate setting"):
        gate_config({key: 1})


def test_scenario_overrides_reach_the_config() -> None:
    scenario = Scenario.model_validate({**BASE, "timers": {"max_s": 600}, "gates": {"boss.cooldown_s": 5}})
    config = config_for(scenario)
    assert config.timers.max_s == 600
    assert config.gates.boss.cooldown_s == 5


def test_a_bad_override_fails_before_anything_is_written(tmp_path) -> None:
    from ideaco.errors import IdeacoError
    from ideaco.session import open_new

    path = tmp_path / "s.yaml"
    path.write_text(
        "company: C\nemployees:\n  - {id: a, name: A, role: r, archetype: old-hand}\ngates: {work.cool: 3}\n"
    )
    out = tmp_path / "run"
    with pytest.raises(IdeacoError, match=r"s.yaml: gates.work.cool: unknown gate setting"):
        open_new(path, out=out)
    assert not out.exists()
