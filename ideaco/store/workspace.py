"""A run's workspace (issue 20): `RUNDIR/workspace/<department>/<path>`, plain UTF-8 files.

The office decides what a document holds (`office/rules/documents.py` checks every path); this
writes it, atomically, and never through a link: a folder or file on the way that is a link is
refused, so nothing lands outside the workspace whatever the disk holds. `rebuild` makes the
folder hold exactly the documents it is given (a resume, whose state comes from `applied`), clearing
whatever was planted in their way (a link, a FIFO, a folder where a file goes) rather than failing.
"""

from __future__ import annotations

import os
import shutil
import stat
import unicodedata
from pathlib import Path

from ideaco.store.atomic import atomic_write_text


class WorkspaceError(OSError):
    """A document the workspace will not write (a link on its way, a path leaving the folder)."""


def _regular_text(path: Path, errors: str = "strict") -> str | None:
    """The UTF-8 text of `path` if it is a regular file (else None). It is opened without blocking
    and without following a link, and checked on the open descriptor: a FIFO or a device planted
    where a document goes is never read (an open FIFO with no writer would block a blocking read)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        return f.read().decode("utf-8", errors=errors)


class Workspace:
    """The files of one run's workspace; `key` is `<department>/<path>`."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def _target(self, key: str) -> Path:
        parts = key.split("/")
        if len(parts) < 2 or any(p in ("", ".", "..") or p.startswith(".") for p in parts) or "\\" in key:
            raise WorkspaceError(f"{key!r} is not a workspace path")
        # Letters of any script are welcome (`docs/接口文档.md`); a control or format character is not.
        if any(unicodedata.category(c).startswith("C") for c in key):
            raise WorkspaceError(f"{key!r} holds a control character")
        return self.root.joinpath(*parts)

    def _no_links(self, target: Path) -> None:
        """Every folder from the workspace down to `target`, and `target`, is no link."""
        here = self.root
        for part in (None, *target.relative_to(self.root).parts):
            here = here / part if part else here
            try:
                mode = os.lstat(here).st_mode
            except FileNotFoundError:
                return
            if stat.S_ISLNK(mode):
                raise WorkspaceError(f"{here} is a link: the workspace writes no document through one")

    def write(self, key: str, content: str) -> None:
        target = self._target(key)
        self._no_links(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        self._no_links(target)  # a link made between the check and the folder's creation
        atomic_write_text(target, content)

    def read(self, key: str) -> str | None:
        """The text of a document's file; None if it is missing, not UTF-8, or no regular file (a
        FIFO, a folder, a link: never opened for reading, so a FIFO cannot hang the reader)."""
        target = self._target(key)
        try:
            self._no_links(target)
            return _regular_text(target)
        except (OSError, UnicodeDecodeError):
            return None

    def rebuild(self, documents: dict[str, str]) -> None:
        """The workspace as `documents` say. What is in their way goes first: a link anywhere in it
        (the link only: where it points is not the workspace's), any entry that is no document's
        file (a write a kill left before its thought was logged, a FIFO, a file where a document's
        folder goes), a folder where a document goes; then each document is written unless its
        file holds that text already."""
        self._clear(documents)
        for key, content in documents.items():
            if self.read(key) != content:
                self.write(key, content)

    def _clear(self, documents: dict[str, str]) -> None:
        try:
            mode = os.lstat(self.root).st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISDIR(mode):  # a link, or a file, where the workspace goes
            self.root.unlink()
            return
        for folder, dirs, names in os.walk(self.root, followlinks=False):
            for name in list(dirs):
                path = Path(folder) / name
                if path.is_symlink():
                    path.unlink()
                    dirs.remove(name)
                elif path.relative_to(self.root).as_posix() in documents:  # a folder where a file goes
                    shutil.rmtree(path)  # inside the workspace: it removes links, never follows them
                    dirs.remove(name)
            for name in names:
                path = Path(folder) / name
                key = path.relative_to(self.root).as_posix()
                if key not in documents or not stat.S_ISREG(os.lstat(path).st_mode):
                    path.unlink()
