"""The engine's tunables (defaults are the spec's numbers), and a scenario's overrides of them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ideaco.office import rules

if TYPE_CHECKING:
    from ideaco.scenario import Scenario


@dataclass
class OfficeConfig:
    """Tunables of the engine; defaults are the spec's numbers."""

    timers: rules.TimerConfig = field(default_factory=rules.TimerConfig)
    gates: rules.GateConfig = field(default_factory=rules.GateConfig)
    think_seconds: float = 5.0  # simulated time one think takes
    compact_schema: bool = False  # shorter string bounds for small local models
    max_tokens: int = 700
    temperature: float = 0.8


def gate_config(overrides: dict[str, float]) -> rules.GateConfig:
    """Speech gates with a scenario's `gates:` overrides: `work.cooldown_s: 30`,
    `casual.max_posts: 6`, `dm.window_s: 120`, `saturation_silence_at: 8`."""
    gates = rules.GateConfig()
    kinds = {f.name for f in dataclasses.fields(rules.GateConfig) if f.name != "saturation_silence_at"}
    fields = {f.name for f in dataclasses.fields(rules.KindGates)}
    for key, value in overrides.items():
        if key == "saturation_silence_at":
            gates = dataclasses.replace(gates, saturation_silence_at=int(value))
            continue
        kind, _, name = key.partition(".")
        if kind not in kinds or name not in fields:
            known = ", ".join(f"{k}.{n}" for k in sorted(kinds) for n in sorted(fields))
            raise ValueError(f"gates.{key}: unknown gate setting (known: saturation_silence_at, {known})")
        value = int(value) if name == "max_posts" else float(value)
        gates = dataclasses.replace(
            gates, **{kind: dataclasses.replace(getattr(gates, kind), **{name: value})}
        )
    return gates


def config_for(scenario: Scenario) -> OfficeConfig:
    """The engine's numbers, with the scenario's `timers:` and `gates:` overrides applied."""
    known = {f.name for f in dataclasses.fields(rules.TimerConfig)}
    unknown = sorted(set(scenario.timers) - known)
    if unknown:
        raise ValueError(f"timers.{unknown[0]}: unknown timer (known: {', '.join(sorted(known))})")
    timers = dataclasses.replace(rules.TimerConfig(), **scenario.timers)
    config = OfficeConfig(timers=timers, gates=gate_config(scenario.gates))
    if scenario.llm and scenario.llm.temperature is not None:
        config.temperature = scenario.llm.temperature
    if scenario.llm and scenario.llm.max_tokens:
        config.max_tokens = scenario.llm.max_tokens
    return config
