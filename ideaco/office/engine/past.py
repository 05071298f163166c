"""A logged past, retraced: the office runs again from its start to a moment, each think answered by
the record it logged, so that at that moment it stands exactly as it stood then (issue 39, a fork).

The clock, the looks, the typing pauses, the random streams and the wakes run as they ran: only the
model is not asked. A think whose record landed by the moment takes that record's steps, its posts
and its next look (drawn again from its stream, as the first time, and checked against the log);
a think under way at the moment (begun before, landed after) is thought on the model from then on.
While the past is retraced, `PastJournal` writes nothing: the fork's logs already hold the
original's lines up to the moment, byte for byte. It checks each message the office posts against
the logged one instead, so a past that cannot be retraced is one line, never a silently different
office.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from ideaco.kinds import StepKind, ToolName
from ideaco.mind.thought.model import Thought
from ideaco.office.core.conversation import Message
from ideaco.office.core.steps import EmployeeStep, OweStep, Step
from ideaco.office.core.think import ThinkContext, ThinkResult
from ideaco.office.resolve.journal import Journal
from ideaco.office.resolve.records import result_from_record
from ideaco.store.runlog import applied_at


class PastDiverged(RuntimeError):
    """The office, run again on its logged answers, did not do what the log says (one line)."""


@dataclass(frozen=True)
class Logged:
    """A think's logged outcome, ready to resolve: its result and the messages it posted."""

    result: ThinkResult
    posts: dict[str, Message]
    record: dict[str, Any]  # as logged

    def check(self, landed: dict[str, Any]) -> None:
        """The think, resolved again, did what its record says: the same steps with the same values
        drawn (wakes, ages), the same next look; else `PastDiverged` naming the thought."""
        logged = self.record
        if landed.get("next_look_at") != logged.get("next_look_at"):
            raise PastDiverged(
                f"thought {logged['id']}'s next look was {landed.get('next_look_at')} when run again, "
                f"{logged.get('next_look_at')} in the log"
            )
        again, then = landed["applied"]["steps"], (logged.get("applied") or {}).get("steps") or []
        if [_drawn(s) for s in again] != [_drawn(s) for s in then]:
            raise PastDiverged(f"thought {logged['id']} drew other values when run again")


class Past:
    """The records of a run up to `moment`: the thoughts that landed by then, by who thought when."""

    def __init__(
        self, moment: datetime, messages: list[dict[str, Any]], thoughts: list[dict[str, Any]]
    ) -> None:
        self.moment = moment
        self.messages = [m for m in messages if datetime.fromisoformat(m["at"]) <= moment]
        self.thoughts = [t for t in thoughts if applied_at(t) <= moment]
        self._by_think = {(t["employee"], t["at"]): t for t in self.thoughts}
        self._posts = {m["id"]: m for m in self.messages}

    def holds(self, employee: str, at: datetime) -> bool:
        """Whether the think `employee` begins at `at` is in the past: its record answers it."""
        return (employee, at.isoformat()) in self._by_think

    @staticmethod
    def answered() -> asyncio.Future[None]:
        """The model call of a think the past answers: done, and never read."""
        call: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        call.set_result(None)
        return call

    def outcome(self, ctx: ThinkContext) -> Logged | None:
        """What the think of `ctx` did, as logged (None: it is no think of the past)."""
        record = self._by_think.get((ctx.employee, ctx.at.isoformat()))
        if record is None:
            return None
        if record["id"] != ctx.thought_id or record["conversation"] != ctx.conversation:
            raise PastDiverged(
                f"thought {record['id']} of {ctx.employee} at {ctx.at:%H:%M:%S} was {ctx.thought_id} in "
                f"{ctx.conversation} when run again"
            )
        result = result_from_record(record)
        steps = [_undrawn(step, record) for step in result.steps]
        result = replace(result, ctx=ctx, steps=steps, look=_drawn_look(record, result))
        posts = {mid: Message.from_record(self._posts[mid]) for mid in result.posted if mid in self._posts}
        for step in (record.get("applied") or {}).get("steps") or ():
            posted = step.get("posted") if step.get("step") == StepKind.NOTICE else None
            if posted in self._posts:
                posts[posted] = Message.from_record(self._posts[posted])
        return Logged(result, posts, record)


def _undrawn(step: Step, record: dict[str, Any]) -> Step:
    """A logged step as the think handed it over, before the values applying it drew (`landed`):
    they are drawn again from the same stream, as the first time. An owed think's wake is always
    drawn; a hire's age unless the hiring tool's arguments gave one."""
    if isinstance(step, OweStep):
        return replace(step, wake_at=None)
    if isinstance(step, EmployeeStep) and step.joined is not None:
        name = step.joined.get("name")
        actions = ((record.get("thought") or {}).get("actions")) or ()
        hired = [
            a.get("args") or {}
            for a in actions
            if isinstance(a, dict) and a.get("tool") == ToolName.HIRE_EMPLOYEE
        ]
        if not any(args.get("name") == name and args.get("age") is not None for args in hired):
            return replace(step, joined={**step.joined, "age": None})
    return step


def _drawn_look(record: dict[str, Any], result: ThinkResult) -> tuple[int, int] | None:
    """The (interest, saturation) a think's next look was drawn from, as `decision._act` set it: a
    thought that stood (not superseded, not failed); else its logged next look is a fixed moment."""
    if record.get("thought") is None or result.rethink is not None or result.error or result.stop:
        return None
    thought = Thought.model_validate(record["thought"])
    return (thought.interestLevel, thought.topicSaturation)


class PastJournal:
    """A run's journal that writes nothing until `open()`: while the past is retraced, each message
    the office posts is checked against the logged one (`PastDiverged` at the first difference)."""

    def __init__(self, inner: Journal, past: Past) -> None:
        self.inner = inner
        self._expected = iter(past.messages)
        self.opened = False

    def open(self) -> None:
        """From now on every record is written."""
        self.opened = True

    def message(self, record: dict[str, Any]) -> None:
        if self.opened:
            self.inner.message(record)
            return
        logged = next(self._expected, None)
        if logged is None or _canonical(logged) != _canonical(record):
            said = f"{logged['id']} at {logged['at']}" if logged else "no message"
            raise PastDiverged(
                f"run again, the office posted {record['id']} at {record['at']} where the log has {said}"
            )

    def thought(self, record: dict[str, Any]) -> None:
        if self.opened:
            self.inner.thought(record)

    def change(self, record: dict[str, Any]) -> None:
        if self.opened:
            self.inner.change(record)

    def checkpoint(self, state: dict[str, Any]) -> None:
        if self.opened:
            self.inner.checkpoint(state)

    def document(self, key: str, content: str) -> None:
        if self.opened:
            self.inner.document(key, content)

    def workspace(self, documents: dict[str, str]) -> None:
        self.inner.workspace(documents)

    def close(self) -> None:
        self.inner.close()


def _drawn(step: dict[str, Any]) -> tuple[Any, ...]:
    """A logged step's kind and the values applying it drew (an owed think's wake, a hire's age)."""
    return (step.get("step"), step.get("wake_at"), (step.get("joined") or {}).get("age"))


def _canonical(record: dict[str, Any]) -> str:
    return json.dumps(record, sort_keys=True, ensure_ascii=False)
