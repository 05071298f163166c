"""Where the office writes what happens: the run directory, or nowhere (tests, notebooks).

The office calls these methods and nothing else; the run directory's files and their
formats belong to `ideaco.store`.
"""

from __future__ import annotations

from typing import Any, Protocol

from ideaco.store.jsonl import JsonlLog
from ideaco.store.rundir import RunDir
from ideaco.store.workspace import Workspace


class Journal(Protocol):
    def message(self, record: dict[str, Any]) -> None: ...

    def thought(self, record: dict[str, Any]) -> None: ...

    def change(self, record: dict[str, Any]) -> None: ...

    def checkpoint(self, state: dict[str, Any]) -> None: ...

    def document(self, key: str, content: str) -> None: ...  # a workspace file: <department>/<path>

    def workspace(self, documents: dict[str, str]) -> None: ...  # the workspace as a resume rebuilt it

    def close(self) -> None: ...


class MemoryJournal:
    """Keeps records in lists: for tests and notebooks that need no run directory."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = []
        self.thoughts: list[dict[str, Any]] = []
        self.changes: list[dict[str, Any]] = []
        self.state: dict[str, Any] | None = None
        self.documents: dict[str, str] = {}  # the workspace: key -> content

    def message(self, record: dict[str, Any]) -> None:
        self.messages.append(record)

    def thought(self, record: dict[str, Any]) -> None:
        self.thoughts.append(record)

    def change(self, record: dict[str, Any]) -> None:
        self.changes.append(record)

    def checkpoint(self, state: dict[str, Any]) -> None:
        self.state = state

    def document(self, key: str, content: str) -> None:
        self.documents[key] = content

    def workspace(self, documents: dict[str, str]) -> None:
        self.documents = dict(documents)

    def close(self) -> None:
        pass


class RunJournal:
    """Appends to messages.jsonl, thoughts.jsonl and changes.jsonl as things happen; saves state.json.

    A new log is created at its first record, so a new run directory holds its state.json (the first
    checkpoint) before any log: a run killed at start-up leaves either an empty directory, which
    a new run may use, or one that `--resume` continues, never logs without a state.

    On a power cut (docs/architecture.md, "What a run promises"): each checkpoint forces the logs
    to disk (fsync) before state.json is replaced, so the saved state never counts records the
    disk lost; what was logged after the last checkpoint may be lost, and `--resume` goes on
    from there. Closing forces the logs to disk too.
    """

    def __init__(self, rundir: RunDir) -> None:
        self.rundir = rundir
        rundir.remove_stale_temp_files()  # this process continues the run: no other writer
        # Logs a killed run left are opened now: that repairs a torn last line.
        self._messages: JsonlLog | None = rundir.open_messages() if rundir.messages_path.exists() else None
        self._thoughts: JsonlLog | None = rundir.open_thoughts() if rundir.thoughts_path.exists() else None
        self._changes: JsonlLog | None = rundir.open_changes() if rundir.changes_path.exists() else None
        self._state = rundir.state_store()
        self._workspace = Workspace(rundir.workspace_path)

    def message(self, record: dict[str, Any]) -> None:
        if self._messages is None:  # message ids are never written twice
            self._messages = self.rundir.open_messages()
        self._messages.append(record)

    def thought(self, record: dict[str, Any]) -> None:
        if self._thoughts is None:
            self._thoughts = self.rundir.open_thoughts()
        self._thoughts.append(record)

    def change(self, record: dict[str, Any]) -> None:
        if self._changes is None:
            self._changes = self.rundir.open_changes()
        self._changes.append(record)

    def checkpoint(self, state: dict[str, Any]) -> None:
        self._sync_logs()  # first: the state must not count records the disk has not got
        self._state.save(state)

    def document(self, key: str, content: str) -> None:
        self._workspace.write(key, content)

    def workspace(self, documents: dict[str, str]) -> None:
        self._workspace.rebuild(documents)

    def _sync_logs(self) -> None:
        for log in (self._messages, self._thoughts, self._changes):
            if log is not None:
                log.sync()

    def close(self) -> None:
        try:
            self._sync_logs()
        finally:
            for log in (self._messages, self._thoughts, self._changes):
                if log is not None:
                    log.close()
            self._state.close()
