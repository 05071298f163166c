"""An agent command's scratch folder in the temp folder, and the ones a killed run left behind.

Each run of a command gets `ideaco-agent-*` (the copy of the department's files, its stdin, its
output), removed when the run ends. A process that is killed (SIGKILL, a crash, a power cut)
cannot remove it, so the folder is locked while in use: `flock` on its descriptor, which the
kernel drops when the process dies, however it dies; `.owned` says the lock was taken.
`remove_stale` (when a run that may run commands starts) removes this user's folders that are
owned and no longer locked, after killing what still runs inside them (a command whose ideaco
was killed, and its background children, on Linux where /proc says where a process runs). A
folder not yet locked (being made this instant by another run) is left alone.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PREFIX = "ideaco-agent-"
OWNED = ".owned"  # written once the folder is locked: a folder without it is being made


@contextmanager
def scratch_folder() -> Iterator[Path]:
    """A new scratch folder, locked until it is removed on leaving (whatever happened inside)."""
    path = Path(tempfile.mkdtemp(prefix=PREFIX))
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        (path / OWNED).touch()
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)  # before the lock goes: never seen stale while in use
        os.close(fd)


def remove_stale(root: Path | None = None) -> list[Path]:
    """Remove the scratch folders killed runs left under `root` (the temp folder); those removed."""
    base = root or Path(tempfile.gettempdir())
    removed = []
    for path in sorted(base.glob(PREFIX + "*")):
        try:
            if path.is_symlink() or not path.is_dir() or path.stat().st_uid != os.getuid():
                continue
            if not (path / OWNED).is_file():
                continue
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                continue  # a live run's
            _kill_inside(path)
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        finally:
            os.close(fd)
    return removed


def _kill_inside(folder: Path) -> None:
    """SIGKILL this user's processes whose working directory is inside `folder` (Linux; elsewhere none)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return
    inside = str(folder.resolve())
    for entry in proc.iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:  # gone, or another user's
            continue
        if cwd == inside or cwd.startswith(inside + os.sep):
            try:
                os.kill(int(entry.name), signal.SIGKILL)
            except OSError:
                pass
