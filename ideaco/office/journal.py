"""Where the office writes what happens: the run directory, or nowhere (tests, notebooks).

The office calls these three methods and nothing else; the run directory's files and their
formats belong to `ideaco.store`.
"""

from __future__ import annotations

from typing import Any, Protocol

from ideaco.store.rundir import RunDir


class Journal(Protocol):
    def message(self, record: dict[str, Any]) -> None: ...

    def thought(self, record: dict[str, Any]) -> None: ...

    def checkpoint(self, state: dict[str, Any]) -> None: ...

    def close(self) -> None: ...


class MemoryJournal:
    """Keeps records in lists: for tests and notebooks that need no run directory."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.thoughts: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None

    def message(self, record: dict[str, Any]) -> None:
        self.messages.append(record)

    def thought(self, record: dict[str, Any]) -> None:
        self.thoughts.append(record)

    def checkpoint(self, state: dict[str, Any]) -> None:
        self.state = state

    def close(self) -> None:
        pass


class RunJournal:
    """Appends to messages.jsonl and thoughts.jsonl as things happen; saves state.json."""

    def __init__(self, rundir: RunDir) -> None:
        self.rundir = rundir
        # Opening a log repairs a torn last line (a killed run); message ids are never written twice.
        self._messages = rundir.open_messages()
        self._thoughts = rundir.open_thoughts()
        self._state = rundir.state_store()

    def message(self, record: dict[str, Any]) -> None:
        self._messages.append(record)

    def thought(self, record: dict[str, Any]) -> None:
        self._thoughts.append(record)

    def checkpoint(self, state: dict[str, Any]) -> None:
        self._state.save(state)

    def close(self) -> None:
        self._messages.close()
        self._thoughts.close()
        self._state.close()
