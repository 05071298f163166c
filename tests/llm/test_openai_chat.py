"""OpenAIChatLLM against the scripted fake endpoint: the cascade, grammar mode, errors, usage."""

from __future__ import annotations

import json

import pytest

from ideaco.llm import (
    LLMAuthError,
    LLMBadRequest,
    LLMConnectionError,
    LLMRateLimited,
    LLMServerError,
    LLMTimeout,
    OpenAIChatLLM,
)
from ideaco.llm.openai_chat import parse_retry_after
from tests.fakes.openai_server import ErrorReply, Reply
from tests.llm.conftest import SCHEMA, closed_port, make_request

REFUSED = ErrorReply(400, "response_format type json_schema is not supported")


async def test_json_schema_is_sent_first_with_the_schema(fake):
    fake.push('{"mood":"ok","score":3}')
    llm = OpenAIChatLLM(fake.base_url, None)
    result = await llm.complete(make_request())
    assert result.content == '{"mood":"ok","score":3}'
    sent = fake.requests[0]["response_format"]
    assert sent == {
        "type": "json_schema",
        "json_schema": {"name": "thought", "schema": SCHEMA, "strict": False},
    }
    assert "grammar" not in fake.requests[0]
    await llm.aclose()


async def test_cascade_falls_back_to_json_object_then_plain_and_remembers(fake):
    fake.push(REFUSED, ErrorReply(400, "response_format json_object unsupported"), "{}", "{}")
    llm = OpenAIChatLLM(fake.base_url, None)
    await llm.complete(make_request())
    formats = [body.get("response_format", {}).get("type") for body in fake.requests]
    assert formats == ["json_schema", "json_object", None]
    await llm.complete(make_request())
    assert "response_format" not in fake.requests[3]
    assert llm.structured_mode == "plain"


async def test_any_400_on_the_first_try_falls_back(fake):
    fake.push(ErrorReply(400, "unknown field"), "{}")
    llm = OpenAIChatLLM(fake.base_url, None)
    assert (await llm.complete(make_request())).content == "{}"
    assert fake.requests[1]["response_format"] == {"type": "json_object"}


async def test_after_success_an_unrelated_400_is_raised_not_cascaded(fake):
    fake.push("{}", ErrorReply(400, "context length exceeded"))
    llm = OpenAIChatLLM(fake.base_url, None)
    await llm.complete(make_request())
    with pytest.raises(LLMBadRequest, match="context length exceeded") as info:
        await llm.complete(make_request())
    assert info.value.status == 400 and info.value.kind == "bad_request"
    assert fake.request_count == 2 and llm.structured_mode == "json_schema"


async def test_after_success_a_format_422_still_cascades(fake):
    fake.push("{}", ErrorReply(422, "json_schema: unsupported keyword"), "{}")
    llm = OpenAIChatLLM(fake.base_url, None)
    await llm.complete(make_request())
    assert (await llm.complete(make_request())).content == "{}"
    assert fake.requests[2]["response_format"] == {"type": "json_object"}


async def test_free_text_request_sends_no_format(fake):
    fake.push("hi there")
    llm = OpenAIChatLLM(fake.base_url, None, llama_grammar=True)
    assert (await llm.complete(make_request(schema=None))).content == "hi there"
    assert "response_format" not in fake.requests[0] and "grammar" not in fake.requests[0]


async def test_grammar_mode_sends_llguidance_grammar_and_no_response_format(fake):
    fake.push('{"mood":"ok","score":1}')
    llm = OpenAIChatLLM(fake.base_url, None, llama_grammar=True)
    await llm.complete(make_request())
    body = fake.requests[0]
    assert "response_format" not in body
    prefix = "%llguidance {}\nstart: %json "
    assert body["grammar"].startswith(prefix)
    schema = json.loads(body["grammar"][len(prefix) :])
    assert schema["x-guidance"] == {"whitespace_flexible": False}
    assert schema["properties"] == SCHEMA["properties"]
    assert "x-guidance" not in SCHEMA  # the caller's schema is not mutated


