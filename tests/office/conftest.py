"""A small office driven by a scripted model on the simulated clock.

    office = make_office(handler)          # handler(request) -> thought dict / str / exception
    office.start(); await office.run(timedelta(minutes=10))
    office.journal.messages / office.journal.thoughts   # spec 1.5 records

`thought(...)` builds a Flow-of-Thought dict; `who(request)` reads the request's tag
("<employee> in <conversation> at <iso time>") back into its parts.
"""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from ideaco.llm.base import ChatRequest
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import SimClock
from ideaco.office.engine.office import Office
from ideaco.office.resolve import apply
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.office.rules.config import Switches, config_for
from ideaco.scenario import Scenario
from tests.fakes.llm import ScriptedLLM

START = datetime(2026, 1, 5, 9, 0, 0)
ROOM = "api-design"
CASUAL = "eng-casual"

SCENARIO: dict[str, Any] = {
    "name": "small",
    "company": "Acme Labs",
    "language": "en",
    "duration": "1h",
    "start": START.isoformat(),
    "departments": [
        {
            "id": "eng",
            "name": "Engineering",
            "mission": "Ship the new API",
            "members": ["alice", "bob", "charlie", "dana"],
        }
    ],
    "employees": [
        {
            "id": "alice",
            "name": "Alice",
            "role": "Frontend engineer",
            "archetype": "anxious-perfectionist",
            "age": 29,
        },
        {"id": "bob", "name": "Bob", "role": "Backend engineer", "archetype": "old-hand", "age": 45},
        {"id": "charlie", "name": "Charlie", "role": "Infrastructure engineer", "archetype": "ultra-grinder"},
        {"id": "dana", "name": "Dana", "role": "Designer", "archetype": "warm-hearted"},
    ],
    "rooms": [{"id": ROOM, "name": "API design", "kind": "work", "members": ["alice", "bob", "charlie"]}],
    "script": [],
}


def scenario_dict(
    *, casual: bool = True, script: list[dict] | None = None, **overrides: Any
) -> dict[str, Any]:
    """The small office's scenario; `casual=False` drops the department (and so its casual room)."""
    data = copy.deepcopy(SCENARIO)
    if not casual:
        data["departments"] = []
    if script is not None:
        data["script"] = script
    data.update(overrides)
    return data


