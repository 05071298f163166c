"""The Flow-of-Thought (spec 1.4): lenient validation with corrections, and the wire schema's bounds."""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest

from ideaco.mind.thought import (
    COMPACT_WIRE_LIMITS,
    LIMITS,
    REQUIRED,
    WIRE_LIMITS,
    compact,
    validate_thought,
    wire_schema,
    wire_token_bound,
)

BASE: dict[str, Any] = {
    "innerThoughts": "Bob is right about caching.",
    "topicSaturation": 3,
    "interestLevel": 6,
    "shouldSpeak": False,
}


def raw(**fields: Any) -> dict[str, Any]:
    """A minimal valid answer with `fields` added or overridden."""
    return copy.deepcopy(BASE) | fields


def noted(corrections: list[str], where: str) -> list[str]:
    return [c for c in corrections if c.startswith(where)]


def memory_add(content: str = "REST was chosen", **extra: Any) -> dict[str, Any]:
    return {
        "op": "add",
        "type": "long_term",
        "content": content,
        "category": "decision",
        "importance": 6,
    } | extra


# --------------------------------------------------------------------------- required fields


@pytest.mark.parametrize("field", REQUIRED)
def test_a_missing_required_field_is_an_error_naming_it(field):
    answer = raw()
    del answer[field]
    with pytest.raises(ValueError, match=field):
        validate_thought(answer)


@pytest.mark.parametrize("answer", [None, [], [BASE], "thinking...", 7, True])
def test_anything_but_an_object_is_an_error(answer):
    with pytest.raises(ValueError, match="JSON object"):
        validate_thought(answer)


@pytest.mark.parametrize("field", ["topicSaturation", "interestLevel"])
@pytest.mark.parametrize("value", ["high", None, True, [5], {"n": 5}])
def test_a_required_number_that_is_not_a_number_is_an_error(field, value):
    with pytest.raises(ValueError, match=field):
        validate_thought(raw(**{field: value}))


def test_optional_fields_default_when_absent_with_no_correction():
    thought, corrections = validate_thought(raw())
    assert corrections == []
    assert thought.reason == ""
    assert thought.memorySummary is None
    assert thought.messages == thought.actions == []
    assert thought.memoryOps == thought.relationshipOps == thought.taskOps == []


def test_a_clean_answer_passes_unchanged():
    answer = raw(
        shouldSpeak=True,
        reason="I know this",
        messages=[{"content": "REST, versioned endpoints."}],
        memorySummary="We are choosing REST vs GraphQL.",
        memoryOps=[memory_add()],
        relationshipOps=[{"employeeId": "bob", "name": "Bob", "impression": "Pragmatic", "affinity": 60}],
        taskOps=[{"op": "create", "description": "Compare REST and GraphQL", "type": "oneshot"}],
        actions=[{"tool": "send_message", "args": {"to": "bob", "content": "Thoughts?"}}],
    )
    thought, corrections = validate_thought(answer)
    assert corrections == []
    assert thought.shouldSpeak is True
    assert [m.content for m in thought.messages] == ["REST, versioned endpoints."]
    assert thought.memoryOps[0].category == "decision" and thought.memoryOps[0].importance == 6
    assert thought.relationshipOps[0].affinity == 60
    assert thought.taskOps[0].description == "Compare REST and GraphQL"
    assert thought.actions[0].args == {"to": "bob", "content": "Thoughts?"}


def test_validation_does_not_mutate_its_input():
    answer = raw(messages=["a"] * 10, memoryOps=[memory_add(importance=99)], innerThoughts="x" * 3000)
    before = copy.deepcopy(answer)
    validate_thought(answer)
    assert answer == before


