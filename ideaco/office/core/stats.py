"""The run's live counts (the progress line, the error counts summary.json reports), updated as each
thought is recorded; summary.json's token counts are read from the logs (`store/usage.py`)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from ideaco.store.usage import usage_of


@dataclass
class RunStats:
    """The run's counts so far: thoughts, messages and calls (the progress line), errors. Silences by
    gate are counted from the logs (summary.json, `report`), not here."""

    thoughts: int = 0
    messages: int = 0
    llm_calls: int = 0
    errors: dict[str, int] = field(default_factory=dict)

    def count(self, record: dict[str, Any]) -> None:
        usage = usage_of(record)  # the count summary.json and `report` make (store/runlog.py)
        self.llm_calls += usage["calls"]
        self.thoughts += 1

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, d: dict[str, Any] | None) -> RunStats:
        known = {f.name for f in fields(cls)}  # an older state.json also kept token and gate counts
        return cls(**{k: v for k, v in (d or {}).items() if k in known})