def thought(
    speak: bool = False,
    text: str | None = None,
    *,
    interest: int = 5,
    saturation: int = 3,
    actions: list[dict] | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A Flow-of-Thought answer; `speak=True` with `text` says it."""
    out: dict[str, Any] = {
        "innerThoughts": f"thinking about {text!r}" if text else "nothing to add",
        "topicSaturation": saturation,
        "interestLevel": interest,
        "shouldSpeak": speak,
        "reason": "scripted",
        "messages": [{"content": text}] if text else [],
        "actions": actions or [],
        "memorySummary": None,
        "memoryOps": [],
        "relationshipOps": [],
        "taskOps": [],
    }
    out.update(extra)
    return out


SILENT = thought()


@dataclass(frozen=True)
class Tag:
    employee: str
    conversation: str
    at: datetime
    repair: bool


def who(request: ChatRequest) -> Tag:
    """Parse a request's tag: "<employee> in <conversation> at <iso time>[ (repair)]"."""
    tag = request.tag
    repair = tag.endswith(" (repair)")
    tag = tag.removesuffix(" (repair)")
    employee, rest = tag.split(" in ", 1)
    conversation, at = rest.rsplit(" at ", 1)
    return Tag(employee, conversation, datetime.fromisoformat(at), repair)


def prompt_of(request: ChatRequest) -> str:
    """The dynamic (user) part of the prompt."""
    return request.messages[-1]["content"] if not who(request).repair else request.messages[1]["content"]


def messages_in(office: Office, conversation: str) -> list[dict[str, Any]]:
    return [m for m in office.journal.messages if m["conversation"] == conversation]


def thoughts_of(office: Office, employee: str | None = None) -> list[dict[str, Any]]:
    return [t for t in office.journal.thoughts if employee is None or t["employee"] == employee]


def at(seconds: float) -> datetime:
    """The simulated moment `seconds` after the start."""
    return START + timedelta(seconds=seconds)


MakeOffice = Callable[..., Office]


@pytest.fixture
def make_office(tmp_path: Path) -> MakeOffice:
    """Build a small office on a SimClock; `handler(request)` answers every model call (default: silent)."""

    def make(
        handler: Callable[[ChatRequest], Any] | None = None,
        *,
        seed: int = 1,
        scenario: dict[str, Any] | None = None,
        llm: Any = None,
        delay: float = 0.0,
        clock: Any = None,
        switches: Switches | None = None,
        **scenario_kw: Any,
    ) -> Office:
        data = scenario if scenario is not None else scenario_dict(**scenario_kw)
        model = llm or ScriptedLLM(handler=handler or (lambda _r: SILENT), delay=delay)
        scenario_model = Scenario.model_validate(data)
        config = config_for(scenario_model)
        if switches is not None:  # an ablation: parts of the engine switched off
            config.switches = switches
        return office_from_scenario(
            scenario_model,
            tmp_path,
            llm=model,
            clock=clock or SimClock(START),
            seed=seed,
            journal=MemoryJournal(),
            config=config,
        )

    return make


async def step_until(
    office: Office, done: Callable[[], bool], *, within: timedelta = timedelta(hours=2)
) -> None:
    """Step the simulated clock until `done()` holds; fail if it does not within `within`."""
    end = office.clock.now() + within
    while not done():
        upcoming = office.clock.next_event_at()
        assert upcoming is not None and upcoming <= end, f"not reached by {end.isoformat()}"
        await office.step()


async def run_for(office: Office, minutes: float) -> None:
    await office.run(timedelta(minutes=minutes))


@dataclass(frozen=True)
class Wake:
    at: datetime  # when it was scheduled
    due: datetime
    employee: str
    trigger: str
    cause: str | None  # id of the message being posted, if the wake came from a post


class WakeSpy:
    """Records every wake set (by the office or a resolve), and which message's posting caused it."""

    def __init__(self, office: Office, monkeypatch: pytest.MonkeyPatch) -> None:
        self.office = office
        self.wakes: list[Wake] = []
        self._posting: str | None = None
        schedule, post = office.wakes.schedule, apply.post

        def schedule_wake(policy: Any, emp: Any, due: datetime, trigger: str) -> None:
            self.wakes.append(Wake(office.clock.now(), due, emp.id, trigger, self._posting))
            schedule(policy, emp, due, trigger)

        def post_(on: Any, message: Any, *args: Any) -> Any:
            outer, self._posting = self._posting, message.id
            try:
                return post(on, message, *args)
            finally:
                self._posting = outer

        monkeypatch.setattr(office.wakes, "schedule", schedule_wake)
        monkeypatch.setattr(apply, "post", post_)

    def caused_by(self, message_id: str) -> list[Wake]:
        return [w for w in self.wakes if w.cause == message_id]


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Callable[[Office], WakeSpy]:
    return lambda office: WakeSpy(office, monkeypatch)


@dataclass(frozen=True)
class Line:
    sender: str
    text: str
    unread: bool
    boss: bool


def chat_lines(request: ChatRequest) -> list[Line]:
    """The chat lines a prompt shows (oldest first), parsed back from the rendered text."""
    text = prompt_of(request)
    section = text.split("## Recent messages", 1)[1].split("\n\n", 1)[0]
    out = []
    for raw in section.splitlines()[1:]:
        if not raw.strip() or raw.strip() == "(no messages yet)":
            continue
        head, _, body = raw[2:].partition(": ")
        sender = head.split("] ", 1)[1].replace(" (BOSS)", "").replace(" (you)", "")
        out.append(Line(sender, body, raw.startswith("*"), "(BOSS)" in head))
    return out


def since_boss(request: ChatRequest) -> list[Line]:
    """The lines after the last boss line of a prompt."""
    lines = chat_lines(request)
    last = max((i for i, line in enumerate(lines) if line.boss), default=-1)
    return lines[last + 1 :]


class DelayedLLM:
    """Wraps an LLM with a real per-call delay chosen by `delay(request)`; tracks concurrency."""

    def __init__(self, inner: Any, delay: Callable[[ChatRequest], float]) -> None:
        self.inner = inner
        self.delay = delay
        self.in_flight = 0
        self.max_in_flight = 0
        self.started: list[str] = []
        self.returned: list[str] = []

    @property
    def requests(self) -> list[ChatRequest]:
        return self.inner.requests

    async def complete(self, request: ChatRequest) -> Any:
        self.started.append(request.tag)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            await asyncio.sleep(self.delay(request))
            return await self.inner.complete(request)
        finally:
            self.in_flight -= 1
            self.returned.append(request.tag)

    async def aclose(self) -> None:
        await self.inner.aclose()