def test_a_validated_thought_validates_again_with_no_correction():
    messy = raw(
        topicSaturation=0,
        interestLevel="7",
        shouldSpeak="yes",
        messages=["hi", {"content": "there"}, "a", "b"],
        memoryOps=[memory_add(category="gossip", importance=99), "junk"],
        taskOps=[{"op": "create", "description": "d", "type": "urgent"}],
    )
    first, corrections = validate_thought(messy)
    assert corrections
    again, second = validate_thought(first.to_record())
    assert second == []
    assert again == first


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(("value", "expected"), [(0, 1), (11, 10), (-5, 1), (10, 10), (1, 1)])
def test_topic_saturation_is_clamped_to_1_10_with_a_correction(value, expected):
    thought, corrections = validate_thought(raw(topicSaturation=value))
    assert thought.topicSaturation == expected
    assert len(noted(corrections, "topicSaturation")) == (value != expected)


def test_a_numeric_string_is_read_as_a_number():
    thought, _ = validate_thought(raw(interestLevel="7", topicSaturation=" 4 "))
    assert thought.interestLevel == 7 and thought.topicSaturation == 4


def test_a_numeric_string_out_of_range_is_clamped_too():
    thought, corrections = validate_thought(raw(interestLevel="42"))
    assert thought.interestLevel == 10
    assert noted(corrections, "interestLevel")


def test_a_float_is_rounded_to_an_int():
    thought, _ = validate_thought(raw(interestLevel=7.8))
    assert thought.interestLevel == 8


@pytest.mark.parametrize("field", ["topicSaturation", "interestLevel"])
@pytest.mark.parametrize("value", [json.loads("1e999"), json.loads("NaN"), "1e999", "-inf", "nan"])
def test_a_non_finite_number_is_clamped_or_refused_never_crashes(field, value):
    # json.loads accepts 1e999 and NaN; round() of them raises OverflowError/ValueError.
    try:
        thought, corrections = validate_thought(raw(**{field: value}))
    except ValueError as exc:
        assert field in str(exc)  # refused: the caller makes its repair attempt
        return
    assert 1 <= getattr(thought, field) <= 10 and noted(corrections, field)


@pytest.mark.parametrize("bad", ["1e999", "NaN", "-Infinity"])
def test_a_non_finite_importance_in_one_op_does_not_lose_the_thought(bad):
    answer = raw(
        memoryOps=[memory_add("good"), {"op": "add", "content": "odd", "importance": json.loads(bad)}]
    )
    thought, corrections = validate_thought(answer)
    assert thought.memoryOps[0].content == "good"
    assert noted(corrections, "memoryOps[1]")
    assert all(1 <= op.importance <= 10 for op in thought.memoryOps)


@pytest.mark.parametrize(
    ("value", "expected", "notes"), [(99, 10, 1), (0, 1, 1), (-3, 1, 1), ("8", 8, 1), (10, 10, 0)]
)
def test_memory_importance_is_clamped_to_1_10(value, expected, notes):
    thought, corrections = validate_thought(raw(memoryOps=[memory_add(importance=value)]))
    assert thought.memoryOps[0].importance == expected
    assert len(noted(corrections, "memoryOps[0].importance")) == notes


def test_a_non_numeric_importance_uses_the_default_with_a_correction():
    thought, corrections = validate_thought(raw(memoryOps=[memory_add(importance="very")]))
    assert thought.memoryOps[0].importance == 5
    assert noted(corrections, "memoryOps[0].importance")


@pytest.mark.parametrize(("value", "expected"), [(0, 1), (150, 100), (-20, 1), (100, 100), (1, 1)])
def test_affinity_is_clamped_to_1_100(value, expected):
    op = {"employeeId": "bob", "name": "Bob", "impression": "ok", "affinity": value}
    thought, corrections = validate_thought(raw(relationshipOps=[op]))
    assert thought.relationshipOps[0].affinity == expected
    assert len(noted(corrections, "relationshipOps[0].affinity")) == (value != expected)


# --------------------------------------------------------------------------- strings and lists