async def test_sends_model_tokens_temperature_seed(fake):
    fake.push("{}")
    llm = OpenAIChatLLM(fake.base_url, None)
    await llm.complete(make_request(max_tokens=123, temperature=0.3, seed=9))
    body = fake.requests[0]
    assert (body["model"], body["max_tokens"], body["temperature"], body["seed"]) == (
        "test-model",
        123,
        0.3,
        9,
    )
    assert body["messages"][1] == {"role": "user", "content": "hello"}


async def test_usage_cached_tokens_and_latency_are_recorded(fake):
    fake.push(Reply("{}", prompt_tokens=120, completion_tokens=30, cached_tokens=100, model="served-name"))
    result = await OpenAIChatLLM(fake.base_url, None).complete(make_request())
    assert (result.usage.prompt_tokens, result.usage.completion_tokens, result.usage.cached_tokens) == (
        120,
        30,
        100,
    )
    assert result.model == "served-name"
    assert result.latency_ms > 0


async def test_cached_tokens_fall_back_to_llama_cpp_timings(fake):
    fake.push(Reply("{}", cached_tokens=None, extra={"timings": {"cache_n": 12, "prompt_n": 3}}))
    fake.push(Reply("{}", cached_tokens=7, extra={"timings": {"cache_n": 12}}))  # usage wins
    llm = OpenAIChatLLM(fake.base_url, None)
    assert (await llm.complete(make_request())).usage.cached_tokens == 12
    assert (await llm.complete(make_request())).usage.cached_tokens == 7


async def test_connection_refused_names_the_url():
    url = f"http://127.0.0.1:{closed_port()}/v1"
    with pytest.raises(LLMConnectionError, match=url) as info:
        await OpenAIChatLLM(url, None).complete(make_request())
    assert info.value.kind == "connection"


async def test_timeout_maps_to_llm_timeout(fake):
    fake.push(Reply("{}", delay=1.0))
    with pytest.raises(LLMTimeout) as info:
        await OpenAIChatLLM(fake.base_url, None, timeout=0.2).complete(make_request())
    assert info.value.kind == "timeout"


@pytest.mark.parametrize(
    ("reply", "error", "kind"),
    [
        (ErrorReply(429, headers={"Retry-After": "7"}), LLMRateLimited, "rate_limit"),
        (ErrorReply(500), LLMServerError, "server"),
        (ErrorReply(503), LLMServerError, "server"),
        (ErrorReply(401), LLMAuthError, "auth"),
        (ErrorReply(403), LLMAuthError, "auth"),
        (ErrorReply(404, "model not found"), LLMBadRequest, "bad_request"),
    ],
)
async def test_status_codes_map_to_error_kinds(fake, reply, error, kind):
    fake.push("{}", reply)  # one success first so the cascade does not swallow a 4xx
    llm = OpenAIChatLLM(fake.base_url, None)
    await llm.complete(make_request())
    with pytest.raises(error) as info:
        await llm.complete(make_request(tag="bob in casual"))
    assert info.value.kind == kind
    assert "bob in casual" in str(info.value)


async def test_rate_limit_carries_retry_after(fake):
    fake.push(ErrorReply(429, headers={"Retry-After": "7"}))
    with pytest.raises(LLMRateLimited) as info:
        await OpenAIChatLLM(fake.base_url, None).complete(make_request())
    assert info.value.retry_after == 7.0


def test_parse_retry_after_forms():
    assert parse_retry_after({"retry-after": "2.5"}) == 2.5
    assert parse_retry_after({"retry-after-ms": "1500", "retry-after": "9"}) == 1.5
    assert parse_retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}) == 0.0  # in the past
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None


async def test_api_key_never_appears_in_errors_or_repr(fake):
    key = "sk-supersecret-0123456789"
    fake.push("{}", ErrorReply(401, f"Incorrect API key provided: {key}"))
    llm = OpenAIChatLLM(fake.base_url, key)
    await llm.complete(make_request())
    with pytest.raises(LLMAuthError) as info:
        await llm.complete(make_request())
    assert "supersecret" not in str(info.value) and "supersecret" not in repr(info.value)
    assert "supersecret" not in repr(llm)
