"""The run's counts so far (what summary.json reports), updated as each thought is recorded."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ideaco.store.usage import usage_of


@dataclass
class RunStats:
    """The run's counts so far (what summary.json reports)."""

    thoughts: int = 0
    messages: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    gates: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)

    def count(self, record: dict[str, Any]) -> None:
        usage = usage_of(record)  # the count summary.json and `report` make (store/runlog.py)
        self.llm_calls += usage["calls"]
        self.prompt_tokens += usage["prompt_tokens"]
        self.completion_tokens += usage["completion_tokens"]
        self.cached_tokens += usage["cached_tokens"]
        self.thoughts += 1
        gate = record.get("gate")
        if gate is not None:
            self.gates[gate] = self.gates.get(gate, 0) + 1

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> RunStats:
        return cls(**(d or {}))