def test_oversized_inner_thoughts_are_cut_to_2000_chars():
    thought, corrections = validate_thought(raw(innerThoughts="y" * 20_000))
    assert thought.innerThoughts == "y" * LIMITS["innerThoughts"] == "y" * 2000
    assert noted(corrections, "innerThoughts") == ["innerThoughts: cut from 20000 to 2000 chars"]


def test_an_impression_is_cut_to_200_chars():
    op = {"employeeId": "bob", "impression": "i" * 201, "affinity": 55}
    thought, corrections = validate_thought(raw(relationshipOps=[op]))
    assert thought.relationshipOps[0].impression == "i" * 200
    assert noted(corrections, "relationshipOps[0].impression")


def test_strings_at_their_limit_are_kept_whole():
    thought, corrections = validate_thought(raw(innerThoughts="z" * 2000, reason="r" * LIMITS["reason"]))
    assert len(thought.innerThoughts) == 2000 and len(thought.reason) == LIMITS["reason"]
    assert corrections == []


def test_oversized_message_and_summary_are_cut():
    answer = raw(shouldSpeak=True, messages=[{"content": "m" * 5000}], memorySummary="s" * 5000)
    thought, corrections = validate_thought(answer)
    assert len(thought.messages[0].content) == LIMITS["content"]
    assert len(thought.memorySummary) == LIMITS["memorySummary"]
    assert noted(corrections, "messages[0].content") and noted(corrections, "memorySummary")


def test_fifty_messages_are_cut_to_three_with_a_correction():
    answer = raw(shouldSpeak=True, messages=[{"content": f"message {i}"} for i in range(50)])
    thought, corrections = validate_thought(answer)
    assert [m.content for m in thought.messages] == ["message 0", "message 1", "message 2"]
    assert noted(corrections, "messages") == ["messages: 50 items cut to 3"]


def test_a_message_given_as_a_bare_string_is_accepted():
    thought, corrections = validate_thought(raw(shouldSpeak=True, messages=["REST, obviously."]))
    assert [m.content for m in thought.messages] == ["REST, obviously."]
    assert thought.shouldSpeak is True
    assert corrections == []


def test_a_single_message_object_is_wrapped_in_a_list():
    thought, corrections = validate_thought(raw(shouldSpeak=True, messages={"content": "hello"}))
    assert [m.content for m in thought.messages] == ["hello"]
    assert noted(corrections, "messages")


def test_a_message_without_content_is_dropped_with_a_correction():
    answer = raw(shouldSpeak=True, messages=[{"text": "wrong key"}, {"content": "right"}])
    thought, corrections = validate_thought(answer)
    assert [m.content for m in thought.messages] == ["right"]
    assert noted(corrections, "messages[0]")


def test_null_text_fields_become_empty_strings_and_null_summary_stays_null():
    thought, corrections = validate_thought(raw(innerThoughts=None, reason=None, memorySummary=None))
    assert thought.innerThoughts == "" and thought.reason == ""
    assert thought.memorySummary is None
    assert len(corrections) == 2


# --------------------------------------------------------------------------- ops


def test_ops_that_are_not_objects_are_dropped_with_a_correction_each():
    answer = raw(memoryOps=["remember this", 42, None, memory_add("kept")])
    thought, corrections = validate_thought(answer)
    assert [op.content for op in thought.memoryOps] == ["kept"]
    assert noted(corrections, "memoryOps[0]") and noted(corrections, "memoryOps[1]")
    assert noted(corrections, "memoryOps[2]")


@pytest.mark.parametrize(
    ("key", "good", "bad"),
    [
        ("memoryOps", memory_add("fine"), {"op": "explode", "content": "?"}),
        ("memoryOps", memory_add("fine"), {"content": "no op at all"}),
        ("relationshipOps", {"employeeId": "bob", "affinity": 60}, {"impression": "who?"}),
        ("taskOps", {"op": "create", "description": "fine"}, {"op": "finish", "taskId": "task-1"}),
        (
            "actions",
            {"tool": "send_message", "args": {"to": "bob", "content": "hi"}},
            {"tool": "x", "args": "hi"},
        ),
    ],
)
def test_one_bad_op_among_good_ones_keeps_the_good_ones_and_the_thought(key, good, bad):
    answer = raw(shouldSpeak=True, messages=["still said"], **{key: [good, bad, copy.deepcopy(good)]})
    thought, corrections = validate_thought(answer)
    assert len(getattr(thought, key)) == 2
    assert noted(corrections, f"{key}[1]")
    assert not noted(corrections, f"{key}[0]") and not noted(corrections, f"{key}[2]")
    assert thought.shouldSpeak and thought.messages[0].content == "still said"


