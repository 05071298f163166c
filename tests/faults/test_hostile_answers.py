"""Model answers are data, never a crash (issue 11, item 3).

An endpoint can send anything: JSON nested a hundred thousand deep, floods of brackets or commas,
NaN and Infinity, lone surrogates, megabytes, invalid UTF-8 in the body, bodies that are not a
chat completion at all. Whatever arrives, the run goes on (exit 0): the answer ends as a logged
thought (repaired, clamped) or a logged error of a known kind, the employee thinks again later and
answers the boss, and every log stays valid UTF-8 JSON with nothing lost or duplicated.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, RawReply, completion_body
from tests.faults.conftest import asked

SCENARIO = """\
company: Acme Labs
duration: 15m
start: "2026-01-05T09:00:00"
employees:
  - {id: alice, name: Alice, role: Frontend engineer, archetype: anxious-perfectionist}
script:
  - {at: "00:00", to: "boss:alice", text: "Alice, REST or GraphQL?"}
"""
DEEP = 100_000
KNOWN_KINDS = {"server", "invalid_output"}


def good(text: str) -> dict[str, Any]:
    return {
        "innerThoughts": "fine",
        "topicSaturation": 3,
        "interestLevel": 7,
        "shouldSpeak": True,
        "reason": "asked",
        "messages": [{"content": text}],
    }


def wrap(inner: str) -> str:
    """A thought whose memoryOps field holds `inner` verbatim."""
    return (
        '{"innerThoughts": "x", "topicSaturation": 3, "interestLevel": 5, "shouldSpeak": true, "memoryOps": '
        + inner
        + "}"
    )


# What the first answer to Alice is; the repair turn (for content) is answered the same way, so
# the think ends as an invalid answer, logged, and Alice thinks again later.
CONTENT = {
    "nested a hundred thousand deep": wrap("[" * DEEP + "]" * DEEP),
    "nested objects": '{"a":' * DEEP + "1" + "}" * DEEP,
    "a bracket flood, never closed": "[" * 400_000,
    "a brace flood, never closed": "{" * 400_000,
    "a comma flood": "{" + "," * 400_000 + "}",
    "NaN": wrap("NaN"),
    "Infinity": '{"innerThoughts": "x", "topicSaturation": Infinity, "interestLevel": 5, "shouldSpeak": false}',
    "a number too large for a float": '{"innerThoughts": "x", "topicSaturation": 1e999, "interestLevel": 5, "shouldSpeak": false}',
    "two megabytes": json.dumps(good("x" * 2_000_000)),
    "a lone surrogate escape in a JSON string": "",  # accepted: see CONTENT_ACCEPTED
}
# Answers that are fine once made safe: the thought is kept, with what could not be written replaced.
CONTENT_ACCEPTED = {
    "a lone surrogate escape in a JSON string": json.dumps(good("half \ud83d of an emoji")),
}
BODIES = {
    "a body nested a hundred thousand deep": completion_body("{}", x=0).replace(
        b'"x": 0', b'"x": ' + b"[" * DEEP + b"]" * DEEP
    ),
    "a body that is not JSON": b"<html>502 bad gateway</html>",
    "an empty body": b"",
    "a body that is a JSON list": b"[1, 2, 3]",
    "choices that are a string": b'{"choices": "none"}',
    "no choices": b'{"choices": []}',
    "a choice without a message": b'{"choices": [{"index": 0, "finish_reason": "stop"}]}',
    "a body with NaN": completion_body("{}").replace(b'"prompt_tokens": 10', b'"prompt_tokens": NaN'),
    "a body of nine megabytes": b'{"pad": "' + b"x" * 9_000_000 + b'"}',
}
# Bodies whose answer is usable: odd types and numbers are read leniently, the thought is kept.
BODIES_ACCEPTED = {
    "invalid UTF-8 as the whole content (then repaired)": completion_body(b"\xff\xfe not text"),
    "invalid UTF-8 in the body's own fields": completion_body(json.dumps(good("ok"))).replace(
        b'"fake-model"', b'"m\xe9\xff"'
    ),
    "content that is an object, not a string": json.dumps(
        {"choices": [{"message": {"role": "assistant", "content": good("as an object")}}]}
    ).encode(),
    "usage counts that are strings and floats": completion_body(
        json.dumps(good("odd usage")),
        usage={
            "prompt_tokens": "many",
            "completion_tokens": 1e300,
            "prompt_tokens_details": {"cached_tokens": -4},
        },
    ),
    "invalid UTF-8 inside a string of the thought": completion_body(
        json.dumps(good("REST: the caf__ team's clients already speak it."))
    ).replace(b"caf__", b"caf\xe9 \xff"),
}


class FirstAnswer:
    """The first request (and its repair) gets the hostile answer; every later one a good thought."""

    def __init__(self, hostile: Any, *, repeat: int) -> None:
        self.hostile, self.left = hostile, repeat
        self.lock = threading.Lock()

    def __call__(self, body: dict) -> Any:
        with self.lock:
            if self.left > 0:
                self.left -= 1
                return self.hostile
        request = asked(body)
        return good(f"{request.name} answers")


def run_office(ideaco, tmp_path: Path, hostile: Any, repeat: int) -> tuple[Any, dict[str, list[dict]]]:
    scenario = tmp_path / "office.yaml"
    scenario.write_text(SCENARIO)
    out = tmp_path / "run"
    with FakeOpenAIServer(handler=FirstAnswer(hostile, repeat=repeat)) as fake:
        result = ideaco(
            "run", scenario, "--base-url", fake.base_url, "--out", out, env={"IDEACO_RETRIES": "1"}
        )
    logs = {}
    for name in ("messages.jsonl", "thoughts.jsonl"):
        raw = (out / name).read_bytes()
        text = raw.decode("utf-8")  # strict: the logs are valid UTF-8, whatever came in
        logs[name] = [json.loads(line) for line in text.splitlines()]
    logs["summary"] = [json.loads((out / "summary.json").read_text())]
    return result, logs


def check_the_run_went_on(result, logs: dict[str, list[dict]]) -> dict:
    assert result.exit_code == 0, result.output
    assert "Traceback" not in result.output
    messages, thoughts = logs["messages.jsonl"], logs["thoughts.jsonl"]
    ids = [m["id"] for m in messages]
    assert len(ids) == len(set(ids)) and ids[0] == "script-1"
    assert any(m["sender"] == "alice" and m["conversation"] == "boss:alice" for m in messages), (
        "Alice never answered the boss after the hostile answer"
    )
    summary = logs["summary"][0]
    assert summary["thoughts"] == len(thoughts) and summary["messages"] == len(messages)
    return thoughts[0]


@pytest.mark.parametrize("case", [c for c in CONTENT if c not in CONTENT_ACCEPTED])
def test_hostile_content_is_a_logged_invalid_thought_and_the_run_goes_on(ideaco, tmp_path, case) -> None:
    result, logs = run_office(ideaco, tmp_path, CONTENT[case], repeat=2)  # the answer and its repair
    first = check_the_run_went_on(result, logs)
    assert first["gate"] == "error" and first["thought"] is None
    assert first["error"].startswith("invalid after repair: "), first["error"]
    assert first["corrections"][0].startswith("repair: ")
    assert first["llm"]["calls"] == 2
    assert set(logs["summary"][0]["errors_by_kind"]) <= KNOWN_KINDS


@pytest.mark.parametrize("case", list(CONTENT_ACCEPTED))
def test_content_made_safe_is_kept_as_a_thought(ideaco, tmp_path, case) -> None:
    result, logs = run_office(ideaco, tmp_path, CONTENT_ACCEPTED[case], repeat=1)
    first = check_the_run_went_on(result, logs)
    assert first["gate"] is None and first["spoke"], first
    said = next(m for m in logs["messages.jsonl"] if m["id"] in first["messages"])
    assert said["text"].startswith("half ") and said["text"].endswith(" of an emoji")
    assert "\ufffd" in said["text"]


@pytest.mark.parametrize("case", list(BODIES))
def test_a_hostile_body_is_a_logged_server_error_and_the_run_goes_on(ideaco, tmp_path, case) -> None:
    result, logs = run_office(ideaco, tmp_path, RawReply(BODIES[case]), repeat=1)
    first = check_the_run_went_on(result, logs)
    assert first["gate"] == "error" and first["thought"] is None, first
    assert "returned no choices" in first["error"] or "bad response from" in first["error"], first["error"]
    assert logs["summary"][0]["errors_by_kind"] == {"server": 1}


@pytest.mark.parametrize("case", list(BODIES_ACCEPTED))
def test_an_odd_but_usable_body_is_read_leniently(ideaco, tmp_path, case) -> None:
    result, logs = run_office(ideaco, tmp_path, RawReply(BODIES_ACCEPTED[case]), repeat=1)
    first = check_the_run_went_on(result, logs)
    assert first["gate"] is None and first["spoke"], first
    assert all(
        isinstance(first["llm"][k], int) and first["llm"][k] >= 0 for k in ("prompt_tokens", "cached_tokens")
    )
