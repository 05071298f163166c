"""A scripted fake OpenAI-compatible chat server on 127.0.0.1, for tests and benchmarks.

It serves ``POST /v1/chat/completions`` (and ``GET /v1/models``) from a background thread, so the
real ``openai`` client, and everything built on it, can be driven without a model::

    from tests.fakes.openai_server import ErrorReply, FakeOpenAIServer, Reply

    with FakeOpenAIServer(["hello", {"shouldSpeak": False}, ErrorReply(429, headers={"Retry-After": "7"})]) as fake:
        llm = OpenAIChatLLM(fake.base_url, api_key=None)
        ...
    assert fake.requests[0]["response_format"]["type"] == "json_schema"

What each request gets (a *spec*):

- ``str``: the assistant message content.
- ``dict`` / ``list``: JSON-encoded (compact) as the content, e.g. a scripted Flow-of-Thought.
- ``Reply(content, prompt_tokens=..., completion_tokens=..., cached_tokens=..., delay=..., ...)``:
  content with explicit usage, a delay before answering, a finish_reason or model name, and
  ``extra`` fields merged into the response (e.g. llama.cpp's ``{"timings": {"cache_n": 12}}``).
- ``ErrorReply(status, message=..., body=..., headers=..., delay=...)``: an HTTP error, e.g.
  ``ErrorReply(400, "response_format is not supported")`` or ``ErrorReply(503)``.
- ``RawReply(body, status=200, chunk=..., interval=...)``: these exact bytes as the response body
  (invalid UTF-8, broken or hostile JSON), optionally dribbled ``chunk`` bytes at a time with
  ``interval`` seconds between pieces (an endpoint that keeps a connection alive byte by byte).
- a callable ``(request_body: dict) -> spec``: decides per request.

Where specs come from, for each request in order:

1. the *script* (a list given to the constructor, or added later with ``push``), consumed in order;
2. else the *handler*, a callable ``(request_body) -> spec`` (constructor or ``fake.handler = ...``);
3. else ``default`` if given;
4. else ``ErrorReply(400, "fake server: script exhausted ...")`` -- a bad request, which callers
   do not retry, so a test that under-scripts fails fast with that message.

Usage defaults are deterministic: prompt tokens = characters of all messages // 4 + 1, completion
tokens = characters of the content // 4 + 1, cached tokens 0. Every received body is kept in
``requests`` (parsed JSON, in arrival order); ``max_in_flight`` is the most requests that were being
answered at once. The server is thread-safe and can be started/stopped once (``start``/``stop`` or
``with``).
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = [
    "ErrorReply",
    "FakeOpenAIServer",
    "RawReply",
    "Reply",
    "Spec",
    "completion_body",
    "last_user_content",
]


@dataclass(frozen=True)
class Reply:
    """A successful chat completion."""

    content: str
    prompt_tokens: int | None = None  # None: derived from the request size
    completion_tokens: int | None = None  # None: derived from the content size
    cached_tokens: int | None = 0  # None: omit usage.prompt_tokens_details altogether
    delay: float = 0.0  # seconds to wait before answering (simulated latency)
    finish_reason: str = "stop"
    model: str | None = None  # None: echo the requested model
    extra: dict = field(default_factory=dict)  # merged into the response, e.g. llama.cpp's "timings"


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error. `body` wins over `message`; by default an OpenAI-style error object."""

    status: int
    message: str = ""
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


@dataclass(frozen=True)
class RawReply:
    """A response body sent byte for byte as given; see the module docstring."""

    body: bytes
    status: int = 200
    content_type: str = "application/json"
    chunk: int = 0  # >0: the body goes out in pieces of this many bytes...
    interval: float = 0.0  # ...with this many seconds between them
    delay: float = 0.0


def completion_body(content: str | bytes, **fields: Any) -> bytes:
    """The bytes of an ordinary chat completion whose content is `content` (bytes are put in as they
    are, so they can hold invalid UTF-8); `fields` are added at the top level or replace its fields."""
    marker = "\u0000CONTENT\u0000"
    payload: dict[str, Any] = {
        "id": "chatcmpl-raw",
        "object": "chat.completion",
        "created": 0,
        "model": "fake-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": marker}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        **fields,
    }
    text = json.dumps(payload, ensure_ascii=False).encode("utf-8")
    raw = content if isinstance(content, bytes) else json.dumps(content, ensure_ascii=False)[1:-1].encode()
    return text.replace(json.dumps(marker)[1:-1].encode(), raw)


Spec = str | dict | list | Reply | ErrorReply | RawReply | Callable[[dict], Any]


def last_user_content(body: dict) -> str:
    """The content of the last user message in a request body ('' if none)."""
    for message in reversed(body.get("messages") or []):
        if message.get("role") == "user":
            return str(message.get("content") or "")
    return ""