def test_too_many_ops_are_cut_to_the_limit():
    thought, corrections = validate_thought(raw(memoryOps=[memory_add(f"m{i}") for i in range(9)]))
    assert len(thought.memoryOps) == LIMITS["memoryOps"]
    assert noted(corrections, "memoryOps") == [f"memoryOps: 9 items cut to {LIMITS['memoryOps']}"]


def test_an_unknown_memory_category_becomes_context():
    thought, corrections = validate_thought(raw(memoryOps=[memory_add(category="gossip")]))
    assert thought.memoryOps[0].category == "context"
    assert noted(corrections, "memoryOps[0].category")


def test_an_unknown_task_type_becomes_oneshot():
    op = {"op": "create", "description": "Ask Bob", "type": "urgent"}
    thought, corrections = validate_thought(raw(taskOps=[op]))
    assert thought.taskOps[0].type == "oneshot"
    assert noted(corrections, "taskOps[0].type")


def test_op_strings_are_cut_to_their_limits():
    op = {"op": "resolve", "taskId": "t" * 300, "result": "r" * 5000}
    thought, corrections = validate_thought(raw(taskOps=[op]))
    assert len(thought.taskOps[0].taskId) == LIMITS["id"]
    assert len(thought.taskOps[0].result) == LIMITS["result"]
    assert len(noted(corrections, "taskOps[0]")) == 2


# --------------------------------------------------------------------------- shouldSpeak


def test_should_speak_with_no_message_is_silence_with_a_correction():
    thought, corrections = validate_thought(raw(shouldSpeak=True))
    assert thought.shouldSpeak is False
    assert "shouldSpeak true with no message: treated as silence" in corrections


def test_should_speak_with_only_blank_messages_is_silence():
    thought, corrections = validate_thought(raw(shouldSpeak=True, messages=["   ", {"content": ""}]))
    assert thought.shouldSpeak is False and thought.messages == []
    assert any("treated as silence" in c for c in corrections)


@pytest.mark.parametrize(
    ("value", "expected"), [("yes", True), ("True", True), ("no", False), ("false", False)]
)
def test_should_speak_as_a_string_is_read_as_a_boolean_with_a_correction(value, expected):
    thought, corrections = validate_thought(raw(shouldSpeak=value, messages=["hello"]))
    assert thought.shouldSpeak is expected
    assert noted(corrections, "shouldSpeak: string")


@pytest.mark.parametrize("value", ["maybe", None, [True]])
def test_an_unreadable_should_speak_is_an_error(value):
    with pytest.raises(ValueError, match="shouldSpeak"):
        validate_thought(raw(shouldSpeak=value))


# --------------------------------------------------------------------------- wire schema


def walk(node: dict[str, Any], path: str = "$"):
    """Every schema node with its path."""
    yield path, node
    for key, child in node.get("properties", {}).items():
        yield from walk(child, f"{path}.{key}")
    if "items" in node:
        yield from walk(node["items"], f"{path}[]")
    for i, alt in enumerate(node.get("anyOf", [])):
        yield from walk(alt, f"{path}|{i}")


