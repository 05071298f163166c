"""What a run promises on a power cut: each checkpoint forces the logs to disk before state.json."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ideaco.office.resolve.journal import RunJournal
from ideaco.store.rundir import RunDir


@pytest.fixture
def fsyncs(monkeypatch) -> list[str]:
    """The name of every file or directory os.fsync is called on, in order (the call still made)."""
    names: list[str] = []
    real = os.fsync

    def counting(fd: int) -> None:
        names.append(Path(os.readlink(f"/proc/self/fd/{fd}")).name)
        real(fd)

    monkeypatch.setattr(os, "fsync", counting)
    return names


def test_a_checkpoint_forces_both_logs_to_disk_before_it_replaces_the_state(tmp_path, fsyncs) -> None:
    journal = RunJournal(RunDir(tmp_path / "run").create())
    journal.checkpoint({"office": {"n": 0}})  # no log yet: nothing to force
    assert "messages.jsonl" not in fsyncs and "thoughts.jsonl" not in fsyncs
    journal.message({"id": "m1", "text": "hello"})
    journal.thought({"id": "t1"})
    fsyncs.clear()
    journal.checkpoint({"office": {"n": 1}})
    assert fsyncs[:2] == ["messages.jsonl", "thoughts.jsonl"]
    assert len(fsyncs) > 2, "the state's own atomic write is forced after them"
    journal.close()


def test_closing_forces_the_logs_to_disk(tmp_path, fsyncs) -> None:
    journal = RunJournal(RunDir(tmp_path / "run").create())
    journal.message({"id": "m1", "text": "hello"})
    fsyncs.clear()
    journal.close()
    assert fsyncs == ["messages.jsonl"]
