"""Append-only JSON Lines logs (messages.jsonl, thoughts.jsonl) that survive a killed run."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import IO, Any

_CHUNK = 64 * 1024


class JsonlError(ValueError):
    """A log file with a corrupt line before its end; `str()` is one line naming file and line."""


def dumps(record: dict) -> str:
    """One compact JSON line (no newline); keys keep their insertion order; NaN is refused."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def _valid(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line), dict)
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


def repair(path: str | Path) -> int:
    """Cut a torn tail (a last line with no newline, or not a JSON object); return the bytes removed.

    Only the end of the file is read, so this costs the same however long the log is.
    """
    p = Path(path)
    if not p.exists():
        return 0
    with open(p, "r+b") as f:
        size = end = f.seek(0, os.SEEK_END)
        if end > 0:
            f.seek(end - 1)
            if f.read(1) != b"\n":  # an unterminated line was cut mid-write
                end = _last_line_start(f, end)
        while end > 0:  # a terminated line that is not JSON (e.g. zeros after a power cut)
            start = _last_line_start(f, end - 1)
            f.seek(start)
            if _valid(f.read(end - start)):
                break
            end = start
        if end < size:
            f.truncate(end)
        return size - end


def read(path: str | Path) -> list[dict]:
    """All complete records of a log; a torn last line (being written, or cut by a crash) is skipped."""
    out: list[dict] = []
    with open(path, "rb") as f:
        lines = f.read().split(b"\n")
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except ValueError:
            if n >= len(lines) - 1:  # the last line, terminated or not
                break
            raise JsonlError(f"{path}: line {n} is not valid JSON") from None
        if n == len(lines):  # no newline after it: possibly still being written
            break
        out.append(rec)
    return out


class JsonlLog:
    """An append-only log kept open in append mode; every record is flushed as it is written.

    With `unique_key`, a record whose key was already logged is skipped, so re-sending the same
    message id never duplicates it (spec 1.5). Opening an existing log repairs a torn tail first.
    """

    # Also reachable as JsonlLog.repair(path) / JsonlLog.read(path).
    repair = staticmethod(repair)
    read = staticmethod(read)

    def __init__(self, path: str | Path, unique_key: str | None = None) -> None:
        self.path = Path(path)
        self.unique_key = unique_key
        self.repaired_bytes = repair(self.path)
        self._seen: set[Any] = set()
        if unique_key is not None and self.path.exists():
            self._seen = {rec.get(unique_key) for rec in read(self.path)}
        self._f: IO[str] | None = open(self.path, "a", encoding="utf-8", newline="\n")

    def append(self, record: dict) -> bool:
        """Write one record as one line; False if it was a duplicate and skipped."""
        if self._f is None:
            raise ValueError(f"{self.path}: log is closed")
        key = record.get(self.unique_key) if self.unique_key is not None else None
        if key is not None and key in self._seen:
            return False
        line = dumps(record) + "\n"  # serialize first: a bad record must not leave half a line
        self._f.write(line)
        self._f.flush()
        if key is not None:
            self._seen.add(key)
        return True

    def sync(self) -> None:
        """Force what was written to disk (flush is enough against a killed process, not a power cut)."""
        if self._f is not None:
            os.fsync(self._f.fileno())

    def close(self) -> None:
        if self._f is not None:
            self._f.close()
            self._f = None

    def __enter__(self) -> JsonlLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