def maximal(node: dict[str, Any]) -> Any:
    """The longest instance of `node` when dumped compactly: every string and list filled to its bound."""
    if "anyOf" in node:
        return max((maximal(alt) for alt in node["anyOf"]), key=lambda v: len(json.dumps(v)))
    if "enum" in node:
        return max(node["enum"], key=lambda v: len(json.dumps(v)))
    kind = node["type"]
    if kind == "string":
        return "x" * node["maxLength"]
    if kind == "integer":
        return max(node["minimum"], node["maximum"], key=lambda v: len(str(v)))
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    if kind == "array":
        return [maximal(node["items"]) for _ in range(node["maxItems"])]
    if kind == "object":
        return {key: maximal(child) for key, child in node["properties"].items()}
    raise AssertionError(f"unexpected schema node {node}")


SCHEMAS = {
    "default": wire_schema(),
    "compact": wire_schema(["bob"], compact=True),
    "enums": wire_schema(["bob", "charlie", "bob"], ["api-design", "boss", "bob"]),
    "compact-enums": wire_schema(["charlie", "bob"], ["eng-casual", "bob", "boss"], compact=True),
}


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_string_has_a_max_length_and_every_array_max_items(name):
    for path, node in walk(SCHEMAS[name]):
        if node.get("type") == "string":
            assert isinstance(node.get("maxLength"), int) and node["maxLength"] > 0, path
        if node.get("type") == "array":
            assert isinstance(node.get("maxItems"), int) and node["maxItems"] > 0, path
        if node.get("type") == "integer":
            assert "minimum" in node and "maximum" in node, path


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_object_is_closed_and_requires_its_properties_except_task_op_details(name):
    objects = [(path, node) for path, node in walk(SCHEMAS[name]) if node.get("type") == "object"]
    assert len(objects) >= 7
    for path, node in objects:
        assert node["additionalProperties"] is False, path
        if path == "$.taskOps[]":
            assert node["required"] == ["op"]
        elif path == "$" and name.startswith("compact"):  # a summary only when there is one
            assert node["required"][:5] == ["think", "sat", "interest", "speak", "say"]
            assert node["required"] == [k for k in node["properties"] if k != "memorySummary"]
        else:  # a compact op is one object per op, each with only its own fields, all required
            assert sorted(node["required"]) == sorted(node["properties"]), path


@pytest.mark.parametrize("name", SCHEMAS)
def test_the_schema_lists_fields_in_spec_order_cheap_decisions_first(name):
    names = [compact.SHORT.get(k, k) for k in SCHEMAS[name]["properties"]]
    assert names[:4] == list(REQUIRED)


def test_people_and_targets_become_sorted_unique_enums():
    schema = wire_schema(["charlie", "bob", "bob"], ["boss", "api-design", "bob", "boss"])
    person = schema["properties"]["relationshipOps"]["items"]["properties"]["employeeId"]
    target = schema["properties"]["actions"]["items"]["properties"]["args"]["properties"]["to"]
    assert person == {"enum": ["bob", "charlie"]}
    assert target == {"enum": ["api-design", "bob", "boss"]}


def test_without_people_or_targets_ids_are_bounded_strings():
    schema = wire_schema()
    person = schema["properties"]["relationshipOps"]["items"]["properties"]["employeeId"]
    target = schema["properties"]["actions"]["items"]["properties"]["args"]["properties"]["to"]
    assert person == {"type": "string", "maxLength": WIRE_LIMITS["id"]}
    assert target == {"type": "string", "maxLength": WIRE_LIMITS["to"]}


def as_full(path: str) -> str:
    """A compact schema's path in the Flow-of-Thought's names (its branches per op merged)."""
    path = re.sub(r"\|\d+", "", path)
    head, _, rest = path[2:].partition(".")
    head = {"say": "messages[].content"}.get(head, compact.SHORT.get(head, head))
    return "$." + head + ("." + rest if rest else "")


