"""A zero-latency scripted model behind a lean OpenAI-compatible HTTP server, in its own process.

Why not `tests/fakes/openai_server.py`: that one is a thread in the caller's process (it would
share the GIL with the engine it measures) and speaks HTTP/1.0, one connection per request, so
its own overhead would dominate a per-thought cost of a few milliseconds. This one is an asyncio
HTTP/1.1 keep-alive server in a subprocess:

    with FakeModel(policy="plausible") as fake:     # fake.base_url -> http://127.0.0.1:PORT/v1
        ...                                         # run an office against it
        fake.stats()                                # calls, tokens, cached tokens, largest prompt
        fake.reset(policy="silent")                 # new policy, counters and cache cleared

Usage it reports, per request: prompt tokens = characters of the messages // 4 + 1, completion
tokens = characters of the answer // 4 + 1, and cached tokens from a simulated *per-employee
prefix cache*: the longest common prefix (in characters // 4) between this prompt and any of the
same employee's last CACHE_DEPTH prompts (the employee is the system message's first line). That
is an idealised provider cache (OpenAI, DeepSeek, vLLM cache shared prefixes; llama.cpp keeps one
per slot): a prompt can only be served from it up to its first character that changed. A second,
what-if count (`cached_tokens_clock_last`) is kept for the same prompts with the user message's
first line (the clock and the trigger note) moved to its end, and a third
(`cached_tokens_rules_first`) with, in addition, the system message's rules before its scene.

The policies (`silent`, `plausible`, `eager`) live in `scripted.py`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import urllib.request
from collections import defaultdict, deque
from typing import Any

from benchmarks.scripted import POLICIES, interview, is_interview, silent

CACHE_DEPTH = 8
REPAIR_MARK = "Your answer was not valid"

# --------------------------------------------------------------------------- usage and cache


def _common_prefix(a: str, b: str) -> int:
    """Length of the common prefix (binary search on slice equality: C speed)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _serve(previous: deque[str], text: str) -> int:
    """Characters of `text` a cache holding `previous` serves; `text` joins the cache."""
    hit = max((_common_prefix(text, old) for old in previous), default=0)
    previous.append(text)
    return hit


def clock_last(text: str) -> str:
    """The prompt with the user message's first line (clock and trigger note) moved to its end."""
    head, _, rest = text.partition("\nuser:")
    line, _, after = rest.partition("\n")
    return f"{head}\nuser:{after}\n{line}"


def rules_first(text: str) -> str:
    """`clock_last`, and the system message's rules (same for every conversation) before its scene."""
    text = clock_last(text)
    scene_at, rules_at = text.find("\n## Where you are\n"), text.find("\n## Rules\n")
    end = text.find("\nuser:")
    if -1 in (scene_at, rules_at, end) or not scene_at < rules_at < end:
        return text
    return text[:scene_at] + text[rules_at:end] + text[scene_at:rules_at] + text[end:]


WHAT_IF = {"cached_tokens_clock_last": clock_last, "cached_tokens_rules_first": rules_first}


class Model:
    """The scripted model's state: policy, per-employee prefix cache, counters."""

    def __init__(self, policy: str = "plausible", latency: float = 0.0) -> None:
        self.latency = latency  # seconds each chat completion takes (a fixed, plausible model's)
        self.reset(policy)

    def reset(self, policy: str | None = None) -> None:
        if policy is not None:
            if policy not in POLICIES:
                raise ValueError(f"unknown policy {policy!r}")
            self.policy = policy
        self.cache: dict[str, deque[str]] = defaultdict(lambda: deque(maxlen=CACHE_DEPTH))
        self.what_if: dict[str, dict[str, deque[str]]] = {
            name: defaultdict(lambda: deque(maxlen=CACHE_DEPTH)) for name in WHAT_IF
        }
        self.stats: dict[str, int] = {
            "calls": 0,
            "prompt_tokens": 0,
            "completion_tokens": 0,
            "cached_tokens": 0,
            "cached_tokens_clock_last": 0,
            "cached_tokens_rules_first": 0,
            "max_prompt_tokens": 0,
            "spoke": 0,
        }
        self.flight = InFlight()

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or []
        last = str(messages[-1].get("content") or "") if messages else ""
        if is_interview(body):
            thought = interview(body)
        else:
            thought = silent(body) if last.startswith(REPAIR_MARK) else POLICIES[self.policy](body)
        content = json.dumps(thought, separators=(",", ":"))
        text = "\n".join(f"{m.get('role')}:{m.get('content')}" for m in messages)
        key = str(messages[0].get("content") or "").split("\n", 1)[0] if messages else ""
        cached_chars = _serve(self.cache[key], text)
        prompt, completion, cached = len(text) // 4 + 1, len(content) // 4 + 1, cached_chars // 4
        s = self.stats
        for name, reorder in WHAT_IF.items():
            s[name] += _serve(self.what_if[name][key], reorder(text)) // 4
        s["calls"] += 1
        s["prompt_tokens"] += prompt
        s["completion_tokens"] += completion
        s["cached_tokens"] += cached
        s["max_prompt_tokens"] = max(s["max_prompt_tokens"], prompt)
        s["spoke"] += bool(thought.get("shouldSpeak"))
        return {
            "id": f"chatcmpl-bench-{s['calls']}",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model") or "bench",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            ],
            "usage": {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "prompt_tokens_details": {"cached_tokens": cached},
            },
        }


