"""`ideaco reset-relationships`: clear impressions in a run's saved state (spec 2.4)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from ideaco.cli.errors import UserError
from ideaco.ids import resolve_id
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
    names = {e["id"]: str(e.get("name") or e["id"]) for e in employees}
    if employee is not None:  # an id or a name, as `inspect` and the chat read one
        found = resolve_id(employee, names)
        if not isinstance(found, str):
            known = ", ".join(sorted(names)) or "none"
            several = f"; it names {', '.join(found)}" if found else ""
            raise UserError(
                f"--employee {employee!r} is not an employee of this run (known: {known}){several}"
            )
        employee = found
    removed = 0
    for record in employees:
        mind = record.get("mind") or {}  # an employee's impressions live in its mind (state.json)
        table = relationships.table_from_dict(mind.get("relationships") or {})
        removed += relationships.reset(table, employee)
        if "mind" in record:
            record["mind"] = {**mind, "relationships": relationships.table_to_dict(table)}
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
