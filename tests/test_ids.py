"""`ideaco.ids`: the boss chat's id is built and read back in one place."""

from __future__ import annotations

import pytest

from ideaco.ids import boss_chat_owner, boss_conversation_id


@pytest.mark.parametrize("employee", ["alice", "secretary", "dan-2", "a:b"])
def test_a_boss_chat_id_reads_back_as_its_employee(employee):
    assert boss_conversation_id(employee) == f"boss:{employee}"
    assert boss_chat_owner(boss_conversation_id(employee)) == employee


@pytest.mark.parametrize("conversation", ["boss", "general", "dm:alice:bob", "bossy:alice", "Boss:alice"])
def test_any_other_id_has_no_boss_chat_owner(conversation):
    assert boss_chat_owner(conversation) is None