class InFlight:
    """Chat completions being answered: how many at once (the peak) and for how long in all."""

    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.busy_s = 0.0  # the sum over calls of their duration (call-seconds)
        self.first: float | None = None  # monotonic time of the first call's start
        self.last: float | None = None  # and of the last call's end

    def begin(self, at: float) -> None:
        self.now += 1
        self.peak = max(self.peak, self.now)
        self.first = at if self.first is None else self.first

    def end(self, began: float, at: float) -> None:
        self.now -= 1
        self.busy_s += at - began
        self.last = at

    def to_dict(self) -> dict[str, float]:
        span = (self.last - self.first) if self.first is not None and self.last is not None else 0.0
        return {"peak_in_flight": self.peak, "busy_s": round(self.busy_s, 3), "span_s": round(span, 3)}


# --------------------------------------------------------------------------- HTTP/1.1 server


def _response(status: int, payload: Any) -> bytes:
    data = json.dumps(payload).encode("utf-8")
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}.get(status, "Error")
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
    )
    return head.encode("ascii") + data


async def _serve_connection(model: Model, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
                request_line, *header_lines = head.decode("latin-1").split("\r\n")
                headers = {}
                for line in header_lines:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers[k.strip().lower()] = v.strip()
                length = int(headers.get("content-length") or 0)
                raw = await reader.readexactly(length) if length else b""
            except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
                return  # the client went away
            method, path = request_line.split(" ")[:2]
            try:
                body = json.loads(raw) if raw else {}
                if method == "POST" and path.endswith("/chat/completions"):
                    loop = asyncio.get_running_loop()
                    began = loop.time()
                    model.flight.begin(began)
                    try:
                        answer = model.answer(body)
                        if model.latency > 0:
                            await asyncio.sleep(model.latency)
                    finally:
                        model.flight.end(began, loop.time())
                    out = _response(200, answer)
                elif method == "POST" and path.endswith("/control"):
                    model.reset(body.get("policy"))
                    out = _response(200, {"policy": model.policy})
                elif method == "GET" and path.endswith("/stats"):
                    out = _response(200, {**model.stats, **model.flight.to_dict()})
                elif method == "GET" and path.endswith("/models"):
                    out = _response(200, {"object": "list", "data": [{"id": "bench", "object": "model"}]})
                else:
                    out = _response(404, {"error": {"message": f"no route {path}"}})
            except Exception as exc:  # a benchmark bug must show, not hang the client
                out = _response(400, {"error": {"message": f"fake model: {exc!r}"}})
            writer.write(out)
            try:
                await writer.drain()
            except ConnectionError:
                return
            if headers.get("connection", "").lower() == "close":
                return
    finally:
        writer.close()


async def serve(policy: str, port: int = 0, latency: float = 0.0) -> None:
    model = Model(policy, latency)
    server = await asyncio.start_server(lambda r, w: _serve_connection(model, r, w), "127.0.0.1", port)
    print(f"PORT {server.sockets[0].getsockname()[1]}", flush=True)
    async with server:
        await server.serve_forever()


# --------------------------------------------------------------------------- the client side


class FakeModel:
    """The server as a subprocess; `base_url` for an OpenAI client, `stats()` and `reset()`."""

    def __init__(self, policy: str = "plausible", latency: float = 0.0) -> None:
        self.policy = policy
        self.latency = latency
        self._proc: subprocess.Popen[str] | None = None
        self.port = 0

    def start(self) -> FakeModel:
        self._proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "benchmarks.fake_model",
                "--policy",
                self.policy,
                "--latency",
                str(self.latency),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        line = self._proc.stdout.readline() if self._proc.stdout else ""
        if not line.startswith("PORT "):
            self.stop()
            raise RuntimeError(f"fake model did not start: {line!r}")
        self.port = int(line.split()[1])
        return self

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.terminate()
            proc.wait(timeout=10)

    def __enter__(self) -> FakeModel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def _call(self, path: str, payload: dict | None = None) -> dict[str, Any]:
        data = json.dumps(payload).encode() if payload is not None else None
        req = urllib.request.Request(
            f"{self.base_url}{path}", data=data, headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=10) as resp:
            return json.loads(resp.read())

    def stats(self) -> dict[str, int]:
        return self._call("/stats")

    def reset(self, policy: str | None = None) -> None:
        self._call("/control", {"policy": policy})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="plausible", choices=sorted(POLICIES))
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds each answer takes")
    args = parser.parse_args()
    try:
        asyncio.run(serve(args.policy, args.port, args.latency))
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
