"""The engine's tunables (defaults are the spec's numbers), and a scenario's overrides of them."""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ideaco.office import rules
from ideaco.office.rules.levers import LeverConfig
from ideaco.office.rules.text import STRICT
from ideaco.scenario import REVIEW_ROUNDS

if TYPE_CHECKING:
    from ideaco.scenario import Scenario


WAKES = ("adaptive", "broadcast")
SWITCHES = ("gates", "wake", "memory", "relationships", "personas", "stamina")


@dataclass(frozen=True)
class Switches:
    """Parts of the engine an ablation turns off; the defaults are today's engine (docs/evaluation.md).

    - gates off: the speech gates of spec 2.2 (saturation, anti-spam, cooldown) hold nothing; a
      draft they would have held is posted (the loop breakers of 2.3 still apply).
    - wake broadcast: every member answers every message (one think per message per other
      member, 1-5 s later); no adaptive timers, no idle thinks (`office/resolve/policies.py`).
    - memory off: memoryOps and memorySummary are dropped: the employee remembers nothing.
    - relationships off: relationshipOps are dropped: no impressions, no affinity.
    - personas off: every employee reads as a blank persona (name, role, age; no personality,
      tone, quirk or tendencies), in the prompt and in the wake rules.
    - stamina off: stamina never changes (always green: no notes, no reflection, no escalation).
    """

    gates: bool = True
    wake: str = "adaptive"
    memory: bool = True
    relationships: bool = True
    personas: bool = True
    stamina: bool = True

    def __post_init__(self) -> None:
        if self.wake not in WAKES:
            raise ValueError(f"wake={self.wake}: expected one of {', '.join(WAKES)}")

    def persona_of(self, persona: dict[str, Any]) -> dict[str, Any]:
        """The persona the engine reads for an employee: its own, or a blank one with personas off."""
        return persona if self.personas else {}

    @property
    def is_default(self) -> bool:
        return self == Switches()

    def to_dict(self) -> dict[str, Any]:
        """`{"gates": "off", "wake": "broadcast", ...}`: the form a sweep's `--vary` uses."""
        return {
            name: value if isinstance(value, str) else ("on" if value else "off")
            for name, value in dataclasses.asdict(self).items()
        }

    @classmethod
    def from_dict(cls, values: dict[str, Any] | None) -> Switches:
        """Switches from `{"gates": "off", ...}` (or booleans); ValueError naming a bad one."""
        out: dict[str, Any] = {}
        for name, value in (values or {}).items():
            if name not in SWITCHES:
                raise ValueError(f"{name}: unknown switch (known: {', '.join(SWITCHES)})")
            if name == "wake":
                out[name] = str(value)
            elif isinstance(value, bool) or value in ("on", "off"):
                out[name] = value if isinstance(value, bool) else value == "on"
            else:
                raise ValueError(f"{name}={value}: expected on or off")
        return cls(**out)


@dataclass
class OfficeConfig:
    """Tunables of the engine; defaults are the spec's numbers."""

    timers: rules.TimerConfig = field(default_factory=rules.TimerConfig)
    gates: rules.GateConfig = field(default_factory=rules.GateConfig)
    switches: Switches = field(default_factory=Switches)
    levers: LeverConfig = field(default_factory=LeverConfig)  # what personality does in the engine
    think_seconds: float = 5.0  # simulated time one think takes
    compact_schema: bool = False  # shorter string bounds for small local models
    max_tokens: int = 700  # the cap on each model answer (a scenario's llm.max_tokens_per_call)
    temperature: float = 0.8
    review_rounds: int = REVIEW_ROUNDS  # a document's rejections before its lead decides (issue 20)
    # The text rules people's texts are held to: strict (guarantees and small-model hygiene) or
    # standard (guarantees only); the run chooses by its model (`session._config`), docs/posting.md.
    filters: str = STRICT
    # Employees whose documents a command writes (a scenario's `agent:`), by id: ideaco.agents.command.
    agents: dict[str, Any] = field(default_factory=dict)

    def person_levers(self) -> LeverConfig:
        """The levers as the switches leave them: with personas off no tendency is read (docs/mind.md)."""
        return self.levers if self.switches.personas else _without_personas(self.levers)


@functools.lru_cache(maxsize=8)
def _without_personas(levers: LeverConfig) -> LeverConfig:
    return dataclasses.replace(levers, personas=False)


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
    config = OfficeConfig(
        timers=timers, gates=gate_config(scenario.gates), review_rounds=scenario.review_rounds
    )
    if scenario.llm and scenario.llm.temperature is not None:
        config.temperature = scenario.llm.temperature
    if scenario.llm and scenario.llm.max_tokens_per_call:
        config.max_tokens = scenario.llm.max_tokens_per_call
    config.agents = {e.id: e.agent for e in scenario.employees if e.agent is not None}
    if scenario.posting is not None and scenario.posting.filters:
        config.filters = scenario.posting.filters
    return config
