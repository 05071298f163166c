"""Fixtures for the llm tests: a running scripted fake endpoint and a request factory."""

from __future__ import annotations

import socket

import pytest

from ideaco.llm import ChatRequest
from tests.fakes.openai_server import FakeOpenAIServer

SCHEMA = {
    "type": "object",
    "properties": {"mood": {"type": "string", "maxLength": 20}, "score": {"type": "integer"}},
    "required": ["mood", "score"],
}


@pytest.fixture
def fake():
    with FakeOpenAIServer() as server:
        yield server


def make_request(
    text: str = "hello", *, schema: dict | None = SCHEMA, tag: str = "alice in api-design", **kw
) -> ChatRequest:
    return ChatRequest(
        messages=({"role": "system", "content": "You are Alice."}, {"role": "user", "content": text}),
        model=kw.pop("model", "test-model"),
        json_schema=schema,
        tag=tag,
        **kw,
    )


def closed_port() -> int:
    """A loopback port nothing listens on (bound, read, released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])
