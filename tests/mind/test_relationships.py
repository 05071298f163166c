"""Relationships (spec 2.4): ±15 clamp, drift back to neutral, swings, impressions, reset."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone

import pytest

from ideaco.mind.relationships import (
    Relation,
    RelationshipConfig,
    affinity_of,
    apply_ops,
    current_affinity,
    impressions_block,
    reset,
    table_from_dict,
    table_to_dict,
)
from ideaco.mind.thought import RelationshipOp

T0 = datetime(2026, 1, 5, 9, 0, tzinfo=timezone.utc)
DAY = timedelta(days=1)
PEOPLE = {"alice": "Alice", "bob": "Bob", "charlie": "Charlie"}
NO_DRIFT = RelationshipConfig(drift_half_life_days=None)


def op(employee: str = "bob", affinity: int | None = None, impression: str = "") -> RelationshipOp:
    fields = {"employeeId": employee, "impression": impression}
    if affinity is not None:
        fields["affinity"] = affinity
    return RelationshipOp.model_validate(fields)


def run(table, *ops, now=T0, cfg=NO_DRIFT):
    return apply_ops(table, list(ops), now, self_id="alice", people=PEOPLE, cfg=cfg)


def rated(affinity: float, impression: str = "", at: datetime = T0) -> Relation:
    return Relation(name="Bob", impression=impression, affinity=affinity, updated_at=at)


# --------------------------------------------------------------------------- clamp


@pytest.mark.parametrize(("requested", "stored"), [(65, 65), (66, 65), (35, 35), (34, 35)])
def test_a_change_is_clamped_to_15_from_neutral(requested, stored):
    table: dict[str, Relation] = {}
    notes, _ = run(table, op(affinity=requested))
    assert table["bob"].affinity == stored
    if requested == stored:
        assert notes == []
    else:
        sign = "+" if requested > 50 else "-"
        assert notes == [f"relationshipOps[0]: affinity change for bob clamped from {sign}16 to {sign}15"]


def test_the_clamp_note_names_the_requested_and_allowed_change():
    table: dict[str, Relation] = {}
    notes, _ = run(table, op(affinity=90, impression="great"))
    assert notes == ["relationshipOps[0]: affinity change for bob clamped from +40 to +15"]
    assert (table["bob"].affinity, table["bob"].impression, table["bob"].name) == (65, "great", "Bob")


@pytest.mark.parametrize(
    ("start", "requested", "stored"), [(95, 100, 100), (10, 1, 1), (2, 1, 1), (99, 100, 100)]
)
def test_affinity_stays_within_1_and_100(start, requested, stored):
    table = {"bob": rated(start)}
    notes, _ = run(table, op(affinity=requested))
    assert table["bob"].affinity == stored
    assert notes == []


def test_out_of_range_requests_are_held_to_1_100():
    table = {"bob": rated(95)}
    run(table, RelationshipOp(employeeId="bob", affinity=500))
    assert table["bob"].affinity == 100
    table = {"bob": rated(5)}
    run(table, RelationshipOp(employeeId="bob", affinity=-3))
    assert table["bob"].affinity == 1


def test_several_ops_on_one_person_cannot_exceed_one_clamp():
    table: dict[str, Relation] = {}
    notes, swings = run(table, op(affinity=65), op(affinity=80), op(affinity=95))
    assert table["bob"].affinity == 65
    assert swings == [("bob", 15)]
    assert "relationshipOps[1]: a second op for bob in one thought replaces the first" in notes


def test_an_op_without_affinity_only_changes_the_impression():
    table = {"bob": rated(70, "blunt")}
    notes, swings = run(table, op(impression="blunt but fair"))
    assert (table["bob"].affinity, table["bob"].impression) == (70, "blunt but fair")
    assert (notes, swings) == ([], [])


def test_an_empty_impression_keeps_the_old_one():
    table = {"bob": rated(60, "reliable")}
    run(table, op(affinity=62))
    assert (table["bob"].affinity, table["bob"].impression) == (62, "reliable")


def test_impression_is_cut_to_200_chars_with_a_note():
    table: dict[str, Relation] = {}
    notes, _ = run(
        table,
        op(affinity=50, impression="x" * 200),
        RelationshipOp(employeeId="charlie", impression="y" * 201),
    )
    assert table["bob"].impression == "x" * 200
    assert table["charlie"].impression == "y" * 200
    assert notes == ["relationshipOps[1]: impression of charlie cut from 201 to 200 chars"]


# --------------------------------------------------------------------------- drift


def test_no_drift_at_zero_days():
    assert current_affinity(rated(80), T0) == 80
    assert current_affinity(rated(20), T0) == 20


@pytest.mark.parametrize(("start", "after_half_life"), [(80, 65), (20, 35), (50, 50)])
def test_affinity_halves_its_distance_to_50_every_half_life(start, after_half_life):
    cfg = RelationshipConfig(drift_half_life_days=3.0)
    assert current_affinity(rated(start), T0 + 3 * DAY, cfg) == pytest.approx(after_half_life)
    assert current_affinity(rated(start), T0 + 6 * DAY, cfg) == pytest.approx((after_half_life + 50) / 2)


def test_affinity_approaches_50_from_above_and_below_but_never_crosses():
    above = [current_affinity(rated(100), T0 + n * DAY) for n in range(0, 60, 5)]
    below = [current_affinity(rated(1), T0 + n * DAY) for n in range(0, 60, 5)]
    assert above == sorted(above, reverse=True) and all(a > 50 for a in above)
    assert below == sorted(below) and all(b < 50 for b in below)
    assert above[-1] - 50 < 0.1 and 50 - below[-1] < 0.1


@pytest.mark.parametrize("half_life", [None, 0, -1.0])
def test_drift_can_be_disabled(half_life):
    cfg = RelationshipConfig(drift_half_life_days=half_life)
    assert current_affinity(rated(90), T0 + 365 * DAY, cfg) == 90


def test_a_change_starts_from_the_drifted_value():
    cfg = RelationshipConfig()  # 3-day half-life
    table = {"bob": rated(20)}  # a grudge from three days ago has faded to 35
    notes, swings = run(table, op(affinity=60), now=T0 + 3 * DAY, cfg=cfg)
    assert table["bob"].affinity == pytest.approx(50)
    assert table["bob"].updated_at == T0 + 3 * DAY
    assert notes == ["relationshipOps[0]: affinity change for bob clamped from +25 to +15"]
    assert swings == [("bob", pytest.approx(15))]


def test_affinity_of_someone_never_rated_is_50():
    assert affinity_of({}, "bob", T0) == 50
    assert affinity_of({"bob": rated(80)}, "bob", T0 + 3 * DAY) == pytest.approx(65)


# --------------------------------------------------------------------------- swings


@pytest.mark.parametrize(("requested", "swing"), [(55, None), (56, 6), (45, None), (44, -6)])
def test_only_a_change_above_5_is_a_swing(requested, swing):
    table: dict[str, Relation] = {}
    _, swings = run(table, op(affinity=requested))
    assert swings == ([] if swing is None else [("bob", swing)])


def test_swings_are_per_person_in_order_of_ops():
    table = {"charlie": Relation("Charlie", "", 70, T0)}
    _, swings = run(table, op("charlie", 60), op("bob", 58), op("bob", 40))
    assert swings == [("charlie", -10), ("bob", -10)]


# --------------------------------------------------------------------------- who


def test_unknown_and_self_ops_are_dropped_with_notes():
    table: dict[str, Relation] = {}
    notes, swings = run(table, op("zed", 90), op("alice", 90), op("Alice", 90), op("bob", 55))
    assert notes == [
        "relationshipOps[0]: unknown employee 'zed', dropped",
        "relationshipOps[1]: an opinion of yourself is not kept, dropped",
        "relationshipOps[2]: an opinion of yourself is not kept, dropped",
    ]
    assert list(table) == ["bob"] and swings == []


def test_a_name_or_an_id_in_any_case_is_accepted():
    table: dict[str, Relation] = {}
    notes, _ = run(table, op("CHARLIE", 60), op("Bob", 55))
    assert notes == []
    assert sorted(table) == ["bob", "charlie"]
    assert table["charlie"].name == "Charlie"


def test_an_ambiguous_name_is_dropped_but_an_exact_id_wins():
    people = {"bob-a": "Bob", "bob-b": "Bob", "alice": "Alice"}
    table: dict[str, Relation] = {}
    notes, _ = apply_ops(table, [op("bob", 60), op("Bob-B ", 60)], T0, self_id="alice", people=people)
    assert list(table) == ["bob-b"]
    assert notes == ["relationshipOps[0]: 'bob' could be any of bob-a, bob-b, dropped"]


# --------------------------------------------------------------------------- prompt block


def test_impressions_show_present_members_only_with_the_drifted_integer():
    table = {
        "bob": rated(80, "reliable, a bit blunt"),
        "charlie": Relation("Charlie", "", 40, T0),
        "dave": Relation("Dave", "never here", 90, T0),
    }
    block = impressions_block(table, ["alice", "charlie", "bob"], T0 + 3 * DAY)
    assert block == (
        "## What you think of the people here\n"
        "Charlie (charlie): affinity 45\n"
        "Bob (bob): affinity 65 — reliable, a bit blunt"
    )
    assert "Dave" not in block


def test_no_impressions_block_when_nobody_present_is_rated():
    assert impressions_block({}, ["bob"], T0) == ""
    assert impressions_block({"dave": Relation("Dave", "x", 90, T0)}, ["bob", "charlie"], T0) == ""


# --------------------------------------------------------------------------- reset and persistence


def test_reset_one_then_everyone():
    table = {"bob": rated(80), "charlie": Relation("Charlie", "", 40, T0)}
    assert reset(table, "nobody") == 0
    assert reset(table, "bob") == 1
    assert list(table) == ["charlie"]
    assert affinity_of(table, "bob", T0) == 50
    table["bob"] = rated(90)
    assert reset(table) == 2
    assert table == {}


def test_round_trip_through_json_is_exact():
    table: dict[str, Relation] = {}
    run(table, op("bob", 61, "reliable"), now=T0 + timedelta(microseconds=7))
    table["charlie"] = Relation("Charlie", "quiet", 42.123456789, T0)
    data = json.loads(json.dumps(table_to_dict(table)))
    loaded = table_from_dict(data)
    assert loaded == table
    assert table_to_dict(loaded) == data


# --------------------------------------------------------------------------- a small model's feeling


def felt(feeling: str, employee: str = "bob", **fields) -> RelationshipOp:
    return RelationshipOp.model_validate(
        {"employeeId": employee, "impression": "", "feeling": feeling, **fields}
    )


@pytest.mark.parametrize(("feeling", "stored"), [("warmer", 56), ("cooler", 44), ("same", 50)])
def test_a_feeling_moves_the_affinity_one_step(feeling, stored):
    table: dict[str, Relation] = {}
    notes, swings = run(table, felt(feeling))
    assert table["bob"].affinity == stored and notes == []
    # one step is just above the swing threshold: a stated change is a stamina event (spec 2.6)
    assert swings == ([] if feeling == "same" else [("bob", stored - 50)])


def test_a_step_at_the_swing_threshold_is_no_swing():
    table: dict[str, Relation] = {}
    _, swings = run(table, felt("cooler"), cfg=RelationshipConfig(drift_half_life_days=None, feeling_step=5))
    assert table["bob"].affinity == 45 and swings == []


def test_a_number_given_beside_a_feeling_is_what_counts():
    table: dict[str, Relation] = {}
    run(table, felt("cooler", affinity=60))
    assert table["bob"].affinity == 60


def test_a_feeling_for_someone_not_read_keeps_the_affinity():
    table: dict[str, Relation] = {}
    notes, _ = apply_ops(
        table, [felt("cooler")], T0, self_id="alice", people=PEOPLE, cfg=NO_DRIFT, speakers={"charlie"}
    )
    assert table["bob"].affinity == 50 and "nothing of theirs was read" in notes[0]


def test_feelings_stay_within_the_hourly_bound():
    table: dict[str, Relation] = {}
    for minute in range(5):  # 4 steps of 6 = 24, then only 1 of the hour's 25 is left
        run(table, felt("cooler"), now=T0 + timedelta(minutes=minute))
    assert table["bob"].affinity == 25
    run(table, felt("cooler"), now=T0 + timedelta(minutes=30))
    assert table["bob"].affinity == 25  # the hour is spent
    run(table, felt("cooler"), now=T0 + timedelta(minutes=61))
    assert table["bob"].affinity == 19  # a new hour


def test_the_compact_wire_asks_for_a_feeling_and_the_full_wire_for_an_affinity():
    from ideaco.mind.thought.wire import wire_schema

    compact = wire_schema(people=["bob"], compact=True)["properties"]["relationshipOps"]["items"]
    full = wire_schema(people=["bob"], compact=False)["properties"]["relationshipOps"]["items"]
    assert compact["properties"]["feeling"] == {"enum": ["same", "warmer", "cooler"]}
    assert "affinity" not in compact["properties"] and "feeling" in compact["required"]
    assert full["properties"]["affinity"] == {"type": "integer", "minimum": 1, "maximum": 100}
    assert "feeling" not in full["properties"]


def test_an_unknown_feeling_is_replaced_with_a_note():
    from ideaco.mind.thought import validate_thought

    raw = {
        "innerThoughts": "hm",
        "topicSaturation": 3,
        "interestLevel": 3,
        "shouldSpeak": False,
        "relationshipOps": [{"employeeId": "bob", "impression": "", "feeling": "furious"}],
    }
    thought, notes = validate_thought(raw)
    assert thought.relationshipOps[0].feeling is None
    assert any("relationshipOps[0].feeling" in n and "furious" in n for n in notes)
