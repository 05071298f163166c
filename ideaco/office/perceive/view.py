"""What the office's parts may read of it: `OfficeView`, the office as seen from a think or a wake policy.

Reading (`reading.py`), a look (`looks.py`), deciding (`decide/decision.py`, `decide/speech.py`)
and waking (`resolve/waking.py`) are handed the office through this protocol and only read it;
`Office` implements it (its reads are the state's own, `core/directory.StateReads`). Declaring it
here keeps the arrows pointing one way: those modules never import `office.py`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from ideaco.llm.config import Models
from ideaco.office.core.conversation import Message
from ideaco.office.core.directory import Directory, StateReads
from ideaco.office.core.state import ConversationState, OfficeState

if TYPE_CHECKING:
    from ideaco.office.rules.config import OfficeConfig


class OfficeView(Protocol):
    company: str  # the company's name
    language: str
    config: OfficeConfig
    state: OfficeState
    rng: random.Random  # drawn from only while the office applies (a policy is handed it then)
    models: Models
    meta: dict[str, Any]
    script: list[dict[str, Any]]
    script_next: int

    @property
    def people(self) -> dict[str, str]: ...

    def now(self) -> datetime: ...

    def name_of(self, who: str) -> str: ...

    def conversations_of(self, employee: str) -> list[ConversationState]: ...


class Observer(Protocol):
    """What a display (the CLI's transcript, a notebook) is told as the office runs."""

    def on_message(self, office: Any, message: Message) -> None: ...

    def on_thought(self, office: Any, record: dict[str, Any]) -> None: ...


@dataclass(frozen=True, eq=False)
class OfficeRead(StateReads):
    """What a think's decision reads of the office (issue 38): its name, language, numbers, state and
    who works where, at the moment it is decided. A frozen value with no way to the engine's writers
    (no clock, calls, wakes, journal, random stream, stats): `decide` is handed this, never the live
    `Office`, and works on a copy-on-write scratch of `state`, so deciding changes nothing."""

    company: str
    language: str
    config: OfficeConfig
    state: OfficeState
    models: Models
    _directory: Directory
    at: datetime

    def now(self) -> datetime:
        return self.at


def office_read(office: OfficeView, at: datetime) -> OfficeRead:
    """The read a think is decided against: of the live office, or of a what-if of it."""
    return OfficeRead(
        office.company,
        office.language,
        office.config,
        office.state,
        office.models,
        office._directory,  # type: ignore[attr-defined]  # every view is a StateReads
        at,
    )
