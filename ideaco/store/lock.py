"""One writer per run directory: an OS-level lock on the directory itself.

`fcntl.flock` on a descriptor of the run directory, not on a lock file: the kernel drops the lock
the moment its holder exits, however it exits (SIGKILL included), so a stale lock is taken over by
simply taking it, with no pid guessing and no lock file to clean up; and a writer that is refused
creates nothing in the directory. (`filelock` would lock a separate file it truncates on every
attempt, which would wipe the holder's details this module keeps for the refusal message.)

Who holds the lock is written, once the holder has checked the directory, to `.ideaco-writer.json`
so that a refused writer can name it (pid, command, since when). Readers (`inspect`, `report`)
never take the lock and never wait for it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import sys
from datetime import datetime
from pathlib import Path

from ideaco.errors import IdeacoError
from ideaco.store.atomic import atomic_write_text

WRITER_FILE = ".ideaco-writer.json"
_MAX_WRITER_BYTES = 4096


class RunLockedError(IdeacoError, ValueError):
    """Another process writes this run directory; `str()` is one line naming it (for the user)."""


def command_line(argv: list[str] | None = None) -> str:
    """This process's command as a user would recognise it (`ideaco run ...`); redact before showing."""
    args = list(sys.argv if argv is None else argv)
    if args:
        args[0] = Path(args[0]).name
        if args[0] in ("__main__.py", "-c", "-m"):
            args[0] = "ideaco"
    return " ".join(args)


class RunLock:
    """The lock on one run directory, held from `acquire()` until `release()` (or the process ends)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self._fd: int | None = fd
        self._announced = False

    @classmethod
    def acquire(cls, path: str | Path) -> RunLock:
        """Take the lock without waiting; RunLockedError naming the holder if another process has it."""
        directory = Path(path)
        try:
            fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except OSError as exc:
            raise RunLockedError(
                f"{directory}: cannot open the run directory ({exc.strerror or exc})"
            ) from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise RunLockedError(f"{directory} is in use: {describe_holder(directory)}") from None
            raise RunLockedError(
                f"{directory}: cannot lock the run directory ({exc.strerror or exc})"
            ) from None
        return cls(directory, fd)

    def announce(self, command: str) -> None:
        """Say who holds the lock (for a refused writer's message). Call once the directory is ours."""
        if self._fd is None:
            raise ValueError(f"{self.path}: the lock was released")
        info = {"pid": os.getpid(), "command": command, "since": datetime.now().isoformat(timespec="seconds")}
        atomic_write_text(self.path / WRITER_FILE, json.dumps(info, ensure_ascii=True) + "\n")
        self._announced = True

    def release(self) -> None:
        """Forget the holder's details, then drop the lock (in that order: the next holder's stay)."""
        if self._fd is None:
            return
        if self._announced:
            with contextlib.suppress(OSError):
                os.unlink(self.path / WRITER_FILE)
        fd, self._fd = self._fd, None
        os.close(fd)  # closing the only descriptor releases the flock

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def read_holder(path: str | Path) -> dict | None:
    """The holder's details as it wrote them, or None (not written yet, a link, or unreadable)."""
    target = Path(path) / WRITER_FILE
    try:
        fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as f:
            raw = f.read(_MAX_WRITER_BYTES + 1)
    except OSError:
        return None
    if len(raw) > _MAX_WRITER_BYTES:
        return None
    try:
        info = json.loads(raw)
    except ValueError:
        return None
    return info if isinstance(info, dict) else None


def writer_alive(path: str | Path) -> bool:
    """Whether a live process says it writes this run directory (read only: the lock is not touched)."""
    pid = (read_holder(path) or {}).get("pid")
    if not isinstance(pid, int) or pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False  # killed without releasing: its details stayed behind
    except OSError:
        return True  # alive, another user's
    return not _zombie(pid)


def _zombie(pid: int) -> bool:
    """Whether a process has ended but not been reaped yet (it answers signal 0, yet writes nothing)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False  # no /proc here: trust the signal
    return stat.rsplit(")", 1)[-1].split()[:1] == ["Z"]


def describe_holder(path: str | Path) -> str:
    """One phrase naming who writes the directory: pid, command and since when, as far as known."""
    info = read_holder(path)
    if info is None:
        return "another ideaco process is writing it (it is still starting); wait for it to finish"
    parts = []
    if isinstance(info.get("pid"), int):
        parts.append(f"pid {info['pid']}")
    if isinstance(info.get("command"), str):
        parts.append(repr(_printable(info["command"])))
    if isinstance(info.get("since"), str):
        parts.append(f"since {_printable(info['since'])}")
    held = ", ".join(parts) if parts else "details unknown"
    return f"another ideaco process is writing it ({held}); wait for it to finish or stop it first"


def _printable(text: str, limit: int = 200) -> str:
    clean = "".join(ch if ch.isprintable() else "?" for ch in text)
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"
