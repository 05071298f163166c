"""What a resolve is handed: `Landing`, the office's state and the parts a resolve writes, as a value.

The engine makes one for each resolve (a think's result, the boss's post or command, a logged
record applied again) and `apply.py` lands steps on it. The moment, the random stream of the event
being handled and whether the records are new (`live`; a resume's catch-up applies logged ones)
are fixed for the whole resolve, so a resolve never calls back into the engine; what it posted is
left in `posted` (values) for the engine to show, and the wakes it set in `wakes.due`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ideaco.office.core.conversation import Message
from ideaco.office.core.directory import Directory, StateReads
from ideaco.office.core.state import OfficeState
from ideaco.office.core.stats import RunStats
from ideaco.office.perceive.waking import WakePolicy
from ideaco.office.resolve.journal import Journal
from ideaco.office.resolve.wakes import Wakes
from ideaco.office.rules.config import OfficeConfig


@dataclass
class Landing(StateReads):
    """The office as a resolve sees it (an `OfficeView`), with the moment and stream it lands in."""

    # What the office is (read; the wake policy reads it as an OfficeView).
    company: str
    language: str
    config: OfficeConfig
    policy: WakePolicy
    model_for: Callable[[str | None], str]
    script: list[dict[str, Any]]
    script_next: int
    # What a resolve writes.
    state: OfficeState
    _directory: Directory
    wakes: Wakes
    journal: Journal
    stats: RunStats
    meta: dict[str, Any]
    # Fixed for this resolve.
    at: datetime
    rng: random.Random
    live: bool  # False while logged records are applied again: nothing is logged or shown twice
    posted: list[Message] = field(default_factory=list)  # new messages, in order, for the engine to show

    def now(self) -> datetime:
        return self.at
