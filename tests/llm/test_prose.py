"""What people read, held at its source on the embedded small model (issue 36, item 2).

The grammar of the shipped small model keeps markup and JSON debris (`< > { } [ ] | \\`) out of every
text people read and wants a letter of any script in it (`openai_chat.hold_prose`); a capable
model's request (an endpoint, or a GGUF of the user's choosing) carries no pattern at all, and the
request's key (record/replay) is the same either way.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import regex

from benchmarks.junk import is_junk
from ideaco.llm.base import ChatRequest
from ideaco.llm.openai_chat import (
    DEBRIS,
    MAY_BE_EMPTY,
    PROSE_FIELDS,
    WORDS,
    WORDS_OR_NOTHING,
    OpenAIChatLLM,
    hold_prose,
    llguidance_grammar,
)
from ideaco.mind.thought.model import TOOL_ARGS
from ideaco.mind.thought.wire import WireContext, thought_schema

# llguidance reads a JSON-schema pattern in Rust's regex syntax; for these constructs (a negated
# class, `\p{L}`, anchors, an optional group) the `regex` package reads it the same way.
HELD = regex.compile(WORDS)
HELD_OR_NOTHING = regex.compile(WORDS_OR_NOTHING)

GOOD = {
    "latin": ["Shipped the fix, thanks!", "Memory ops on ARM are about 2x slower", "ok", "Café à 9h ?"],
    "chinese": ["好的，收到！", "好", "哈哈哈哈哈，太真实了", "发布说明已写好。（第二版）"],
    "japanese": ["了解です。", "デザイン・チームに送りました"],
    "hindi": ["ठीक है, मैं देखता हूँ।", "नमस्ते"],
    "thai": ["สวัสดีครับ", "เสร็จแล้ว!"],
    "cyrillic": ["Привет, всё готово.", "Да"],
    "korean": ["네", "안녕하세요, 확인했습니다."],
}
DEBRIS_CHARS = "<>{}[]|\\"
NO_LETTER = ["249358716", "...", "？！。", "12:05 - 14:00", "👍", " "]


def _good() -> list[tuple[str, str]]:
    return [(script, text) for script, texts in GOOD.items() for text in texts]


@pytest.mark.parametrize(("script", "text"), _good())
def test_ordinary_text_in_every_script_is_held_as_it_is(script, text):
    assert HELD.fullmatch(text) and HELD_OR_NOTHING.fullmatch(text)


@pytest.mark.parametrize(("script", "text"), _good())
@pytest.mark.parametrize("char", list(DEBRIS_CHARS))
def test_each_debris_character_is_kept_out_in_every_script(script, text, char):
    for pattern in (HELD, HELD_OR_NOTHING):
        assert not pattern.fullmatch(text + char)
        assert not pattern.fullmatch(char + text)
        assert not pattern.fullmatch(text[:1] + char + text[1:])


@pytest.mark.parametrize("text", NO_LETTER)
def test_a_text_needs_a_letter_of_some_script(text):
    assert not HELD.fullmatch(text) and not HELD_OR_NOTHING.fullmatch(text)
    assert HELD.fullmatch(text + "a") and HELD.fullmatch("好" + text) and HELD.fullmatch(text + "네")


@pytest.mark.parametrize(
    "junk",
    [
        "Your task123<<<I'm glad you're happy about this project>>My answer will be tomorrow.",
        "}]{[",
        "Create a task with TaskOps … (<<*>>)",
        "what you found or did}}}.",
        "… but [meta-27]",
        "Hello [insert user name],",
        "what you found or did'}, {",
        "249358716",
    ],
)
def test_the_junk_the_embedded_model_wrote_cannot_be_written(junk):
    assert not HELD.fullmatch(junk) and not HELD_OR_NOTHING.fullmatch(junk)


@pytest.mark.parametrize("control", ["\r", "\x00", "\x1b[31m", "\x08", "\x7f", "\x0b"])
def test_control_characters_are_kept_out_but_tab_and_newline_are_text(control):
    assert not HELD.fullmatch(f"ok{control}done") and not HELD_OR_NOTHING.fullmatch(f"ok{control}")
    assert HELD.fullmatch("ok\tdone") and HELD.fullmatch("# Notes\n\n- 好的\n- done")


def test_nothing_is_possible_only_where_nothing_means_none():
    assert HELD_OR_NOTHING.fullmatch("") and not HELD.fullmatch("")


def test_the_debris_set_is_exactly_the_issues():
    assert set(regex.findall(r"\\.|.", DEBRIS)) == {"<", ">", "{", "}", r"\[", r"\]", "|", "\\\\"}


@pytest.mark.parametrize(("script", "text"), _good())
def test_the_benchmarks_junk_count_reads_text_as_the_pattern_does(script, text):
    assert not is_junk(text)
    assert all(is_junk(text + char) for char in DEBRIS_CHARS)
    assert all(is_junk(bare) for bare in NO_LETTER)


# --------------------------------------------------------------------------- the schema held


def walk(node: Any, name: str = "", path: str = "$") -> Iterator[tuple[str, str, dict[str, Any]]]:
    """Every schema node with the field it stands for and its path (alternatives, items included)."""
    if isinstance(node, list):
        for i, item in enumerate(node):
            yield from walk(item, name, f"{path}[{i}]")
        return
    if not isinstance(node, dict):
        return
    yield name, path, node
    for field, child in node.get("properties", {}).items():
        yield from walk(child, field, f"{path}.{field}")
    for key in ("items", "prefixItems", "anyOf"):
        if key in node:
            yield from walk(node[key], name, f"{path}.{key}")


def _contexts(compact: bool) -> list[WireContext]:
    common: dict[str, Any] = dict(
        people=("bob", "charlie"), targets=("boss", "bob", "eng"), task_ids=("task-1",), compact=compact
    )
    docs = (("write_document", ("docs/a.md",), ()), ("review", ("docs/b.md",), ()))
    return [
        WireContext(**common),
        WireContext(**common, memory_ids=("mem-1",), claim_keys=("api-docs",)),
        WireContext(**common, memory_ids=("mem-1",), document_calls=docs),
        WireContext(**common, document_calls=(("revise_document", ("docs/a.md",), ("v1",)),)),
        WireContext(**common, document_calls=(("rebut", ("docs/a.md",), ()),)),
        WireContext(**common, documents=("write_document", "review", "rebut"), skills=("writing",)),
        WireContext(
            **common,
            tools=tuple(TOOL_ARGS),
            archetypes=("ultra-grinder",),
            departments=("eng",),
            staff=("bob",),
        ),
    ]


SCHEMAS = {f"compact-{i}": thought_schema(c) for i, c in enumerate(_contexts(True))}
SCHEMAS |= {f"full-{i}": thought_schema(c) for i, c in enumerate(_contexts(False))}
# Free strings that are not prose: the inner monologue (never shown as a post), ids, names and
# labels (their own rules: office/rules/labels.py), paths.
NOT_PROSE = {"think", "innerThoughts", "reason", "id", "name", "role", "to", "tool", "path", "base", "task"}
NOT_PROSE |= {"requirement", "claimKey", "conversation", "archetype", "department", "condition", "document"}
NOT_PROSE |= {"onResolveHint", "employeeId", "taskId", "onResolveTarget", "members", "memoryId", "type"}


@pytest.mark.parametrize("name", SCHEMAS)
def test_every_free_string_a_model_writes_is_either_prose_or_known_not_to_be(name):
    """A new text field cannot slip past: it is classified here, or this test fails."""
    for field, path, node in walk(SCHEMAS[name]):
        if node.get("type") == "string" and "enum" not in node:
            assert field in PROSE_FIELDS or field in NOT_PROSE, path


@pytest.mark.parametrize("name", SCHEMAS)
def test_held_every_text_people_read_carries_its_pattern_and_nothing_else_does(name):
    held = hold_prose(SCHEMAS[name])
    texts = 0
    for field, path, node in walk(held):
        free = node.get("type") == "string" and "enum" not in node
        if free and field in PROSE_FIELDS:
            texts += 1
            assert node["pattern"] == (WORDS_OR_NOTHING if field in MAY_BE_EMPTY else WORDS), path
        else:
            assert "pattern" not in node, path
    assert texts >= 4  # a message, memory, tasks at least


def test_held_covers_messages_documents_reviews_rebuttals_tasks_and_memory():
    found = {
        (field, node["pattern"])
        for schema in SCHEMAS.values()
        for field, _, node in walk(hold_prose(schema))
        if "pattern" in node
    }
    assert ("say", WORDS_OR_NOTHING) in found  # "" is silence
    for field in ("content", "notes", "argument", "description", "result", "reason", "mission"):
        assert (field, WORDS) in found, field
    assert ("impression", WORDS_OR_NOTHING) in found


@pytest.mark.parametrize("name", SCHEMAS)
def test_holding_changes_nothing_but_patterns_and_leaves_the_schema_as_it_was(name):
    schema = SCHEMAS[name]
    before = json.dumps(schema)
    held = hold_prose(schema)
    assert json.dumps(schema) == before  # the shared schema is not changed

    def unpattern(node: Any) -> Any:
        if isinstance(node, dict):
            return {k: unpattern(v) for k, v in node.items() if k != "pattern"}
        return [unpattern(v) for v in node] if isinstance(node, list) else node

    assert unpattern(held) == schema


# --------------------------------------------------------------------------- who sees it


def _request(schema: dict) -> ChatRequest:
    return ChatRequest(messages=[{"role": "user", "content": "hi"}], model="m", json_schema=schema, seed=3)


def _grammar_schema(args: dict) -> dict:
    return json.loads(args["extra_body"]["grammar"].split("%json ", 1)[1])


def test_the_small_models_grammar_holds_prose_and_the_requests_key_stays_the_same():
    schema = SCHEMAS["compact-2"]
    held = OpenAIChatLLM("http://127.0.0.1:9/v1", None, llama_grammar=True, hold_prose=True)
    plain = OpenAIChatLLM("http://127.0.0.1:9/v1", None, llama_grammar=True)
    held_args, plain_args = (
        held._arguments(_request(schema), "grammar"),
        plain._arguments(_request(schema), "grammar"),
    )
    assert _grammar_schema(held_args)["properties"]["say"]["pattern"] == WORDS_OR_NOTHING
    assert "pattern" not in plain_args["extra_body"]["grammar"]  # a GGUF of the user's own choosing
    request = _request(schema)
    key = request.key()
    held._arguments(request, "grammar")
    assert request.key() == key and "pattern" not in json.dumps(request.json_schema)  # replays match


@pytest.mark.parametrize("mode", ["json_schema", "json_object", "plain"])
def test_an_endpoint_never_sees_a_pattern_whatever_it_is_told(mode):
    endpoint = OpenAIChatLLM("http://127.0.0.1:9/v1", None, hold_prose=True)  # no grammar: ignored
    assert endpoint.prose is False
    args = endpoint._arguments(_request(SCHEMAS["compact-2"]), mode)
    assert "pattern" not in json.dumps(args)
    if mode == "json_schema":
        assert args["extra_body"]["response_format"]["json_schema"]["schema"] is SCHEMAS["compact-2"]


def test_a_grammar_is_made_once_per_schema_and_setting():
    schema = SCHEMAS["compact-1"]
    assert llguidance_grammar(schema, prose=True) is llguidance_grammar(schema, prose=True)
    assert llguidance_grammar(schema) != llguidance_grammar(schema, prose=True)
    assert "pattern" not in llguidance_grammar(schema) and WORDS.replace("\\", "\\\\") in llguidance_grammar(
        schema, prose=True
    )