def test_compact_bounds_are_never_larger_and_some_are_smaller():
    default = {
        as_full(path): node
        for path, node in walk(wire_schema(["bob"]))
        if node.get("type") in ("string", "array")
    }
    compact_wire = wire_schema(["bob"], task_ids=["task-1"], memory_ids=["mem-1"], compact=True)
    compact_nodes = {
        as_full(path): node for path, node in walk(compact_wire) if node.get("type") in ("string", "array")
    }
    # `reason` is off the compact wire, and so is the document an offer names; each op carries only
    # the fields it needs (a task's report target and hint are the office's defaults), and the one
    # message is a string.
    # A failed or released task's reason, which the full wire lacks, is bounded as a result.
    reason = compact_nodes.pop("$.taskOps[].reason")
    assert reason["maxLength"] == compact_nodes["$.taskOps[].result"]["maxLength"]
    assert compact_nodes.keys() <= default.keys() - {"$.reason", "$.taskOps[].document"}
    assert {"$.taskOps[].onResolveHint", "$.taskOps[].claimKey", "$.messages"} <= default.keys() - (
        compact_nodes.keys()
    )
    smaller = 0
    for path, node in compact_nodes.items():
        node, compact_node = default[path], node
        bound = "maxLength" if node["type"] == "string" else "maxItems"
        assert compact_node[bound] <= node[bound], path
        smaller += compact_node[bound] < node[bound]
    assert smaller >= 5
    assert compact_nodes["$.innerThoughts"]["maxLength"] == COMPACT_WIRE_LIMITS["innerThoughts"]
    assert wire_token_bound(wire_schema(compact=True)) < wire_token_bound(wire_schema())


@pytest.mark.parametrize(
    ("compact", "summary", "tasks", "people", "off"),
    [
        (False, False, False, (), set()),  # a remote model is always asked for everything
        (True, True, True, ("bob",), {"reason"}),
        (True, False, True, ("bob",), {"reason", "memorySummary"}),  # summaries once lines left
        (True, True, False, ("bob",), {"reason", "taskOps"}),  # no tasks, note or boss to answer
        (True, True, True, (), {"reason", "relationshipOps"}),  # nobody read about
    ],
)
def test_what_the_compact_wire_leaves_off(compact, summary, tasks, people, off) -> None:
    schema = wire_schema(people, compact=compact, summary=summary, tasks=tasks)
    full = wire_schema(people)
    names = {as_full(f"$.{k}").removeprefix("$.").split("[")[0] for k in schema["properties"]}
    assert set(full["properties"]) - names == off
    if compact:  # every field offered is written (an op list as [] at least), a summary only if any
        assert schema["required"] == [k for k in schema["properties"] if k != "memorySummary"]
    else:
        assert set(full["required"]) - set(schema["required"]) == off
    answer = {"innerThoughts": "hm", "topicSaturation": 2, "interestLevel": 3, "shouldSpeak": False}
    thought, _ = validate_thought(answer)  # what is left off keeps its default
    assert (thought.reason, thought.memorySummary) == ("", None)


def test_wire_bounds_are_within_what_the_engine_keeps():
    for key, limit in WIRE_LIMITS.items():
        if key in LIMITS:
            assert limit <= LIMITS[key], key
            assert COMPACT_WIRE_LIMITS[key] <= LIMITS[key], key


@pytest.mark.parametrize("name", SCHEMAS)
def test_the_token_bound_covers_a_maximal_answer(name):
    schema = SCHEMAS[name]
    instance = json.dumps(maximal(schema), separators=(",", ":"))
    assert len(instance) <= wire_token_bound(schema)
    # The maximal answer fills every list, so its bound is not vacuous.
    assert '"memoryOps":[{' in instance and '"taskOps":[{' in instance


@pytest.mark.parametrize("name", SCHEMAS)
def test_a_maximal_wire_answer_validates_without_corrections(name):
    instance = maximal(SCHEMAS[name])
    thought, corrections = validate_thought(instance)
    assert corrections == []
    assert thought.innerThoughts == instance.get("think", instance.get("innerThoughts"))


def test_the_compact_bound_stays_small_enough_for_a_small_model():
    # SmolLM2's 8k context is shared with the prompt (spec 1.3): a thought must stay well under it.
    assert wire_token_bound(wire_schema(compact=True)) < 2000
    assert wire_token_bound(wire_schema()) < 3000