class FakeOpenAIServer:
    """The scripted fake endpoint; see the module docstring."""

    def __init__(
        self,
        script: Iterable[Spec] | None = None,
        *,
        handler: Callable[[dict], Spec] | None = None,
        default: Spec | None = None,
    ) -> None:
        self._script: deque[Spec] = deque(script or [])
        self.handler = handler
        self.default = default
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        fake = self

        class Handler(_ChatHandler):
            server_fake = fake

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.05,), name="fake-openai", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("fake server is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """What to give an OpenAI client: http://127.0.0.1:PORT/v1"""
        return f"http://127.0.0.1:{self.port}/v1"

    # -- scripting -------------------------------------------------------------------------

    def push(self, *specs: Spec) -> None:
        """Append specs to the script."""
        with self._lock:
            self._script.extend(specs)

    @property
    def remaining(self) -> int:
        """Scripted specs not yet used."""
        with self._lock:
            return len(self._script)

    @property
    def request_count(self) -> int:
        with self._lock:
            return len(self.requests)

    def _next_spec(self, body: dict) -> Spec:
        with self._lock:
            self.requests.append(body)
            served = len(self.requests)
            if self._script:
                return self._script.popleft()
        if self.handler is not None:
            return self.handler(body)
        if self.default is not None:
            return self.default
        return ErrorReply(400, f"fake server: script exhausted ({served - 1} scripted requests served)")

    def _enter(self) -> None:
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)

    def _leave(self) -> None:
        with self._lock:
            self.in_flight -= 1


def _resolve(spec: Spec, body: dict) -> Reply | ErrorReply | RawReply:
    while callable(spec) and not isinstance(spec, (Reply, ErrorReply, RawReply)):
        spec = spec(body)
    if isinstance(spec, (Reply, ErrorReply, RawReply)):
        return spec
    if isinstance(spec, str):
        return Reply(spec)
    if isinstance(spec, (dict, list)):
        return Reply(json.dumps(spec, ensure_ascii=False, separators=(",", ":")))
    raise TypeError(f"fake server: unsupported spec {spec!r}")


def _completion(reply: Reply, body: dict, number: int) -> dict:
    prompt_chars = sum(len(str(m.get("content") or "")) for m in body.get("messages") or [])
    prompt = reply.prompt_tokens if reply.prompt_tokens is not None else prompt_chars // 4 + 1
    completion = (
        reply.completion_tokens if reply.completion_tokens is not None else len(reply.content) // 4 + 1
    )
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if reply.cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": reply.cached_tokens}
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model or body.get("model") or "fake-model",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "finish_reason": reply.finish_reason,
            }
        ],
        "usage": usage,
        **reply.extra,
    }


class _ChatHandler(BaseHTTPRequestHandler):
    server_fake: FakeOpenAIServer
    protocol_version = "HTTP/1.0"  # one request per connection: nothing lingers after stop()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        return None  # keep test output clean

    def _send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (e.g. its timeout fired): nothing to answer

    def _send_raw(self, spec: RawReply) -> None:
        try:
            self.send_response(spec.status)
            self.send_header("Content-Type", spec.content_type)
            self.send_header("Content-Length", str(len(spec.body)))
            self.end_headers()
            step = spec.chunk or len(spec.body) or 1
            for start in range(0, len(spec.body), step):
                if start and spec.interval:
                    time.sleep(spec.interval)
                self.wfile.write(spec.body[start : start + step])
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its deadline passed)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        if self.path.rstrip("/").endswith("/models"):
            self._send_json(200, {"object": "list", "data": [{"id": "fake-model", "object": "model"}]})
        else:
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})

    def do_POST(self) -> None:  # noqa: N802 - stdlib naming
        fake = self.server_fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not self.path.rstrip("/").endswith("/chat/completions"):
            self._send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send_json(400, {"error": {"message": "fake server: body is not JSON"}})
            return
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            # A request cut short (a call cancelled by a stop while it was being sent) has no
            # messages: answered as a bad request, never handed to a test's handler.
            self._send_json(400, {"error": {"message": "fake server: no messages in the body"}})
            return
        fake._enter()
        try:
            spec = _resolve(fake._next_spec(body), body)
            if spec.delay > 0:
                time.sleep(spec.delay)
            if isinstance(spec, RawReply):
                self._send_raw(spec)
            elif isinstance(spec, ErrorReply):
                payload = spec.body
                if payload is None:
                    message = spec.message or f"fake error {spec.status}"
                    payload = {"error": {"message": message, "type": "fake_error", "code": spec.status}}
                self._send_json(spec.status, payload, spec.headers)
            else:
                self._send_json(200, _completion(spec, body, fake.request_count))
        finally:
            fake._leave()
