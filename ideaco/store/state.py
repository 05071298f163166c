"""The run state (state.json) in TinyDB, checkpointed atomically and only when asked (spec 1.5).

TinyDB's default JSONStorage rewrites the whole file on every insert, which is quadratic over a long
run. Here writes stay in memory (a caching middleware that never flushes on its own) until `save()`
checkpoints: one atomic write of the current state, however many saves came before.

The `meta` table's `layout_version` is this file's layout (TinyDB tables and their shapes); what the
office keeps in it has its own `office.format_version` (`office/core/state.OFFICE_FORMAT`), the one format number a
reader asks about. Files written before the two had different names say `meta.format_version`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tinydb import TinyDB
from tinydb.middlewares import CachingMiddleware
from tinydb.storages import Storage

from ideaco import safejson
from ideaco.store.atomic import atomic_write_bytes

LAYOUT_VERSION = 1  # state.json's layout, its TinyDB tables and their shapes (meta.layout_version)
META_TABLE = "meta"


class StateError(ValueError):
    """A state file that cannot be read or written; `str()` is one line naming the file."""


class StateVersionError(StateError):
    """state.json was written by an incompatible format version."""


class AtomicJSONStorage(Storage):
    """A TinyDB storage that replaces its file atomically (temp file, fsync, `os.replace`).

    Nothing is created until the first write, so opening a store leaves no half-made file.
    """

    def __init__(self, path: str | Path, **_: Any) -> None:
        self.path = Path(path)

    def read(self) -> dict[str, dict[str, Any]] | None:
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StateError(f"{self.path}: cannot be read ({exc.strerror or exc})") from None
        if not raw.strip():
            return None
        try:  # bounded: NaN, Infinity or nesting without end is a doctored file, not a state
            data = safejson.loads(raw)
        except ValueError as exc:
            raise StateError(f"{self.path}: not a valid state file ({exc})") from None
        if not isinstance(data, dict):
            raise StateError(f"{self.path}: not a valid state file (not a JSON object)")
        return data

    def write(self, data: dict[str, dict[str, Any]]) -> None:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        try:
            atomic_write_bytes(self.path, text.encode("utf-8"))
        except OSError as exc:
            raise StateError(f"{self.path}: could not be written ({exc.strerror or exc})") from exc

    def close(self) -> None:
        pass


class CheckpointMiddleware(CachingMiddleware):
    """CachingMiddleware that writes only on `flush()`/`close()`, never on its own mid-save.

    The stock one flushes every 1000 writes, which could put a half-applied save on disk.
    """

    WRITE_CACHE_SIZE = math.inf  # type: ignore[assignment]

    def close(self) -> None:
        # Only an explicit flush() writes (StateStore.save does): closing after a save the OS
        # refused (disk full) must not try it again, and leaves the file as the last good save.
        self.storage.close()


class _NotJson(Exception):
    """Raised inside the fast copy; `to_json` then walks again to name the path."""


def _copy(value: Any) -> Any:
    # The common case, exact built-in types, without building a path string for every value.
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if kind is float:
        if not math.isfinite(value):
            raise _NotJson
        return value
    if kind is dict:
        out = {}
        for k, v in value.items():
            if type(k) is not str:
                raise _NotJson
            out[k] = _copy(v)
        return out
    if kind is list or kind is tuple:
        return [_copy(v) for v in value]
    raise _NotJson  # anything else (subclasses included): the careful walk decides


def to_json(value: Any, where: str = "state") -> Any:
    """A deep copy of `value` with JSON types only (tuples become lists); TypeError names the path.

    Copying also means later changes to the caller's objects cannot leak into the cached state.
    """
    try:
        return _copy(value)
    except _NotJson:
        return _to_json(value, where)


def _to_json(value: Any, where: str) -> Any:
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise TypeError(f"{where}: {value} is not valid JSON")
        return value
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: key {k!r} is not a string (JSON would turn it into one)")
            out[k] = _to_json(v, f"{where}[{k!r}]")
        return out
    if isinstance(value, (list, tuple)):
        return [_to_json(v, f"{where}[{i}]") for i, v in enumerate(value)]
    raise TypeError(f"{where}: {type(value).__name__} is not a JSON type")


class StateStore:
    """The run's state.json as TinyDB tables; `save()` replaces tables and checkpoints once.

    A table given as a dict is stored as one document; a list of dicts as one document each. The
    `meta` table records the format version and each table's shape, so `load()` returns what was saved.
    """

    def __init__(self, path: str | Path, refuse: Callable[[], str | None] | None = None) -> None:
        self.path = Path(path)
        self.refuse = refuse  # says why the state must not be saved now (None: it may)
        self.db = TinyDB(self.path, storage=CheckpointMiddleware(AtomicJSONStorage))

    def load(self) -> dict[str, Any] | None:
        """The saved state as plain dicts and lists, or None if nothing was saved yet."""
        tables = self.db.storage.read()
        if tables is None:
            return None
        meta = self._meta()
        found = meta.get("layout_version", meta.get("format_version"))  # the old name, before 2026-12
        if found != LAYOUT_VERSION:
            raise StateVersionError(
                f"{self.path}: state layout version {found if found is not None else 'missing'} "
                f"is not supported (this ideaco reads version {LAYOUT_VERSION})"
            )
        shapes: dict[str, str] = meta.get("tables", {})
        names = list(shapes) + sorted(n for n in self.db.tables() if n not in shapes and n != META_TABLE)
        out: dict[str, Any] = {}
        for name in names:
            docs = sorted(self.db.table(name).all(), key=lambda d: d.doc_id)
            if shapes.get(name) == "dict":
                out[name] = to_json(dict(docs[0])) if docs else {}
            else:
                out[name] = [to_json(dict(d)) for d in docs]
        return out

    def save(self, state: dict[str, dict | list]) -> None:
        """Replace the content of each table in `state` (others are kept) and write the file once."""
        why = self.refuse() if self.refuse is not None else None
        if why:
            raise StateError(f"{self.path}: not saved: {why}")
        clean = to_json(state)  # before touching the db: a bad value must not leave a half-applied save
        shapes = dict(self._meta().get("tables", {}))
        for name, content in clean.items():
            if name == META_TABLE:
                raise ValueError(f"state table name {META_TABLE!r} is reserved")
            if isinstance(content, dict):
                docs, shapes[name] = [content], "dict"
            elif isinstance(content, list):
                bad = next((i for i, d in enumerate(content) if not isinstance(d, dict)), None)
                if bad is not None:
                    raise TypeError(f"state[{name!r}][{bad}]: a list table holds JSON objects only")
                docs, shapes[name] = content, "list"
            else:
                raise TypeError(f"state[{name!r}]: a table is a dict or a list of dicts")
            clean[name] = docs
        for name, docs in clean.items():
            table = self.db.table(name)
            table.truncate()
            if docs:
                table.insert_multiple(docs)
        meta = self.db.table(META_TABLE)
        meta.truncate()
        meta.insert({"layout_version": LAYOUT_VERSION, "tables": shapes})
        self.flush()

    def flush(self) -> None:
        """Write pending changes (one atomic write) if there are any."""
        self.db.storage.flush()

    def close(self) -> None:
        self.db.close()

    def _meta(self) -> dict[str, Any]:
        docs = self.db.table(META_TABLE).all()
        return dict(docs[0]) if docs else {}

    def __enter__(self) -> StateStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
