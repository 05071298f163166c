"""Bounded JSON reading (issue 11): depth, NaN/Infinity and lone surrogates refused or replaced."""

from __future__ import annotations

import json

import pytest

from ideaco import safejson


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("[" * 100_000 + "]" * 100_000, "nested deeper than 64"),
        ('{"a":' * 65 + "1" + "}" * 65, "nested deeper than 64"),
        ('{"x": NaN}', "NaN"),
        ('{"x": -Infinity}', "-Infinity"),
        ('{"x": 1e400}', "too large"),
    ],
)
def test_unsafe_json_is_refused_with_a_reason(text: str, reason: str) -> None:
    with pytest.raises(safejson.Unsafe, match=reason):
        safejson.loads(text)


def test_the_depth_limit_holds_on_both_sides() -> None:
    assert safejson.loads('{"a":' * 64 + "1" + "}" * 64)  # 64 levels: the limit itself
    with pytest.raises(safejson.Unsafe):
        safejson.loads('{"a":' * 65 + "1" + "}" * 65)


def test_bad_json_is_a_plain_value_error() -> None:
    with pytest.raises(json.JSONDecodeError):
        safejson.loads('{"a": tru')


def test_invalid_utf8_and_lone_surrogates_are_replaced_so_the_value_can_be_written_again() -> None:
    value = safejson.loads(b'{"caf\xe9": ["\\ud800 half", "\xff"], "ok": "\\ud83d\\ude00"}')
    assert value == {"caf\ufffd": ["\ufffd\ufffd\ufffd half", "\ufffd"], "ok": "\U0001f600"}
    json.dumps(value, ensure_ascii=False).encode("utf-8")  # no UnicodeEncodeError


def test_ordinary_json_is_unchanged() -> None:
    text = '{"a": [1, 2.5, "x", null, true, {"b": []}]}'
    assert safejson.loads(text) == json.loads(text)
