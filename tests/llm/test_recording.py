"""RecordingLLM writes one JSON line per call; ReplayLLM answers from it without any endpoint."""

from __future__ import annotations

import json

import pytest

from ideaco.llm import OpenAIChatLLM, RecordingLLM, ReplayLLM, ReplayMiss
from ideaco.llm.recording import ReplayFileError
from tests.fakes.llm import ScriptedLLM
from tests.fakes.openai_server import Reply
from tests.llm.conftest import make_request


async def test_record_then_replay_returns_identical_answers_without_a_server(tmp_path, fake):
    path = tmp_path / "calls.jsonl"
    fake.push(
        Reply('{"mood":"a","score":1}', prompt_tokens=50, completion_tokens=9, cached_tokens=32), '"second"'
    )
    recorder = RecordingLLM(OpenAIChatLLM(fake.base_url, "sk-recorded-secret-123"), path)
    live = [
        await recorder.complete(make_request("one")),
        await recorder.complete(make_request("two", schema=None)),
    ]
    await recorder.aclose()
    fake.stop()  # nothing is listening any more

    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(lines) == 2
    assert set(lines[0]) == {"key", "tag", "model", "messages", "json_schema_name", "response"}
    assert lines[0]["key"] == make_request("one").key()
    assert lines[0]["tag"] == "alice in api-design"
    assert lines[0]["json_schema_name"] == "thought" and lines[1]["json_schema_name"] is None
    assert lines[0]["response"]["usage"] == {"prompt_tokens": 50, "completion_tokens": 9, "cached_tokens": 32}
    assert "sk-recorded-secret" not in path.read_text()

    replay = ReplayLLM(path)
    again = [
        await replay.complete(make_request("one")),
        await replay.complete(make_request("two", schema=None)),
    ]
    assert [r.content for r in again] == [r.content for r in live]
    assert again[0].usage == live[0].usage
    assert again[0].latency_ms == 0


async def test_recording_is_flushed_per_call(tmp_path):
    path = tmp_path / "sub" / "calls.jsonl"
    recorder = RecordingLLM(ScriptedLLM(["a"]), path)
    await recorder.complete(make_request())
    assert len(path.read_text().splitlines()) == 1  # readable before close
    recorder.close()


async def test_failed_calls_are_not_recorded(tmp_path):
    from ideaco.llm import LLMServerError

    path = tmp_path / "calls.jsonl"
    recorder = RecordingLLM(ScriptedLLM([LLMServerError("x")]), path)
    with pytest.raises(LLMServerError):
        await recorder.complete(make_request())
    assert not path.exists() or path.read_text() == ""


async def test_repeated_requests_get_successive_answers_then_the_last(tmp_path):
    path = tmp_path / "calls.jsonl"
    recorder = RecordingLLM(ScriptedLLM(["first", "second"]), path)
    await recorder.complete(make_request())
    await recorder.complete(make_request())
    recorder.close()
    replay = ReplayLLM(path)
    answers = [(await replay.complete(make_request())).content for _ in range(3)]
    assert answers == ["first", "second", "second"]


async def test_replay_miss_names_the_tag_key_and_file(tmp_path):
    path = tmp_path / "calls.jsonl"
    recorder = RecordingLLM(ScriptedLLM(["a"]), path)
    await recorder.complete(make_request("recorded"))
    recorder.close()
    request = make_request("never recorded", tag="bob in casual")
    with pytest.raises(ReplayMiss) as info:
        await ReplayLLM(path).complete(request)
    message = str(info.value)
    assert "bob in casual" in message and request.key()[:12] in message and str(path) in message
    assert info.value.kind == "replay_miss"


def test_replay_tolerates_a_partial_last_line_but_not_a_corrupt_middle(tmp_path):
    good = json.dumps({"key": "k", "response": {"content": "x"}})
    path = tmp_path / "calls.jsonl"
    path.write_text(good + "\n" + '{"key": "k2", "respo')
    assert len(ReplayLLM(path)) == 1
    path.write_text("garbage\n" + good + "\n")
    with pytest.raises(ValueError, match=":1:"):
        ReplayLLM(path)


