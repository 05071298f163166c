"""An agent command as a call: one request per document, answered by running the command, or by a recording.

An agent employee's document (issue 20, item 6) is made like a model's answer: an `AgentRequest`
says what runs (the command, its time limit) and what it reads (the piece, the path, the relevant
documents, a digest of the department's files); `CommandLLM` answers it by running the command
(`command.produce_document`, in a worker thread so the office's other calls go on; a cancelled
call, as a stop cancels calls in flight, kills the command at once), and its answer is the
outcome as JSON. Because it is a request like any other, `--record` writes its
line and `--replay` answers it from the recording without running anything, so a replay
rebuilds the same workspace. The department's files travel beside the request (`files`), never
in its key: a run directory's path or a file the command does not change keeps a key stable.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from ideaco import safejson
from ideaco.agents.command import MAX_OUTPUT_BYTES, AgentOutcome, AgentSpec, produce_document, stdin_text
from ideaco.llm.base import ChatRequest, ChatResult, LLMError
from ideaco.redact import NO_SECRETS, Secrets

MODEL = "agent-command"  # the request's model: never a chat model's name


@dataclass(frozen=True)
class AgentRequest(ChatRequest):
    """A request for one document by an agent command; `files` (path -> text) are the department's."""

    files: tuple[tuple[str, str], ...] = ()


def request_for(
    spec: AgentSpec, files: Mapping[str, str], piece: str, path: str, documents: Mapping[str, str], tag: str
) -> AgentRequest:
    """The request whose answer is the document at `path` the command writes (or why it did not)."""
    digest = hashlib.sha256(json.dumps(sorted(files.items()), ensure_ascii=False).encode("utf-8")).hexdigest()
    command = {"command": [str(p) for p in spec.command], "timeout_s": spec.timeout_s, "path": path}
    if spec.env:  # the names only (never their values): a recording holds no secret
        command["env"] = list(spec.env)
    return AgentRequest(
        messages=(
            {"role": "system", "content": json.dumps(command, ensure_ascii=False)},
            {"role": "user", "content": stdin_text(piece, path, documents)},
            {"role": "user", "content": f"workspace sha256 {digest}"},
        ),
        model=MODEL,
        max_tokens=0,
        temperature=0.0,
        json_schema=None,
        tag=tag,
        files=tuple(sorted(files.items())),
    )


@dataclass(frozen=True)
class _Spec:
    command: tuple[str, ...]
    timeout_s: float
    env: tuple[str, ...] = ()


class _Outcome(BaseModel):
    """An answer's outcome, as `_answer` writes it: checked before it is believed (a recording is anyone's)."""

    model_config = ConfigDict(strict=True)

    ok: bool
    content: Annotated[str, Field(max_length=MAX_OUTPUT_BYTES)] | None
    reason: Annotated[str, Field(max_length=MAX_OUTPUT_BYTES)]
    ran: bool
    source: Literal["", "file", "stdout"] = ""

    @model_validator(mode="after")
    def _content_when_ok(self) -> _Outcome:
        if self.ok != (self.content is not None):
            raise ValueError("content is given when (and only when) ok is true")
        return self


def _checked(content: str) -> _Outcome | str:
    """The outcome an answer's content holds, or the one-line problem with it."""
    try:
        data = safejson.loads(content)
    except ValueError as exc:
        return (
            f"an agent command's outcome is not JSON ({str(exc).splitlines()[0] if str(exc) else 'invalid'})"
        )
    if not isinstance(data, dict):
        return "an agent command's outcome is not a JSON object"
    try:
        return _Outcome.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        return f"an agent command's outcome: {where + ': ' if where else ''}{err['msg']}"


def outcome_problem(content: str) -> str | None:
    """What is wrong with an answer's content as an agent command's outcome (None: nothing)."""
    checked = _checked(content)
    return checked if isinstance(checked, str) else None


def outcome_of(result: ChatResult) -> AgentOutcome:
    """The outcome an answer (live or replayed) carries; LLMError with one line if it holds none."""
    checked = _checked(result.content)
    if isinstance(checked, str):
        raise LLMError(checked)
    return AgentOutcome(checked.ok, checked.content, checked.reason, checked.ran, checked.source)


def _answer(outcome: AgentOutcome, started: float) -> ChatResult:
    body = {
        "ok": outcome.ok,
        "content": outcome.content,
        "reason": outcome.reason,
        "ran": outcome.ran,
        "source": outcome.source,
    }
    latency = (time.monotonic() - started) * 1000
    return ChatResult(content=json.dumps(body, ensure_ascii=False), model=MODEL, latency_ms=latency)


def _produce(request: AgentRequest, secrets: Secrets, cancel: threading.Event) -> AgentOutcome:
    """Run the request's command on a scratch copy of the department's files it carries."""
    command = json.loads(request.messages[0]["content"])
    spec = _Spec(tuple(command["command"]), command["timeout_s"], tuple(command.get("env") or ()))
    stdin = request.messages[1]["content"]
    return produce_document(spec, dict(request.files), command["path"], stdin, secrets=secrets, cancel=cancel)


class CommandLLM:
    """Answers `AgentRequest`s by running their command (only ever built with --allow-agent-commands).

    `secrets`: the run's own (its key, its endpoints' URL credentials): no command sees them, and
    they are scrubbed from its outcome before the office, the logs or a --record file see it."""

    def __init__(self, secrets: Secrets = NO_SECRETS) -> None:
        self.secrets = secrets

    async def complete(self, request: ChatRequest) -> ChatResult:
        if not isinstance(request, AgentRequest):
            raise TypeError("CommandLLM answers agent requests only")
        started = time.monotonic()
        cancel = threading.Event()
        work = asyncio.ensure_future(asyncio.to_thread(_produce, request, self.secrets, cancel))
        try:
            outcome = await asyncio.shield(work)
        except asyncio.CancelledError:  # a stop: the command is killed, and the call cut like a model's
            cancel.set()
            await asyncio.wait({work})  # its process group gone (one poll) before the stop goes on
            raise
        return _answer(outcome, started)

    async def aclose(self) -> None:
        return None
