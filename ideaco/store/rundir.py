"""The run directory (spec 1.5): where a run's state, logs, summary and workspace live, named here only."""

from __future__ import annotations

import json
import os
import stat
from datetime import datetime
from pathlib import Path
from typing import Any

from ideaco import safejson
from ideaco.errors import IdeacoError
from ideaco.redact import redact_urls
from ideaco.store.atomic import atomic_write_text
from ideaco.store.jsonl import JsonlLog
from ideaco.store.lock import WRITER_FILE, RunLock, command_line
from ideaco.store.state import StateStore

STATE = "state.json"
MESSAGES = "messages.jsonl"
THOUGHTS = "thoughts.jsonl"
CHANGES = "changes.jsonl"  # what changed between thoughts (office/resolve/change_log.py)
SUMMARY = "summary.json"
WORKSPACE = "workspace"  # the departments' documents (store/workspace.py)
FORK = "fork.json"  # a fork's origin, moment and changes (ideaco fork; store/forks.py reads it)
RUN_FILES = (STATE, MESSAGES, THOUGHTS, CHANGES, SUMMARY)
DEFAULT_ROOT = Path("runs")


class RunDirError(IdeacoError, ValueError):
    """A run directory that cannot be used; `str()` is one line naming the directory (for the user)."""


class RunDir:
    """Paths and helpers for one run directory; nothing is written until `create()`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        # The first write the OS refused (disk full, file too large): from then on the state is not
        # saved again, since it would count records the logs do not hold. A resume starts from the logs.
        self.write_failure: OSError | None = None

    def __repr__(self) -> str:
        return f"RunDir({str(self.path)!r})"

    @property
    def state_path(self) -> Path:
        return self.path / STATE

    @property
    def messages_path(self) -> Path:
        return self.path / MESSAGES

    @property
    def thoughts_path(self) -> Path:
        return self.path / THOUGHTS

    @property
    def changes_path(self) -> Path:
        return self.path / CHANGES

    @property
    def summary_path(self) -> Path:
        return self.path / SUMMARY

    @property
    def workspace_path(self) -> Path:
        return self.path / WORKSPACE

    @classmethod
    def for_new_run(
        cls, scenario_name: str, out: str | Path | None, now: datetime, root: str | Path = DEFAULT_ROOT
    ) -> RunDir:
        """The directory for a new run: `out` itself if given, else `<root>/<scenario>-<YYYYmmdd-HHMMSS>`.

        Refuses (RunDirError) an `out` that already holds a run: that one is continued with --resume.
        """
        if out is not None:
            target = Path(out)
            if target.exists() and not target.is_dir():
                raise RunDirError(f"{target} exists and is not a directory")
            if target.is_dir():
                _refuse_a_run_in(target)
            return cls(target)
        base = Path(root) / f"{scenario_name}-{now:%Y%m%d-%H%M%S}"
        target, n = base, 1
        while target.exists():  # two runs started within the same second
            n += 1
            target = base.with_name(f"{base.name}-{n}")
        return cls(target)

    @classmethod
    def open_existing(cls, path: str | Path) -> RunDir:
        """An existing run directory, for --resume, inspect and report."""
        target = Path(path)
        if not target.exists():
            raise RunDirError(f"{target} does not exist")
        if not target.is_dir():
            raise RunDirError(f"{target} is not a directory")
        if not (target / STATE).is_file():
            raise RunDirError(f"{target} is not an ideaco run directory (no {STATE})")
        for name in RUN_FILES:  # a FIFO or a device in place of a log would hang or flood a reader
            if (target / name).exists() and not (target / name).is_file():
                raise RunDirError(f"{target / name} is not a regular file")
        return cls(target)

    def lock(self) -> RunLock:
        """Take the one-writer lock (RunLockedError naming the holder if another process has it)."""
        return RunLock.acquire(self.path)

    def lock_new(self) -> RunLock:
        """Create the directory and take its lock for a new run; refused if a run appeared meanwhile.

        Checked again under the lock: two `ideaco run --out D` started together both found D empty.
        """
        self.create()
        lock = self.lock()
        try:
            _refuse_a_run_in(self.path)
        except BaseException:
            lock.release()
            raise
        return lock

    def check_writable(self) -> None:
        """The run's files are regular files of this directory (not links), and the directory is writable.

        Checked before any model call, so that a read-only folder or a planted link is one line
        up front rather than an error after a paid call.
        """
        for name in (STATE, SUMMARY):
            check_regular_or_missing(self.path / name)
        for name in (MESSAGES, THOUGHTS):  # appended and cut in place: no other name may share them
            check_regular_or_missing(self.path / name, single_link=True)
        if not os.access(self.path, os.W_OK | os.X_OK):
            raise RunDirError(f"{self.path}: the run directory is not writable")

    def claim(self, lock: RunLock) -> None:
        """This process writes the directory from here on: its files checked, its writer named."""
        self.check_writable()
        try:
            lock.announce(redact_urls(command_line()))
        except OSError as exc:
            raise RunDirError(
                f"{self.path}: cannot write in the run directory ({exc.strerror or exc})"
            ) from None

    def create(self) -> RunDir:
        """Make the directory (and its parents)."""
        try:
            self.path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise RunDirError(
                f"{self.path}: cannot create the run directory ({exc.strerror or exc})"
            ) from None
        return self

    def remove_stale_temp_files(self) -> list[Path]:
        """Delete temp files left by an atomic write that a kill interrupted; returns them.

        Only the process that continues the run calls this: a live writer's temp file must stay.
        """
        removed = []
        for name in (STATE, SUMMARY):
            for tmp in self.path.glob(f".{name}.*.tmp"):
                try:
                    tmp.unlink()
                except OSError:
                    continue
                removed.append(tmp)
        return removed

    def state_store(self) -> StateStore:
        return StateStore(self.state_path, refuse=self._refusal)

    def open_messages(self) -> JsonlLog:
        """The messages log; a message id already logged is never written twice."""
        return JsonlLog(self.messages_path, unique_key="id", on_failure=self._failed)

    def open_thoughts(self) -> JsonlLog:
        return JsonlLog(self.thoughts_path, on_failure=self._failed)

    def open_changes(self) -> JsonlLog:
        return JsonlLog(self.changes_path, on_failure=self._failed)

    def _failed(self, exc: OSError) -> None:
        if self.write_failure is None:
            self.write_failure = exc

    def _refusal(self) -> str | None:
        exc = self.write_failure
        if exc is None:
            return None
        return f"a log could not be written ({exc.strerror or exc})"

    def write_summary(self, summary: dict[str, Any]) -> None:
        """Write summary.json atomically, pretty-printed."""
        atomic_write_text(self.summary_path, json.dumps(summary, ensure_ascii=False, indent=2) + "\n")

    def read_summary(self) -> dict[str, Any] | None:
        if not self.summary_path.exists():
            return None
        return safejson.loads(self.summary_path.read_bytes())


def _own_leftover(name: str) -> bool:
    """What a run killed before its first log line leaves in its folder (none of the user's)."""
    return name in (WRITER_FILE, WORKSPACE) or any(
        name.startswith(f".{kept}.") and name.endswith(".tmp") for kept in (STATE, SUMMARY)
    )


def _refuse_a_run_in(target: Path) -> None:
    """An `--out` that holds a run (continued with --resume), or anything at all (a user's own files,
    which the run's would land among; issue 37, item 6): an empty folder is used."""
    held = [name for name in RUN_FILES if os.path.lexists(target / name)]
    if STATE in held:
        raise RunDirError(f"{target} already holds a run (state.json); continue it with --resume {target}")
    if held:
        raise RunDirError(f"{target} already holds run files ({', '.join(held)}); choose another --out")
    try:  # a run killed before it logged anything leaves only its own: the writer's note, a workspace,
        # a checkpoint's temp file
        other = sorted(entry.name for entry in os.scandir(target) if not _own_leftover(entry.name))
    except OSError as exc:
        raise RunDirError(f"{target}: cannot be read ({exc.strerror or exc})") from None
    if other:
        shown = ", ".join(other[:3]) + (", ..." if len(other) > 3 else "")
        raise RunDirError(
            f"{target} is not empty and not a run directory ({shown}); give --out a new or empty folder"
        )


def check_regular_or_missing(path: Path, *, single_link: bool = False) -> None:
    """RunDirError unless `path` is missing or a regular file (a symbolic link is refused, not followed)."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise RunDirError(f"{path}: cannot be checked ({exc.strerror or exc})") from None
    if stat.S_ISLNK(info.st_mode):
        raise RunDirError(f"{path} is a symbolic link; ideaco writes only regular files in a run directory")
    if not stat.S_ISREG(info.st_mode):
        raise RunDirError(f"{path} is not a regular file")
    if single_link and info.st_nlink > 1:
        raise RunDirError(f"{path} has other hard links; ideaco writes only files of its own")