def test_missing_replay_file_is_one_clear_error(tmp_path):
    with pytest.raises(FileNotFoundError, match="replay file not found"):
        ReplayLLM(tmp_path / "nope.jsonl")


async def test_a_gzip_compressed_recording_replays_the_same(tmp_path):
    import gzip

    path = tmp_path / "calls.jsonl"
    recorder = RecordingLLM(ScriptedLLM(['{"mood":"ok","score":2}']), path)
    live = await recorder.complete(make_request("one"))
    await recorder.aclose()
    packed = tmp_path / "calls.jsonl.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    replayed = await ReplayLLM(packed).complete(make_request("one"))
    assert replayed.content == live.content


# --------------------------------------------------------------------------- a recording from anyone (issue 22)

GOOD = {"key": "k", "response": {"content": "x", "usage": {"prompt_tokens": 5, "completion_tokens": 2}}}


@pytest.mark.parametrize(
    ("line", "says"),
    [
        (
            {**GOOD, "response": {**GOOD["response"], "usage": {"prompt_tokens": -5}}},
            "greater than or equal to 0",
        ),
        (
            {**GOOD, "response": {**GOOD["response"], "usage": {"prompt_tokens": 2**60}}},
            "less than 9007199254740992",
        ),
        ({**GOOD, "response": {**GOOD["response"], "usage": {"cached_tokens": "12"}}}, "valid integer"),
        ({**GOOD, "response": {**GOOD["response"], "usage": {"completion_tokens": 1.5}}}, "valid integer"),
        ({**GOOD, "response": {"content": 5}}, "response.content: Input should be a valid string"),
        ({**GOOD, "response": {"content": ["a"]}}, "response.content"),
        ({**GOOD, "response": None}, "response:"),
        ({"response": GOOD["response"]}, "key: Field required"),
        ([1, 2], "line:"),
        ({**GOOD, "response": {"content": "x" * (8 * 1024 * 1024 + 1)}}, "at most 8388608 characters"),
    ],
)
def test_a_recording_line_is_checked_as_the_live_path_checks_an_answer(tmp_path, line, says):
    path = tmp_path / "calls.jsonl"
    path.write_text(json.dumps(line) + "\n" + json.dumps(GOOD) + "\n")
    with pytest.raises(ReplayFileError, match=r"calls\.jsonl:1: not a recording line") as caught:
        ReplayLLM(path)
    assert says in str(caught.value) and "\n" not in str(caught.value)


def test_a_recording_is_read_a_line_at_a_time_within_a_decompressed_size(tmp_path, monkeypatch):
    import gzip

    from ideaco.llm import recording

    monkeypatch.setattr(recording, "MAX_REPLAY_BYTES", 1 << 20)
    packed = tmp_path / "bomb.jsonl.gz"
    with gzip.open(packed, "wb") as f:  # ~10 KB on disk, 4 MB of blank lines once decompressed
        for _ in range(4):
            f.write(b"\n" * (1 << 20))
    with pytest.raises(ReplayFileError, match=r"more than 1 MB once decompressed"):
        ReplayLLM(packed)
    monkeypatch.setattr(recording, "MAX_LINE_BYTES", 1000)
    one = tmp_path / "long.jsonl"
    one.write_text(json.dumps(GOOD) + "\n" + " " * 5000 + "\n")
    with pytest.raises(ReplayFileError, match=r"long\.jsonl:2: a line longer than"):
        ReplayLLM(one)


def test_a_damaged_gzip_recording_is_one_line(tmp_path):
    import gzip

    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress((json.dumps(GOOD) + "\n").encode() * 50)[:40])
    with pytest.raises(ReplayFileError, match=r"cut\.jsonl\.gz: cannot be read"):
        ReplayLLM(cut)
    plain = tmp_path / "plain.jsonl.gz"
    plain.write_text(json.dumps(GOOD) + "\n")  # not gzip at all
    with pytest.raises(ReplayFileError, match=r"plain\.jsonl\.gz: cannot be read"):
        ReplayLLM(plain)
