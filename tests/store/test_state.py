"""The state store: TinyDB tables checkpointed atomically, one write per save (spec 1.5)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ideaco.store.state import LAYOUT_VERSION, StateError, StateStore, StateVersionError

STATE = {
    "employees": {"alice": {"persona": {"id": "anxious-perfectionist"}, "stamina": {"patience": 100}}},
    "tasks": [{"id": "task-1", "status": "pending"}, {"id": "task-2", "status": "resolved"}],
    "clock": {"now": "2026-01-05T09:00:00"},
    "cursors": {},
    "empty": [],
}


def test_nothing_saved_yet_loads_none_and_writes_nothing(tmp_path: Path):
    store = StateStore(tmp_path / "state.json")
    assert store.load() is None
    store.close()
    assert not (tmp_path / "state.json").exists()


def test_save_load_round_trip(tmp_path: Path):
    path = tmp_path / "state.json"
    with StateStore(path) as store:
        store.save(STATE)
        assert store.load() == STATE
    with StateStore(path) as store:  # and from disk
        loaded = store.load()
    assert loaded == STATE
    assert list(loaded) == list(STATE)
    assert json.loads(path.read_text())["meta"]["1"]["layout_version"] == LAYOUT_VERSION


def test_save_replaces_table_content(tmp_path: Path):
    with StateStore(tmp_path / "state.json") as store:
        store.save(STATE)
        store.save({"tasks": [{"id": "task-9"}], "employees": {}})
        loaded = store.load()
    assert loaded["tasks"] == [{"id": "task-9"}]
    assert loaded["employees"] == {}
    assert loaded["clock"] == STATE["clock"]  # tables not named are kept


def test_tables_are_queryable_through_tinydb(tmp_path: Path):
    from tinydb import Query

    with StateStore(tmp_path / "state.json") as store:
        store.save(STATE)
        assert store.db.table("tasks").search(Query().status == "pending") == [STATE["tasks"][0]]


def test_saved_state_does_not_alias_the_callers_objects(tmp_path: Path):
    state = {"clock": {"now": "t0"}, "tasks": [{"id": "a", "tags": ("x", "y")}]}
    with StateStore(tmp_path / "state.json") as store:
        store.save(state)
        state["clock"]["now"] = "changed"
        loaded = store.load()
        loaded["clock"]["now"] = "changed too"
        assert store.load()["clock"] == {"now": "t0"}
        assert loaded["tasks"][0]["tags"] == ["x", "y"]  # tuples are stored as lists


@pytest.mark.parametrize(
    "bad",
    [
        {"clock": {"now": object()}},
        {"clock": {1: "int key"}},
        {"clock": {"x": float("inf")}},
        {"tasks": ["not a dict"]},
        {"clock": "not a table"},
    ],
)
def test_non_json_state_is_refused_before_anything_changes(tmp_path: Path, bad: dict):
    with StateStore(tmp_path / "state.json") as store:
        store.save(STATE)
        with pytest.raises(TypeError):
            store.save({"employees": {}, **bad})
        assert store.load() == STATE


def test_crash_during_write_leaves_the_old_file_intact(tmp_path: Path, monkeypatch):
    path = tmp_path / "state.json"
    with StateStore(path) as store:
        store.save(STATE)
    before = path.read_bytes()

    def crash(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", crash)
    store = StateStore(path)
    with pytest.raises(StateError, match=r"state.json: could not be written \(No space left on device\)"):
        store.save({"clock": {"now": "later"}})
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]  # no temp file left behind
    monkeypatch.undo()
    store.close()


def test_version_mismatch_names_file_and_both_versions(tmp_path: Path):
    path = tmp_path / "state.json"
    with StateStore(path) as store:
        store.save(STATE)
    data = json.loads(path.read_text())
    data["meta"]["1"]["layout_version"] = 99
    path.write_text(json.dumps(data))
    with pytest.raises(StateVersionError) as err, StateStore(path) as store:
        store.load()
    assert str(err.value) == f"{path}: state layout version 99 is not supported (this ideaco reads version 1)"


def test_one_format_version_key_and_a_file_of_the_old_name_still_loads(tmp_path: Path):
    path = tmp_path / "state.json"
    with StateStore(path) as store:
        store.save({"office": {"format_version": 2}})
    text = path.read_text()
    assert text.count('"format_version"') == 1  # the office's; the layout's is layout_version
    data = json.loads(text)
    data["meta"]["1"]["format_version"] = data["meta"]["1"].pop("layout_version")  # as written before
    path.write_text(json.dumps(data))
    with StateStore(path) as store:
        assert store.load() == {"office": {"format_version": 2}}


def test_a_file_that_is_not_a_state_file(tmp_path: Path):
    path = tmp_path / "state.json"
    path.write_text("{not json")
    with pytest.raises(StateError, match="state.json: not a valid state file"), StateStore(path) as store:
        store.load()


def test_each_save_writes_the_current_state_once_not_the_history(tmp_path: Path, monkeypatch):
    """N saves of a same-sized state: every save is one write of about that size."""
    written: list[int] = []
    real_replace = os.replace

    def counting_replace(src, dst):
        written.append(os.path.getsize(src))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", counting_replace)
    with StateStore(tmp_path / "state.json") as store:
        for i in range(60):
            tasks = [{"id": f"task-{i - j}", "note": "n" * 50} for j in range(20)]  # a sliding window
            store.save({"tasks": tasks, "clock": {"now": f"t{i:06d}"}})
    assert len(written) == 60
    assert max(written) - min(written) <= 64  # ids grow a digit or two; nothing accumulates
    assert max(written) < 3 * len(json.dumps(tasks))


def test_no_flush_between_saves_even_after_many_table_operations(tmp_path: Path, monkeypatch):
    """TinyDB's stock cache flushes every 1000 writes; a save must never land half-applied."""
    writes = []
    monkeypatch.setattr(os, "replace", lambda s, d, _r=os.replace: (writes.append(1), _r(s, d)))
    with StateStore(tmp_path / "state.json") as store:
        for i in range(1200):
            store.db.table("scratch").insert({"i": i})
        assert writes == []
        store.flush()
        assert len(writes) == 1
