"""Memory layers (spec 2.4): caps, TTL, archiving, dedupe, recall and the prompt block."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime, timedelta, timezone

import pytest

from ideaco.mind.memory import (
    DEFAULT_CONFIG,
    Memory,
    MemoryConfig,
    MemoryItem,
    add,
    apply_ops,
    delete,
    prune,
    set_summary,
    update,
)
from ideaco.mind.recall import memory_block, recall
from ideaco.mind.thought import MemoryOp

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)
US = timedelta(microseconds=1)


def fill(memory: Memory, kind: str, n: int, *, importance: int = 5, start: datetime = T0) -> list[MemoryItem]:
    """Add n distinct memories, one second apart."""
    items = []
    for i in range(n):
        item, _ = add(
            memory,
            kind=kind,
            content=f"distinct {kind} fact number {i} about topic{i}",
            category="fact",
            importance=importance,
            now=start + timedelta(seconds=i),
        )
        items.append(item)
    return items


def ids(items: list[MemoryItem]) -> list[str]:
    return [m.id for m in items]


# --------------------------------------------------------------------------- ids


def test_ids_are_sequential_and_never_reused():
    memory = Memory()
    a, _ = add(memory, kind="long_term", content="alpha", category="fact", importance=5, now=T0)
    b, _ = add(memory, kind="short_term", content="beta", category="fact", importance=5, now=T0)
    assert (a.id, b.id) == ("mem-1", "mem-2")
    delete(memory, "mem-2")
    c, _ = add(memory, kind="short_term", content="gamma", category="fact", importance=5, now=T0)
    assert c.id == "mem-3"


def test_from_dict_never_hands_out_an_id_already_in_use():
    memory = Memory()
    fill(memory, "long_term", 3)
    data = memory.to_dict() | {"next_id": 1}
    loaded = Memory.from_dict(data)
    item, _ = add(loaded, kind="long_term", content="new thing", category="fact", importance=5, now=T0)
    assert item.id == "mem-4"


# --------------------------------------------------------------------------- caps


def edit(memory: Memory, item: MemoryItem, **changes) -> MemoryItem:
    """Set up a test: `item` changed in place in its layer (items are frozen; rules replace them)."""
    layer = memory.layer(memory.find(item.id)[0])
    new = dataclasses.replace(item, **changes)
    layer[layer.index(item)] = new
    return new


def test_long_term_holds_200_items():
    memory = Memory()
    fill(memory, "long_term", 200)
    assert len(memory.long_term) == 200
    assert prune(memory, T0 + DAY) == []


def test_the_201st_long_term_item_drops_the_least_important_then_oldest():
    memory = Memory()
    items = fill(memory, "long_term", 200, importance=5)
    items[150] = edit(memory, items[150], importance=2)
    items[100] = edit(memory, items[100], importance=2)  # created earlier, but updated later than items[150]
    items[100] = edit(memory, items[100], updated_at=items[150].updated_at + timedelta(hours=1))
    newest, notes = add(
        memory, kind="long_term", content="the 201st", category="fact", importance=5, now=T0 + DAY
    )
    assert len(memory.long_term) == 200
    gone = items[150]  # importance 2 and older (by updated_at) than items[100]
    assert memory.find(gone.id) is None
    assert memory.find(items[100].id) is not None
    assert memory.find(newest.id) is not None
    assert notes == [f"memory: long-term full, {gone.id} forgotten"]


def test_long_term_ties_in_importance_drop_the_oldest_by_updated_at():
    memory = Memory()
    items = fill(memory, "long_term", 201, importance=5)
    assert memory.find(items[0].id) is None
    assert len(memory.long_term) == 200
    # Touching an old item makes it recent: the next overflow drops the next-oldest instead.
    update(memory, items[1].id, importance=5, now=T0 + DAY)
    add(memory, kind="long_term", content="one more", category="fact", importance=5, now=T0 + DAY)
    assert memory.find(items[1].id) is not None
    assert memory.find(items[2].id) is None


def test_short_term_holds_20_items():
    memory = Memory()
    fill(memory, "short_term", 20)
    assert len(memory.short_term) == 20
    assert memory.long_term == []


def test_the_21st_short_term_item_archives_the_least_important_into_long_term():
    memory = Memory()
    items = fill(memory, "short_term", 20, importance=6)
    items[7] = edit(memory, items[7], importance=4)
    _, notes = add(memory, kind="short_term", content="the 21st", category="fact", importance=6, now=T0)
    assert len(memory.short_term) == 20
    assert ids(memory.long_term) == [items[7].id]
    archived = memory.long_term[0]
    assert archived.importance == 2  # 4 - 2
    assert archived.expires_at is None
    assert (archived.content, archived.category) == ("distinct short_term fact number 7 about topic7", "fact")
    assert notes == [f"memory: short-term full, {items[7].id} archived to long-term (importance 2)"]


@pytest.mark.parametrize(("importance", "archived_as"), [(10, 8), (3, 1), (2, 1), (1, 1)])
def test_archiving_lowers_importance_by_2_but_never_below_1(importance, archived_as):
    memory = Memory()
    items = fill(memory, "short_term", 20, importance=10)
    items[0] = edit(memory, items[0], importance=importance)
    add(memory, kind="short_term", content="overflow", category="fact", importance=10, now=T0 + DAY / 2)
    assert memory.long_term[0].id == items[0].id
    assert memory.long_term[0].importance == archived_as


def test_short_term_eviction_order_is_least_important_then_oldest():
    memory = Memory()
    items = fill(memory, "short_term", 20, importance=5)
    items[3] = edit(memory, items[3], importance=3)
    items[9] = edit(memory, items[9], importance=3)
    items[12] = edit(memory, items[12], importance=2)
    later = T0 + timedelta(hours=1)
    for n in range(4):
        add(memory, kind="short_term", content=f"overflow {n} zz", category="fact", importance=9, now=later)
    # importance 2 first, then the two 3s oldest first, then the oldest 5.
    assert ids(memory.long_term) == [items[12].id, items[3].id, items[9].id, items[0].id]


def test_a_new_item_that_is_least_important_is_itself_archived():
    memory = Memory()
    fill(memory, "short_term", 20, importance=5)
    item, _ = add(memory, kind="short_term", content="trivia", category="fact", importance=1, now=T0)
    assert memory.find(item.id) == ("long_term", item)
    assert item.importance == 1


def test_caps_are_configurable():
    cfg = MemoryConfig(short_term_cap=2, long_term_cap=1)
    memory = Memory()
    for n in range(3):
        add(memory, kind="short_term", content=f"note {n} x", category="fact", importance=5, now=T0, cfg=cfg)
    assert len(memory.short_term) == 2 and len(memory.long_term) == 1


# --------------------------------------------------------------------------- TTL


def test_a_short_term_item_expires_at_exactly_24_hours():
    memory = Memory()
    item, _ = add(
        memory, kind="short_term", content="standup at 10", category="context", importance=5, now=T0
    )
    assert item.expires_at == T0 + DAY
    prune(memory, T0 + DAY - US)
    assert ids(memory.short_term) == [item.id]
    prune(memory, T0 + DAY)
    assert memory.short_term == []
    assert memory.long_term == []  # expiry is not archiving


def test_a_custom_ttl_in_seconds():
    memory = Memory()
    item, _ = add(
        memory, kind="short_term", content="back in 5", category="context", importance=5, now=T0, ttl_s=300
    )
    assert item.expires_at == T0 + timedelta(seconds=300)
    assert recall(memory, T0 + timedelta(seconds=300) - US, "")[1] == [item]
    assert recall(memory, T0 + timedelta(seconds=300), "")[1] == []


def test_ttl_from_an_op_and_a_bad_ttl_falls_back_to_the_default():
    memory = Memory()
    ops = [
        MemoryOp(op="add", type="short_term", content="short lived", ttl=60),
        MemoryOp(op="add", type="short_term", content="bad ttl here", ttl=0),
    ]
    notes = apply_ops(memory, ops, T0)
    assert [m.expires_at for m in memory.short_term] == [T0 + timedelta(seconds=60), T0 + DAY]
    assert notes == ["memoryOps[1]: ttl 0 is not positive, used 86400"]


def test_long_term_items_never_expire():
    memory = Memory()
    add(memory, kind="long_term", content="Bob prefers REST", category="preference", importance=5, now=T0)
    prune(memory, T0 + 1000 * DAY)
    assert len(memory.long_term) == 1
    assert memory.long_term[0].expires_at is None


def test_expired_items_are_gone_before_ops_apply():
    memory = Memory()
    item, _ = add(memory, kind="short_term", content="temp", category="context", importance=5, now=T0)
    notes = apply_ops(memory, [MemoryOp(op="update", id=item.id, importance=9)], T0 + DAY)
    assert notes == [f"memoryOps[0]: unknown memory id {item.id!r}, dropped"]


# --------------------------------------------------------------------------- dedupe


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("Bob prefers REST.", "  bob   PREFERS rest ", True),
        ("Bob prefers REST", "Bob prefers REST now", True),  # contained, 16 vs 20 chars: within 20%
        ("Bob prefers REST", "Bob prefers REST APIs", False),  # contained, 16 vs 21 chars: too different
        ("Bob prefers REST", "Alice prefers REST", False),
        ("Bob prefers REST", "Bob prefers", False),  # contained, 11 vs 16 chars: too different
        # The same words as the loop breaker reads them (wording.normalise): punctuation inside aside.
        ("Bob prefers REST, not GraphQL", "bob prefers rest - not graphql", True),
        ("API: v2 (draft)", "API v2 draft", True),
    ],
)
def test_what_counts_as_a_duplicate(a, b, same):
    for first, second in ((a, b), (b, a)):
        memory = Memory()
        kept, _ = add(memory, kind="long_term", content=first, category="fact", importance=5, now=T0)
        again, _ = add(memory, kind="long_term", content=second, category="fact", importance=5, now=T0)
        assert (again.id == kept.id) is same
        assert len(memory.long_term) == (1 if same else 2)


def test_a_duplicate_updates_the_existing_memory_instead_of_adding():
    memory = Memory()
    first, _ = add(
        memory, kind="long_term", content="Bob prefers REST", category="preference", importance=7, now=T0
    )
    later = T0 + timedelta(hours=2)
    again, notes = add(
        memory, kind="long_term", content="bob prefers rest!", category="fact", importance=4, now=later
    )
    assert again.id == first.id and memory.long_term == [again]
    assert (again.content, again.importance, again.category) == ("bob prefers rest!", 7, "preference")
    assert (again.created_at, again.updated_at) == (T0, later)
    assert notes == [f"memory: duplicate of {first.id}, updated"]
    assert memory.next_id == 2  # no id spent


def test_duplicates_are_found_across_layers():
    memory = Memory()
    kept, _ = add(memory, kind="long_term", content="Launch is Friday", category="fact", importance=3, now=T0)
    item, notes = add(
        memory, kind="short_term", content="launch is friday.", category="fact", importance=8, now=T0 + DAY
    )
    assert item.id == kept.id and memory.short_term == [] and memory.long_term == [item]
    assert item.importance == 8 and item.expires_at is None
    assert notes == [f"memory: duplicate of {kept.id}, updated"]


def test_a_short_term_memory_added_again_as_long_term_moves_there():
    memory = Memory()
    item, _ = add(
        memory, kind="short_term", content="Carol leads the API", category="fact", importance=5, now=T0
    )
    again, notes = add(
        memory, kind="long_term", content="Carol leads the API", category="fact", importance=5, now=T0
    )
    assert again.id == item.id
    assert (memory.short_term, memory.long_term) == ([], [again])
    assert again.expires_at is None
    assert notes == [f"memory: duplicate of {item.id}, updated and moved to long-term"]


def test_a_short_term_memory_added_again_lives_longer():
    memory = Memory()
    item, _ = add(memory, kind="short_term", content="demo at 3pm", category="context", importance=5, now=T0)
    again, _ = add(
        memory, kind="short_term", content="Demo at 3pm", category="context", importance=5, now=T0 + DAY / 2
    )
    assert again.id == item.id and again.expires_at == T0 + DAY * 1.5
    assert len(memory.short_term) == 1


# --------------------------------------------------------------------------- ops


def test_apply_ops_add_update_delete_in_order():
    memory = Memory()
    ops = [
        MemoryOp(op="add", type="long_term", content="REST chosen", category="decision", importance=6),
        MemoryOp(op="update", id="mem-1", content="REST chosen for v2", importance=9),
        MemoryOp(op="add", type="short_term", content="ask Bob about auth", category="task"),
        MemoryOp(op="delete", id="mem-2"),
    ]
    assert apply_ops(memory, ops, T0 + timedelta(minutes=1)) == []
    assert memory.short_term == []
    [item] = memory.long_term
    assert (item.id, item.content, item.importance, item.category) == (
        "mem-1",
        "REST chosen for v2",
        9,
        "decision",
    )
    assert item.updated_at == T0 + timedelta(minutes=1)


def test_bad_ops_are_noted_and_dropped_without_stopping_the_rest():
    memory = Memory()
    ops = [
        MemoryOp(op="add", content=None),
        MemoryOp(op="add", content="   "),
        MemoryOp(op="update", content="x"),
        MemoryOp(op="delete"),
        MemoryOp(op="update", id="mem-99", content="x"),
        MemoryOp(op="delete", id="mem-42"),
        MemoryOp(op="add", content="still applied"),
    ]
    notes = apply_ops(memory, ops, T0)
    assert notes == [
        "memoryOps[0]: add without content, dropped",
        "memoryOps[1]: add without content, dropped",
        "memoryOps[2]: update without id, dropped",
        "memoryOps[3]: delete without id, dropped",
        "memoryOps[4]: unknown memory id 'mem-99', dropped",
        "memoryOps[5]: unknown memory id 'mem-42', dropped",
    ]
    assert [m.content for m in memory.short_term] == ["still applied"]


def test_unknown_ids_change_nothing():
    memory = Memory()
    fill(memory, "long_term", 2)
    before = memory.to_dict()
    assert update(memory, "mem-9", content="x", now=T0 + DAY) == [
        "memoryOps: unknown memory id 'mem-9', dropped"
    ]
    assert delete(memory, "nope") == ["memoryOps: unknown memory id 'nope', dropped"]
    assert memory.to_dict() == before


def test_an_update_without_importance_or_with_empty_content_keeps_them():
    memory = Memory()
    item, _ = add(memory, kind="long_term", content="keep me", category="fact", importance=8, now=T0)
    apply_ops(memory, [MemoryOp(op="update", id=item.id, content="")], T0 + DAY)
    item = memory.find(item.id)[1]
    assert (item.content, item.importance, item.updated_at) == ("keep me", 8, T0 + DAY)


# --------------------------------------------------------------------------- summaries


def test_summary_is_replaced_cut_at_2000_and_kept_when_empty():
    memory = Memory()
    assert set_summary(memory, "api-design", "x" * 2000) == []
    assert len(memory.summaries["api-design"]) == 2000
    notes = set_summary(memory, "api-design", "y" * 2001)
    assert memory.summaries["api-design"] == "y" * 2000
    assert notes == ["memorySummary: cut from 2001 to 2000 chars"]
    set_summary(memory, "api-design", None)
    set_summary(memory, "api-design", "   ")
    assert memory.summaries["api-design"] == "y" * 2000
    set_summary(memory, "boss:alice", "Boss wants a report.")
    assert memory.summaries == {"api-design": "y" * 2000, "boss:alice": "Boss wants a report."}


# --------------------------------------------------------------------------- recall


def test_recall_prefers_relevant_items_over_irrelevant_ones_of_equal_importance():
    memory = Memory()
    add(
        memory,
        kind="long_term",
        content="Lunch menu has tacos on Tuesday",
        category="fact",
        importance=5,
        now=T0,
    )
    add(
        memory, kind="long_term", content="Bob prefers GraphQL schemas", category="fact", importance=5, now=T0
    )
    add(
        memory,
        kind="short_term",
        content="printer on floor two is broken",
        category="context",
        importance=5,
        now=T0,
    )
    add(memory, kind="short_term", content="GraphQL review tomorrow", category="task", importance=5, now=T0)
    long, short = recall(memory, T0, "Should the new API be REST or GraphQL? What do schemas cost?")
    assert [m.content for m in long] == ["Bob prefers GraphQL schemas", "Lunch menu has tacos on Tuesday"]
    assert [m.content for m in short] == ["GraphQL review tomorrow", "printer on floor two is broken"]


def test_recall_prefers_important_then_recent_and_breaks_ties_by_id():
    memory = Memory()
    old, _ = add(memory, kind="long_term", content="alpha", category="fact", importance=5, now=T0)
    new, _ = add(memory, kind="long_term", content="beta", category="fact", importance=5, now=T0 + 7 * DAY)
    big, _ = add(memory, kind="long_term", content="gamma", category="fact", importance=8, now=T0)
    tie, _ = add(memory, kind="long_term", content="delta", category="fact", importance=5, now=T0)
    long, _ = recall(memory, T0 + 7 * DAY, "nothing related")
    # beta 0.5 + 1.0; gamma 0.8 + 0.5 (one long-term half-life old); alpha and delta 0.5 + 0.5,
    # alpha first by id.
    assert ids(long) == [new.id, big.id, old.id, tie.id]


def test_short_term_recency_halves_every_day():
    memory = Memory()
    week = 7 * 86400
    fresh, _ = add(
        memory, kind="short_term", content="fresh", category="fact", importance=5, now=T0 + DAY, ttl_s=week
    )
    stale, _ = add(
        memory, kind="short_term", content="stale", category="fact", importance=9, now=T0, ttl_s=week
    )
    # At T0 + 1 day: fresh 0.5 + 1.0 = 1.5 beats stale 0.9 + 0.5 = 1.4 (a 7-day half-life would not).
    assert recall(memory, T0 + DAY, "")[1] == [fresh, stale]
    long_memory = Memory(long_term=[fresh, stale])
    assert recall(long_memory, T0 + DAY, "")[0] == [stale, fresh]


def test_recall_limits_to_15_long_term_and_10_short_term():
    memory = Memory()
    fill(memory, "long_term", 30)
    fill(memory, "short_term", 20)
    long, short = recall(memory, T0 + timedelta(minutes=1), "")
    assert (len(long), len(short)) == (15, 10)
    # With equal importance and relevance, the most recently updated win.
    assert ids(short) == [f"mem-{n}" for n in range(50, 40, -1)]


def test_recall_never_returns_expired_items():
    memory = Memory()
    add(memory, kind="short_term", content="stale thing", category="context", importance=10, now=T0)
    assert recall(memory, T0 + DAY, "stale thing") == ([], [])


# --------------------------------------------------------------------------- prompt block


def test_memory_block_lists_ids_long_then_short():
    memory = Memory()
    add(memory, kind="long_term", content="Bob prefers REST", category="preference", importance=7, now=T0)
    add(memory, kind="short_term", content="Demo\nat 3pm", category="context", importance=4, now=T0)
    block = memory_block(*recall(memory, T0, ""))
    assert block == (
        "## Your memories (ids let you update or delete them)\n"
        "Long-term:\n"
        "[mem-1] (preference, 7) Bob prefers REST\n"
        "Short-term:\n"
        "[mem-2] (context, 4) Demo at 3pm"
    )


def test_memory_block_is_empty_without_memories_and_bounded_per_line():
    assert memory_block([], []) == ""
    item = MemoryItem("mem-1", "z" * 2000, "fact", 5, T0, T0)
    block = memory_block([item], [])
    assert "Short-term" not in block
    assert len(block.splitlines()[-1]) <= DEFAULT_CONFIG.prompt_item_chars + len("[mem-1] (fact, 5) ")


# --------------------------------------------------------------------------- persistence


def test_round_trip_through_json_is_exact():
    memory = Memory()
    fill(memory, "long_term", 3)
    add(memory, kind="short_term", content="soon", category="task", importance=3, now=T0 + US, ttl_s=90)
    set_summary(memory, "api-design", "They argued about REST.")
    delete(memory, "mem-2")
    data = json.loads(json.dumps(memory.to_dict()))
    loaded = Memory.from_dict(data)
    assert loaded == memory
    assert loaded.to_dict() == data
    assert loaded.short_term[0].expires_at == T0 + US + timedelta(seconds=90)
