"""Tentative calls: a call made before anyone knows whether its answer will be used.

A caller that asks ahead (the office's early thinks, `office/engine/early.py`) runs the call in a task
whose context holds a `Tentative`. The layers of the stack read it:
- what must happen only for an answer that is used (a `--record` line) is deferred to it: done
  when the caller commits the call, forgotten when it drops it (`deferred`);
- a tentative call waits behind every call someone is waiting for (`LimitedLLM`'s permits).
Outside such a task nothing changes: `deferred` does the action at once.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

PENDING, COMMITTED, DROPPED = "pending", "committed", "dropped"


class Tentative:
    """What a tentative call leaves to be done if, and only if, its answer is used."""

    def __init__(self) -> None:
        self.state = PENDING
        self._actions: list[Callable[[], None]] = []

    def defer(self, action: Callable[[], None]) -> None:
        if self.state == COMMITTED:
            action()
        elif self.state == PENDING:
            self._actions.append(action)

    def commit(self) -> None:
        """The answer is used: do what was deferred (and from now on, at once)."""
        self.state = COMMITTED
        actions, self._actions = self._actions, []
        for action in actions:
            action()

    def drop(self) -> None:
        """The answer is not used: forget what was deferred (and what the call still defers)."""
        self.state = DROPPED
        self._actions = []


_CURRENT: ContextVar[Tentative | None] = ContextVar("ideaco_tentative", default=None)


def current() -> Tentative | None:
    """The tentative call this code runs in (None: an ordinary call)."""
    return _CURRENT.get()


def enter(tentative: Tentative) -> None:
    """Mark the running task's calls as tentative (call it first thing in the task: tasks copy context)."""
    _CURRENT.set(tentative)


def deferred(action: Callable[[], None]) -> None:
    """Do `action` now, or, inside a tentative call, when (and if) that call is committed."""
    tentative = _CURRENT.get()
    if tentative is None:
        action()
    else:
        tentative.defer(action)
