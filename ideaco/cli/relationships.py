"""`ideaco reset-relationships`: clear impressions in a run's saved state (spec 2.4)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from ideaco.cli.errors import UserError
from ideaco.mind import relationships
from ideaco.store.lock import RunLock, RunLockedError
from ideaco.store.rundir import RunDir, RunDirError
from ideaco.store.state import StateError, StateStore


def reset_relationships(rundir_path: Path, employee: str | None) -> str:
    """Reset everyone's impressions of `employee` (or all impressions); return a one-line report."""
    try:
        rundir = RunDir.open_existing(rundir_path)
        lock = rundir.lock()  # a writer like any other: never while a run or a chat holds the directory
    except (RunDirError, RunLockedError) as exc:
        raise UserError(str(exc)) from None
    with lock:
        return _reset(rundir, lock, employee)


def _reset(rundir: RunDir, lock: RunLock, employee: str | None) -> str:
    try:
        rundir.check_writable()  # no link in place of a run file: checked before anything is read
        store = StateStore(rundir.state_path)
        state = store.load()
    except (RunDirError, StateError) as exc:
        raise UserError(str(exc)) from None
    employees = (state or {}).get("employees") or []
    ids = {e["id"] for e in employees}
    if employee is not None and employee not in ids:
        known = ", ".join(sorted(ids)) or "none"
        raise UserError(f"--employee {employee!r} is not an employee of this run (known: {known})")
    removed = 0
    for record in employees:
        table = relationships.table_from_dict(record.get("relationships") or {})
        removed += relationships.reset(table, employee)
        record["relationships"] = relationships.table_to_dict(table)
    try:
        rundir.claim(lock)
        store.save({"employees": employees})
    except (RunDirError, StateError) as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"{rundir.path}: cannot write ({exc.strerror or exc})") from None
    finally:
        with contextlib.suppress(StateError, OSError):  # a failed save is not retried on close
            store.close()
    whose = f"impressions of {employee}" if employee else "all impressions"
    return f"reset {whose}: {removed} removed in {rundir.state_path}"
