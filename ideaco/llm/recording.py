"""Record every call to a JSONL file, and replay a run from such a file without any endpoint."""

from __future__ import annotations

import gzip
import json
import os
import stat
import zlib
from collections import deque
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, Annotated, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ideaco import safejson
from ideaco.llm import tentative
from ideaco.llm.base import LLM, ChatRequest, ChatResult, LLMError, ReplayMiss, Usage
from ideaco.llm.openai_chat import MAX_BODY_BYTES


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

    def beside(self, inner: LLM) -> RecordingLLM:
        """Another caller's calls recorded in the same file (an agent command's, agents/runner.py)."""
        return RecordingLLM(inner, self.path, self._file)

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


class ReplayFileError(LLMError, ValueError):
    """A --replay file that cannot be used; `str()` is one line naming the file (and the line)."""

    kind = "replay"


# A recording is read a line at a time: its decompressed size is bounded (a 3 MB .gz once grew to
# 2.5 GB in memory), and so is each line (one request and its answer, well under an answer's own
# MAX_BODY_BYTES of text plus its prompt).
MAX_REPLAY_BYTES = 512 << 20
MAX_LINE_BYTES = 2 * MAX_BODY_BYTES
_CHUNK = 1 << 20


class _Usage(BaseModel):
    model_config = ConfigDict(strict=True)

    prompt_tokens: Annotated[int, Field(ge=0, lt=2**53)] = 0
    completion_tokens: Annotated[int, Field(ge=0, lt=2**53)] = 0
    cached_tokens: Annotated[int, Field(ge=0, lt=2**53)] = 0


class _Response(BaseModel):
    """What a recorded call answered, checked as the live path checks an endpoint's answer."""

    model_config = ConfigDict(strict=True)

    content: Annotated[str, Field(max_length=MAX_BODY_BYTES)]
    model: str | None = None
    usage: _Usage = Field(default_factory=_Usage)


class _Line(BaseModel):
    key: Annotated[str, Field(min_length=1, max_length=200)]
    model: str | None = None  # the request's (an agent command's answers: agents/runner.MODEL)
    response: _Response


# What a request of a model answers with, checked where its line is read (one line naming the
# problem, None when sound): an agent command's outcome is checked as the live path writes it.
AnswerCheck = Callable[[str], str | None]


class _Entry(NamedTuple):
    number: int  # its line in the file
    model: str | None  # the request model it was recorded for (checked as its answer)
    response: _Response


def _problem(exc: ValidationError) -> str:
    err = exc.errors()[0]
    return f"{'.'.join(str(p) for p in err['loc']) or 'line'}: {err['msg']}"


class ReplayLLM:
    """Answers requests from a recording (JSON Lines, or gzip-compressed `.gz`), by request key; contacts nothing.

    Identical requests get the recorded answers in order; once those are used up the last one
    is reused. A request the recording never saw raises ReplayMiss. The file is read line by line,
    each line checked (`_Line`, and its answer by `checks`, by the request's model) before it is
    kept; a bad line, a file past MAX_REPLAY_BYTES once
    decompressed, or a damaged .gz is ReplayFileError, one line naming the file.
    """

    def __init__(self, path: Path | str, checks: Mapping[str, AnswerCheck] | None = None) -> None:
        self.path = Path(path)
        self._checks = dict(checks or {})  # by request model: how its answers are checked
        self._queues: dict[str, deque[_Entry]] = {}
        self._last: dict[str, _Entry] = {}
        self._load()

    def _size(self, opener: Callable[..., IO[bytes]]) -> int:
        """The recording's size once decompressed, counted without keeping it (a .gz bomb stops here)."""
        if opener is open:
            return self.path.stat().st_size
        total = 0
        with opener(self.path, "rb") as f:
            while chunk := f.read(_CHUNK):
                total += len(chunk)
                if total > MAX_REPLAY_BYTES:
                    break
        return total

    def _fits(self, number: int, line: bytes) -> None:
        if len(line) > MAX_LINE_BYTES:
            raise ReplayFileError(
                f"--replay {self.path}:{number}: a line longer than {MAX_LINE_BYTES >> 20} MB"
            )

    def _lines(self) -> Iterator[tuple[int, bytes]]:
        opener: Callable[..., IO[bytes]] = gzip.open if self.path.suffix == ".gz" else open  # type: ignore[assignment]
        try:
            if self._size(opener) > MAX_REPLAY_BYTES:
                raise ReplayFileError(
                    f"--replay {self.path}: more than {MAX_REPLAY_BYTES >> 20} MB once decompressed; "
                    "not a recording ideaco wrote for one run"
                )
            with opener(self.path, "rb") as f:
                number, rest = 0, b""
                while chunk := f.read(_CHUNK):
                    *lines, rest = (rest + chunk).split(b"\n")
                    for line in lines:
                        number += 1
                        self._fits(number, line)
                        yield number, line
                    self._fits(number + 1, rest)
                if rest:
                    yield number + 1, rest
        except FileNotFoundError:
            raise FileNotFoundError(f"replay file not found: {self.path}") from None
        except (OSError, EOFError, zlib.error) as exc:  # a damaged or cut .gz, an unreadable file
            raise ReplayFileError(f"--replay {self.path}: cannot be read ({exc})") from None

    def _load(self) -> None:
        torn: tuple[int, str] | None = None  # a bad line is forgiven only as the last (a killed write)
        for number, raw in self._lines():
            if torn is not None:
                raise ReplayFileError(f"--replay {self.path}:{torn[0]}: not a recording line ({torn[1]})")
            if not raw.strip():
                continue
            try:
                entry = _Line.model_validate(safejson.loads(raw))
            except ValidationError as exc:
                torn = (number, _problem(exc))
                continue
            except ValueError as exc:  # not JSON, not UTF-8, nested too deep
                torn = (number, str(exc).splitlines()[0] if str(exc) else "not JSON")
                continue
            if (problem := self._problem(entry.model, entry.response)) is not None:
                raise ReplayFileError(f"--replay {self.path}:{number}: not a recording line ({problem})")
            self._queues.setdefault(entry.key, deque()).append(_Entry(number, entry.model, entry.response))

    def _problem(self, model: str | None, response: _Response) -> str | None:
        check = self._checks.get(model or "")
        problem = check(response.content) if check is not None else None
        return f"response.content: {problem}" if problem else None

    def __len__(self) -> int:
        return sum(len(queue) for queue in self._queues.values())

    async def complete(self, request: ChatRequest) -> ChatResult:
        key = request.key()
        queue = self._queues.get(key)
        if queue:
            entry = queue.popleft()
            self._last[key] = entry
        elif key in self._last:
            entry = self._last[key]
        else:
            label = request.tag or "untagged request"
            raise ReplayMiss(
                f"replay miss: {label} (key {key[:12]}) is not in {self.path}; "
                "the scenario, prompts or model settings differ from the recorded run"
            )
        response = entry.response
        if entry.model != request.model and (problem := self._problem(request.model, response)):
            # A line whose model says otherwise answers this request: checked as this model's now.
            raise ReplayFileError(f"--replay {self.path}:{entry.number}: not a recording line ({problem})")
        usage = response.usage
        return ChatResult(
            content=response.content,
            model=response.model or request.model,
            usage=Usage(
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                cached_tokens=usage.cached_tokens,
            ),
            latency_ms=0.0,
        )

    async def aclose(self) -> None:
        return None