# --------------------------------------------------------------------------- one model, one source


def test_the_tool_args_on_the_wire_are_the_tool_models_fields_and_no_others():
    from ideaco.mind.thought import TOOL_ARGS, SendMessageArgs

    tools = tuple(TOOL_ARGS)
    schema = wire_schema(tools=tools)
    union = schema["properties"]["actions"]["items"]["anyOf"][1]
    assert union["properties"]["tool"] == {"enum": sorted(tools)}
    declared = {name for model in (SendMessageArgs, *TOOL_ARGS.values()) for name in model.model_fields}
    assert set(union["properties"]["args"]["properties"]) == declared


def test_a_tool_argument_is_bounded_on_the_wire_and_validated_from_one_declaration():
    from pydantic import ValidationError

    from ideaco.mind.thought import TOOL_ARGS

    hire = TOOL_ARGS["hire_employee"]
    args = wire_schema(tools=("hire_employee",))["properties"]["actions"]["items"]["anyOf"][1]["properties"][
        "args"
    ]
    assert args["properties"]["age"] == {"type": "integer", "minimum": 18, "maximum": 80}
    assert args["properties"]["name"]["maxLength"] == WIRE_LIMITS["id"]
    hire.model_validate(
        {"name": "Nora", "role": "Designer", "archetype": "idealist", "department": "d", "age": 80}
    )
    with pytest.raises(ValidationError):
        hire.model_validate(
            {"name": "Nora", "role": "Designer", "archetype": "idealist", "department": "d", "age": 81}
        )


def test_the_limit_tables_are_read_off_the_model():
    from ideaco.mind.thought.model import CONTENT, INNER, Thought

    assert LIMITS["innerThoughts"] == INNER.keep and WIRE_LIMITS["innerThoughts"] == INNER.ask
    assert COMPACT_WIRE_LIMITS["content"] == CONTENT.compact
    assert LIMITS["messages"] == 3 and WIRE_LIMITS["messages"] == 1
    assert REQUIRED == tuple(n for n, f in Thought.model_fields.items() if f.is_required())


def test_fields_kept_but_never_asked_stay_off_the_wire():
    props = wire_schema()["properties"]
    assert "ttl" not in props["memoryOps"]["items"]["properties"]
    assert "name" not in props["relationshipOps"]["items"]["properties"]
    assert {"condition", "reason"}.isdisjoint(props["taskOps"]["items"]["properties"])
    thought, notes = validate_thought(
        raw(taskOps=[{"op": "create", "description": "x", "condition": "c" * 400}])
    )
    assert thought.taskOps[0].condition == "c" * LIMITS["condition"]
    assert noted(notes, "taskOps[0].condition")


def test_an_ops_wire_form_is_shared_only_between_contexts_that_list_the_same_ids() -> None:
    """A part's wire form is made once per what it reads of the context (wire._sources): two
    thoughts that may name other people get other forms; the same lists, the very same form."""
    from typing import Annotated

    from pydantic import BaseModel

    from ideaco.mind.thought import wire
    from ideaco.mind.thought.model import Choice, RelationshipOp

    one = wire._object(RelationshipOp, wire.WireContext(people=("ana", "ben")))
    other = wire._object(RelationshipOp, wire.WireContext(people=("cleo",)))
    again = wire._object(RelationshipOp, wire.WireContext(people=("ana", "ben"), task_ids=("task-1",)))
    assert one["properties"]["employeeId"]["enum"] == ["ana", "ben"]
    assert other["properties"]["employeeId"]["enum"] == ["cleo"]
    assert again is one  # task ids are not read by a relationship op

    class Picks(BaseModel):
        names: list[Annotated[str, Choice("people")]]

    class Nested(BaseModel):
        picks: list[Picks]

    assert wire._sources(Nested) == ("people",)  # a list's items and a nested model's fields count
