"""parse_json_lenient and ask_structured: tolerant parsing and exactly one repair turn."""

from __future__ import annotations

import pydantic
import pytest

from ideaco.llm import LLMServerError, ask_structured, parse_json_lenient
from tests.fakes.llm import ScriptedLLM
from tests.llm.conftest import make_request


class Mood(pydantic.BaseModel):
    mood: str
    score: int = pydantic.Field(ge=1, le=10)


def validate(data: dict) -> tuple[Mood, list[str]]:
    corrections = []
    if isinstance(data.get("score"), int) and data["score"] > 10:
        data = {**data, "score": 10}
        corrections.append("score clamped to 10")
    return Mood.model_validate(data), corrections


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('Sure! Here is my answer:\n```\n{"a": {"b": [1, 2]}}\n```\nHope that helps.', {"a": {"b": [1, 2]}}),
        ('I think {"a": "x}y", "b": "q\\"{"} is right.', {"a": "x}y", "b": 'q"{'}),
        ('{"a": [1, 2,], "b": 3,}', {"a": [1, 2], "b": 3}),
        ('{"a": "keep, }"}', {"a": "keep, }"}),
        ('{"a": 1}}', {"a": 1}),
        ('{"a": 1} trailing words', {"a": 1}),
        ('Use {curly braces} like this: {"a": 1}', {"a": 1}),
    ],
)
def test_parse_json_lenient_accepts(text, expected):
    assert parse_json_lenient(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty"),
        ("no json here", "no JSON object"),
        ('{"a": "unfinished', "truncated"),
        ('{"a": [1, 2', "truncated"),
        ("[1, 2]", "no JSON object"),
        ('{"a" 1}', "invalid JSON"),
    ],
)
def test_parse_json_lenient_rejects_with_a_short_reason(text, reason):
    with pytest.raises(ValueError, match=reason):
        parse_json_lenient(text)


def test_a_truncated_object_is_not_mistaken_for_its_inner_object():
    with pytest.raises(ValueError, match="truncated"):
        parse_json_lenient('{"messages": [{"content": "hi"}], "memoryOps": [')


async def test_fenced_json_with_prose_needs_no_repair():
    llm = ScriptedLLM(['Here you go:\n```json\n{"mood": "calm", "score": 12}\n```'])
    answer = await ask_structured(llm, make_request(), validate)
    assert answer.ok and answer.value == Mood(mood="calm", score=10)
    assert answer.corrections == ["score clamped to 10"]
    assert len(answer.results) == 1 and answer.error is None


async def test_truncated_json_triggers_one_repair_then_succeeds():
    truncated = '{"mood": "tir'
    llm = ScriptedLLM([truncated, '{"mood": "tired", "score": 4}'])
    request = make_request()
    answer = await ask_structured(llm, request, validate)
    assert answer.value == Mood(mood="tired", score=4)
    assert answer.raw == '{"mood": "tired", "score": 4}'
    assert len(answer.corrections) == 1 and answer.corrections[0].startswith("repair: truncated")
    repair = llm.requests[1]
    assert repair.messages[: len(request.messages)] == request.messages
    assert repair.messages[-2] == {"role": "assistant", "content": truncated}
    assert repair.messages[-1]["role"] == "user"
    assert repair.messages[-1]["content"].startswith("Your answer was not valid: truncated")
    assert repair.messages[-1]["content"].endswith("Reply again with only the corrected JSON object.")
    assert repair.json_schema == request.json_schema
    assert answer.usage.prompt_tokens == 20 and len(answer.results) == 2


async def test_validation_error_is_repaired_with_the_field_named():
    llm = ScriptedLLM(['{"mood": "ok"}', '{"mood": "ok", "score": 2}'])
    answer = await ask_structured(llm, make_request(), validate)
    assert answer.ok
    assert "score" in answer.corrections[0] and "Field required" in answer.corrections[0]
    assert "score: Field required" in llm.requests[1].messages[-1]["content"]


async def test_failed_repair_gives_no_value_and_an_error():
    llm = ScriptedLLM(["not json at all", '{"mood": 5, "score": "x"}', "never asked"])
    answer = await ask_structured(llm, make_request(), validate)
    assert answer.value is None and not answer.ok
    assert answer.error is not None and answer.error.startswith("invalid after repair")
    assert answer.raw == '{"mood": 5, "score": "x"}'
    assert answer.corrections == ["repair: no JSON object found"]
    assert len(llm.requests) == 2  # exactly one repair


async def test_llm_errors_propagate():
    with pytest.raises(LLMServerError):
        await ask_structured(ScriptedLLM([LLMServerError("down")]), make_request(), validate)
    with pytest.raises(LLMServerError):
        await ask_structured(ScriptedLLM(["bad", LLMServerError("down")]), make_request(), validate)
