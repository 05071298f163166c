"""Record every call to a JSONL file, and replay a run from such a file without any endpoint."""

from __future__ import annotations

import gzip
import json
import os
import stat
from collections import deque
from pathlib import Path
from typing import IO

from ideaco import safejson
from ideaco.llm import tentative
from ideaco.llm.base import LLM, ChatRequest, ChatResult, LLMError, ReplayMiss, Usage


class RecordFileError(LLMError):
    """The --record file cannot be written; found when the run opens, before any model call."""

    kind = "record"


def open_record_file(path: Path | str) -> IO[str]:
    """Open the --record file for appending: a regular file, never through a symbolic link.

    Opened when the run starts, so a path that cannot be written is one line before any call is paid.
    """
    target = Path(path)
    if target.exists() and not target.is_symlink() and not target.is_file():
        raise RecordFileError(f"--record {target} is not a regular file")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = "its folder is not a directory" if isinstance(exc, FileExistsError) else exc.strerror or exc
        raise RecordFileError(f"--record {target}: cannot be written ({reason})") from None
    try:
        fd = os.open(
            target,
            os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK,
            0o644,
        )
    except OSError as exc:
        if os.path.islink(target):
            raise RecordFileError(
                f"--record {target} is a symbolic link; give the path of a regular file"
            ) from None
        raise RecordFileError(f"--record {target}: cannot be written ({exc.strerror or exc})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RecordFileError(f"--record {target} is not a regular file")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "a", encoding="utf-8")


def record_line(request: ChatRequest, result: ChatResult) -> dict:
    """The JSON object written for one call (the request's key decides what it answers on replay)."""
    return {
        "key": request.key(),
        "tag": request.tag,
        "model": request.model,
        "messages": list(request.messages),
        "json_schema_name": request.schema_name if request.json_schema is not None else None,
        "response": {
            "content": result.content,
            "model": result.model,
            "usage": result.usage.to_dict(),
            "latency_ms": result.latency_ms,
        },
    }


class RecordingLLM:
    """Appends one JSON line per successful call to `path` (flushed at once, so a killed run keeps it).

    A tentative call's line waits until its answer is used, and is never written if it is dropped:
    the recording holds the answers the run used, so its replay needs no model.
    """

    def __init__(self, inner: LLM, path: Path | str, file: IO[str] | None = None) -> None:
        self.inner = inner
        self.path = Path(path)
        self._file: IO[str] | None = file if file is not None else open_record_file(self.path)

    async def complete(self, request: ChatRequest) -> ChatResult:
        result = await self.inner.complete(request)
        # A call made ahead of its moment is written only if its answer is used (llm/tentative.py).
        tentative.deferred(lambda: self._write(request, result))
        return result

    def _write(self, request: ChatRequest, result: ChatResult) -> None:
        if self._file is None:
            raise RecordFileError(f"--record {self.path}: the recording is closed")
        # One write per line: concurrent calls on the event loop never interleave inside a line.
        try:
            self._file.write(json.dumps(record_line(request, result), ensure_ascii=False) + "\n")
            self._file.flush()
        except OSError as exc:
            raise RecordFileError(
                f"--record {self.path}: cannot be written ({exc.strerror or exc})"
            ) from None

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    async def aclose(self) -> None:
        self.close()
        await self.inner.aclose()


class ReplayLLM:
    """Answers requests from a recording (JSON Lines, or gzip-compressed `.gz`), by request key; contacts nothing.

    Identical requests get the recorded answers in order; once those are used up the last one
    is reused. A request the recording never saw raises ReplayMiss.
    """

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._queues: dict[str, deque[dict]] = {}
        self._last: dict[str, dict] = {}
        self._load()

    def _load(self) -> None:
        try:
            if self.path.suffix == ".gz":  # a recording kept small (a sweep's, in a repository)
                with gzip.open(self.path, "rt", encoding="utf-8") as f:
                    lines = f.read().splitlines()
            else:
                lines = self.path.read_text(encoding="utf-8").splitlines()
        except FileNotFoundError:
            raise FileNotFoundError(f"replay file not found: {self.path}") from None
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                entry = safejson.loads(line)
                key, response = entry["key"], entry["response"]
                response["content"]  # noqa: B018 - a line without content is corrupt
            except (ValueError, KeyError, TypeError) as exc:
                if number == len(lines):
                    break  # a run killed mid-write leaves a partial last line: ignore it
                raise ValueError(f"{self.path}:{number}: not a recording line ({exc})") from None
            self._queues.setdefault(key, deque()).append(response)

    def __len__(self) -> int:
        return sum(len(queue) for queue in self._queues.values())

    async def complete(self, request: ChatRequest) -> ChatResult:
        key = request.key()
        queue = self._queues.get(key)
        if queue:
            response = queue.popleft()
            self._last[key] = response
        elif key in self._last:
            response = self._last[key]
        else:
            label = request.tag or "untagged request"
            raise ReplayMiss(
                f"replay miss: {label} (key {key[:12]}) is not in {self.path}; "
                "the scenario, prompts or model settings differ from the recorded run"
            )
        usage = response.get("usage") or {}
        return ChatResult(
            content=response["content"],
            model=response.get("model") or request.model,
            usage=Usage(
                prompt_tokens=int(usage.get("prompt_tokens", 0)),
                completion_tokens=int(usage.get("completion_tokens", 0)),
                cached_tokens=int(usage.get("cached_tokens", 0)),
            ),
            latency_ms=0.0,
            output_mode="replay",
        )

    async def aclose(self) -> None:
        return None
