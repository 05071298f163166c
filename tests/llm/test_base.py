from __future__ import annotations

from ideaco.llm import ChatRequest
from tests.llm.conftest import SCHEMA, make_request


def test_key_is_stable_and_hex():
    assert make_request().key() == make_request().key()
    assert len(make_request().key()) == 64
    int(make_request().key(), 16)


def test_key_ignores_tag_but_not_what_shapes_the_answer():
    base = make_request()
    assert make_request(tag="bob in casual").key() == base.key()
    assert make_request("other text").key() != base.key()
    assert make_request(model="other").key() != base.key()
    assert make_request(schema=None).key() != base.key()
    assert make_request(max_tokens=10).key() != base.key()
    assert make_request(temperature=0.1).key() != base.key()
    assert make_request(seed=3).key() != base.key()


def test_key_does_not_depend_on_dict_order_or_list_vs_tuple():
    a = ChatRequest(messages=[{"role": "user", "content": "x"}], model="m", json_schema=dict(SCHEMA))
    b = ChatRequest(
        messages=({"content": "x", "role": "user"},),
        model="m",
        json_schema=dict(reversed(list(SCHEMA.items()))),
    )
    assert isinstance(a.messages, tuple)
    assert a.key() == b.key()


def test_with_messages_appends_and_keeps_settings():
    base = make_request(seed=5)
    more = base.with_messages({"role": "assistant", "content": "x"}, tag="t2")
    assert more.messages[:-1] == base.messages and more.messages[-1]["content"] == "x"
    assert (more.seed, more.json_schema, more.tag) == (5, base.json_schema, "t2")
