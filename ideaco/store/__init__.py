"""The run directory: TinyDB state, append-only JSONL logs, summary (spec 1.5)."""

from __future__ import annotations

from ideaco.store.jsonl import JsonlError, JsonlLog, read, repair
from ideaco.store.rundir import RunDir, RunDirError
from ideaco.store.state import LAYOUT_VERSION, StateError, StateStore, StateVersionError

__all__ = [
    "LAYOUT_VERSION",
    "JsonlError",
    "JsonlLog",
    "RunDir",
    "RunDirError",
    "StateError",
    "StateStore",
    "StateVersionError",
    "read",
    "repair",
]
