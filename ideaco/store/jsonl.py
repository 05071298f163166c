"""Append-only JSON Lines logs (messages.jsonl, thoughts.jsonl) that survive a killed run."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ideaco import safejson

_CHUNK = 64 * 1024
# Every record is a JSON object: a torn last line ideaco wrote starts with this byte.
_RECORD_START = b"{"


class JsonlError(ValueError):
    """A log file with a corrupt line before its end; `str()` is one line naming file and line."""


def open_own(path: str | Path, flags: int, mode: int = 0o644) -> int:
    """A descriptor on a log of the run directory: never through a symbolic link, only a regular
    file with no other hard link (appending or cutting would change the other name's file too).
    """
    p = Path(path)
    try:
        fd = os.open(p, flags | os.O_NOFOLLOW | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0), mode)
    except OSError as exc:
        if os.path.islink(p):
            raise JsonlError(
                f"{p} is a symbolic link; ideaco writes only regular files in a run directory"
            ) from None
        raise JsonlError(f"{p}: cannot be opened for writing ({exc.strerror or exc})") from None
    info = os.fstat(fd)
    problem = None
    if not stat.S_ISREG(info.st_mode):
        problem = "is not a regular file"
    elif info.st_nlink > 1:
        problem = "has other hard links; ideaco writes only files of its own"
    if problem is not None:
        os.close(fd)
        raise JsonlError(f"{p} {problem}")
    if hasattr(os, "O_NONBLOCK"):  # only there so that opening a FIFO cannot hang: back to blocking
        os.set_blocking(fd, True)
    return fd


def dumps(record: dict) -> str:
    """One compact JSON line (no newline); keys keep their insertion order; NaN is refused."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _valid(line: bytes) -> bool:
    try:
        return isinstance(safejson.loads(line), dict)
    except ValueError:
        return False


def _last_line_start(f: IO[bytes], end: int) -> int:
    """Offset where the line ending at `end` (exclusive) starts, scanning back in chunks."""
    pos = end
    while pos > 0:
        step = min(_CHUNK, pos)
        f.seek(pos - step)
        chunk = f.read(step)
        idx = chunk.rfind(b"\n")
        if idx >= 0:
            return pos - step + idx + 1
        pos -= step
    return 0


def _torn(fragment: bytes) -> bool:
    """Whether cut bytes are what a killed write leaves: the start of one record, or zeros."""
    text = fragment.strip(b"\x00 \t\r\n")
    return not text or text.startswith(_RECORD_START)


def repair(path: str | Path) -> int:
    """Cut a torn tail (a last line with no newline, or not a JSON object); return the bytes removed.

    Only the end of the file is read, so this costs the same however long the log is. Only what
    a killed write leaves is cut: the start of one record (lines of zeros after a power cut
    aside); any other tail is refused (JsonlError), as is a link or a file with other names.
    """
    p = Path(path)
    if not os.path.lexists(p):
        return 0
    with os.fdopen(open_own(p, os.O_RDWR), "r+b") as f:
        size = end = f.seek(0, os.SEEK_END)
        records = 0  # non-blank lines cut: a killed write tears one
        if end > 0:
            f.seek(end - 1)
            if f.read(1) != b"\n":  # an unterminated line was cut mid-write
                start = _last_line_start(f, end)
                f.seek(start)
                records += _cut(p, f.read(end - start))
                end = start
        while end > 0:  # a terminated line that is not JSON (e.g. zeros after a power cut)
            start = _last_line_start(f, end - 1)
            f.seek(start)
            line = f.read(end - start)
            if _valid(line):
                break
            records += _cut(p, line)
            end = start
        if records > 1:
            raise JsonlError(f"{p}: its last lines are not records ideaco wrote; not cutting them")
        if end < size:
            f.truncate(end)
        return size - end


def _cut(path: Path, fragment: bytes) -> int:
    """1 if `fragment` holds a torn record, 0 if only zeros; JsonlError if it is not ideaco's."""
    if not _torn(fragment):
        raise JsonlError(f"{path}: its last line is not a record ideaco wrote; not cutting it")
    return 1 if fragment.strip(b"\x00 \t\r\n") else 0


def read(path: str | Path) -> list[dict]:
    """All complete records of a log; a torn last line (being written, or cut by a crash) is skipped."""
    return [record for _n, record in read_numbered(path)]


def read_numbered(path: str | Path) -> list[tuple[int, Any]]:
    """`read`, each line's JSON value with its line number (for a reader that names a line it skips)."""
    out: list[tuple[int, Any]] = []
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = safejson.loads(line)
        except safejson.Unsafe as exc:  # never a torn write: refused wherever it is
            raise JsonlError(f"{path}: line {n} is not a record ideaco can read ({exc})") from None
        except ValueError:
            if n >= len(lines) - 1:  # the last line, terminated or not
                break
            raise JsonlError(f"{path}: line {n} is not valid JSON") from None
        if n == len(lines):  # no newline after it: possibly still being written
            break
        out.append((n, rec))
    return out


class JsonlLog:
    """An append-only log; every record goes to the file in one write as it is logged.

    With `unique_key`, a record whose key was already logged is skipped, so re-sending the same
    message id never duplicates it (spec 1.5). Opening an existing log repairs a torn tail first.
    Writes go straight to the descriptor (no buffer): a write the OS refuses (disk full, file too
    large) is an OSError at once, `on_failure` is told, and nothing is retried on close.
    """

    def __init__(
        self,
        path: str | Path,
        unique_key: str | None = None,
        on_failure: Callable[[OSError], None] | None = None,
    ) -> None:
        self.path = Path(path)
        self.unique_key = unique_key
        self.on_failure = on_failure
        repair(self.path)
        self._seen: set[Any] = set()
        if unique_key is not None and self.path.exists():
            self._seen = {rec.get(unique_key) for rec in read(self.path)}
        self._fd: int | None = open_own(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)

    def append(self, record: dict) -> bool:
        """Write one record as one line; False if it was a duplicate and skipped."""
        if self._fd is None:
            raise ValueError(f"{self.path}: log is closed")
        key = record.get(self.unique_key) if self.unique_key is not None else None
        if key is not None and key in self._seen:
            return False
        line = dumps(record) + "\n"  # serialize first: a bad record must not leave half a line
        try:
            data = line.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate from somewhere: replaced, the line still written
            data = safejson.clean_text(line).encode("utf-8")
        try:
            view = memoryview(data)
            while view:  # O_APPEND: a short write's rest still lands at the end
                view = view[os.write(self._fd, view) :]
        except OSError as exc:
            exc.filename = exc.filename or str(self.path)  # os.write names no file
            if self.on_failure is not None:
                self.on_failure(exc)
            raise
        if key is not None:
            self._seen.add(key)
        return True

    def sync(self) -> None:
        """Force what was written to disk (each write reaches the OS at once; this survives a power cut).

        Called at every checkpoint before state.json is replaced, and on close (`office/resolve/journal.py`).
        """
        if self._fd is not None:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __enter__(self) -> JsonlLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
