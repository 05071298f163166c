"""A think's two values: what it read and carries to its finish (`ThinkContext`), and what it did
(`ThinkResult`), which `Office.resolve` applies. `decide/decision.py` makes them, `decide/acts.py` fills in what
the thought says; the records, the office and the early calls read them.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ideaco.cycle import Gate, Trigger
from ideaco.llm.base import ChatResult
from ideaco.llm.structured import StructuredAnswer
from ideaco.mind.prompt import EngineText
from ideaco.mind.thought import Thought
from ideaco.office.core.steps import Step


@dataclass
class ThinkContext:
    """What a think read and when; carried from its start to its finish."""

    thought_id: str
    employee: str
    conversation: str
    trigger: Trigger
    at: datetime
    read_upto: int
    mentioned: bool
    call: asyncio.Future[StructuredAnswer[Thought]]
    note: str = ""  # the engine's note this think read (a system request is re-asked if held)
    rethinks: int = 0  # re-thinks this think already is (a superseded draft gets at most one)
    began: dict[str, Any] = field(default_factory=dict)  # what starting it took (logged, replayed)
    agent: dict[int, Any] = field(default_factory=dict)  # action index -> an agent command's outcome
    engine: EngineText = EngineText()  # what the engine wrote into its prompt: its drafts must not echo it


@dataclass
class ThinkResult:
    """What one think did, to be applied by the office (`Office.resolve`)."""

    ctx: ThinkContext
    thought: Thought | None
    results: list[ChatResult] | None  # the model calls it took (usage, latency)
    gate: Gate | None  # None when it spoke
    steps: list[Step] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)
    posted: list[str] = field(default_factory=list)  # ids of the messages it posts
    error: str | None = None
    error_kind: str | None = None  # counted in the run's errors
    look: tuple[int, int] | None = None  # (interest, saturation): the adaptive delay is drawn from these
    look_at: datetime | None = None  # or a fixed next look (a retry after a failure)
    rethink: str | None = None  # superseded: the note its re-think reads
    stop: tuple[str, bool] | None = None  # (reason, failed): the run stops after this think
    usage: dict[str, Any] | None = None  # a logged think's `llm` (a replay has no results)
