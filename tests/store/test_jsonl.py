"""Append-only JSONL logs: one compact line per record, torn tails repaired (spec 1.5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ideaco.store.jsonl import JsonlError, JsonlLog, read, repair


def test_append_writes_one_compact_line_per_record_in_key_order(tmp_path: Path):
    path = tmp_path / "m.jsonl"
    with JsonlLog(path) as log:
        log.append({"id": "m1", "text": "héllo, 世界", "n": 1})
        log.append({"z": 1, "a": 2})
        # Flushed as it goes: another reader sees it before close (a killed run keeps it).
        assert path.read_text(encoding="utf-8").count("\n") == 2
    assert path.read_text(encoding="utf-8") == '{"id":"m1","text":"héllo, 世界","n":1}\n{"z":1,"a":2}\n'
    assert read(path) == [{"id": "m1", "text": "héllo, 世界", "n": 1}, {"z": 1, "a": 2}]


def test_reopening_appends(tmp_path: Path):
    path = tmp_path / "m.jsonl"
    with JsonlLog(path) as log:
        log.append({"i": 1})
    with JsonlLog(path) as log:
        log.append({"i": 2})
    assert read(path) == [{"i": 1}, {"i": 2}]


def test_a_record_that_is_not_json_writes_nothing(tmp_path: Path):
    path = tmp_path / "m.jsonl"
    with JsonlLog(path) as log:
        with pytest.raises((TypeError, ValueError)):
            log.append({"bad": object()})
        with pytest.raises(ValueError):
            log.append({"bad": float("nan")})
        log.append({"ok": True})
    assert read(path) == [{"ok": True}]


def test_unique_key_never_duplicates_even_across_reopen(tmp_path: Path):
    path = tmp_path / "m.jsonl"
    with JsonlLog(path, unique_key="id") as log:
        assert log.append({"id": "a", "text": "1"}) is True
        assert log.append({"id": "a", "text": "again"}) is False
    with JsonlLog(path, unique_key="id") as log:
        assert log.append({"id": "a", "text": "resent"}) is False
        assert log.append({"id": "b"}) is True
    assert [r["id"] for r in read(path)] == ["a", "b"]


def test_read_skips_a_torn_last_line(tmp_path: Path):
    path = tmp_path / "m.jsonl"
    path.write_text('{"i":1}\n{"i":2}\n{"i":3,"te')
    assert read(path) == [{"i": 1}, {"i": 2}]


def test_read_skips_an_unterminated_last_line_even_if_it_parses(tmp_path: Path):
    path = tmp_path / "m.jsonl"
    path.write_text('{"i":1}\n{"i":2}')
    assert read(path) == [{"i": 1}]


def test_read_refuses_corruption_in_the_middle(tmp_path: Path):
    path = tmp_path / "m.jsonl"
    path.write_text('{"i":1}\ngarbage\n{"i":3}\n')
    with pytest.raises(JsonlError, match=r"m.jsonl: line 2 is not valid JSON"):
        read(path)


@pytest.mark.parametrize(
    ("content", "kept"),
    [
        ('{"i":1}\n{"i":2}\n', '{"i":1}\n{"i":2}\n'),  # nothing torn
        ('{"i":1}\n{"i":2}\n{"i":3,"te', '{"i":1}\n{"i":2}\n'),  # half a line
        ('{"i":1}\n{"i":2}', '{"i":1}\n'),  # no newline after the last record
        ('{"i":1}\n{"i":2\n', '{"i":1}\n'),  # terminated but not JSON
        ('{"i":1}\n\x00\x00\x00', '{"i":1}\n'),  # zeros after a power cut
        ('{"i":1', ""),  # a single torn line
        ("", ""),
    ],
)
def test_repair_truncates_only_the_torn_tail(tmp_path: Path, content: str, kept: str):
    path = tmp_path / "m.jsonl"
    path.write_bytes(content.encode())
    assert repair(path) == len(content.encode()) - len(kept.encode())
    assert path.read_bytes() == kept.encode()


def test_repair_of_a_missing_file_is_a_no_op(tmp_path: Path):
    assert repair(tmp_path / "none.jsonl") == 0
    assert not (tmp_path / "none.jsonl").exists()


def test_repair_finds_the_line_start_across_read_chunks(tmp_path: Path):
    path = tmp_path / "m.jsonl"
    long_record = json.dumps({"text": "x" * 200_000}, separators=(",", ":"))
    path.write_text(f'{{"i":1}}\n{long_record}\n{long_record[:150_000]}')
    assert repair(path) == 150_000
    assert read(path) == [{"i": 1}, {"text": "x" * 200_000}]


def test_opening_for_append_repairs_first(tmp_path: Path):
    path = tmp_path / "m.jsonl"
    path.write_text('{"i":1}\n{"i":2,"x')
    with JsonlLog(path) as log:
        assert path.read_text() == '{"i":1}\n'  # the torn tail cut before anything is appended
        log.append({"i": 3})
    assert read(path) == [{"i": 1}, {"i": 3}]
