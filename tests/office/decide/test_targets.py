"""Where a message or a report goes (issue 27 item 4): `send_message`'s `to` and a task's
onResolveTarget are read by one function, so what one accepts the other does."""

from __future__ import annotations

import pytest

from ideaco.mind.targets import normalize_target
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.speech import target_for
from tests.office.conftest import ROOM

NAMED = [
    ("boss", "boss:alice"),
    ("Boss", "boss:alice"),
    ("boss:alice", "boss:alice"),
    ("boss-chat-alice", "boss:alice"),
    ("bob", "dm:alice:bob"),
    ("Bob", "dm:alice:bob"),
    ("@Charlie", "dm:alice:charlie"),
    ("dm-bob", "dm:alice:bob"),
    ("dm:bob:alice", "dm:alice:bob"),
    (ROOM, ROOM),
    (f"group-chat-{ROOM}", ROOM),
    ("#" + ROOM, ROOM),
]
NOWHERE = [
    "nowhere",
    "boss:bob",
    "boss-chat-bob",
    "dm:bob:charlie",
    "dm-zed",
    "alice",
    "Alice",
    "group-chat-x",
]


@pytest.mark.parametrize(("ref", "where"), NAMED)
def test_a_message_and_a_report_go_where_the_same_words_name(make_office, ref: str, where: str) -> None:
    scratch = Scratch(make_office().state)
    rooms = [c.id for c in make_office().conversations_of("alice")]
    assert target_for(scratch, "alice", ref, scratch.people()).id == where
    assert normalize_target(ref, "alice", conversations=rooms, people=scratch.people()) == (where, None)


@pytest.mark.parametrize("ref", NOWHERE)
def test_neither_goes_where_the_words_name_no_conversation_of_its_own(make_office, ref: str) -> None:
    scratch = Scratch(make_office().state)
    rooms = [c.id for c in make_office().conversations_of("alice")]
    assert target_for(scratch, "alice", ref, scratch.people()) is None
    assert normalize_target(ref, "alice", conversations=rooms, people=scratch.people())[0] is None
