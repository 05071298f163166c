"""An employee's display name, defined once (issue 27 item 4): the office (the prompt's transcript,
the chat) and the viewer name the boss, the system and a gone employee alike."""

from __future__ import annotations

from types import SimpleNamespace

from ideaco.ids import BOSS, SYSTEM, display_name
from ideaco.viewer.data import _people


def test_the_boss_the_system_and_a_gone_id_read_the_same_everywhere(make_office) -> None:
    office = make_office()
    others = [BOSS, SYSTEM, "gone"]
    run = SimpleNamespace(employees=[], messages=[{"sender": w} for w in others], thoughts=[])
    viewer = {p["id"]: p["name"] for p in _people(run)}
    for who in others:
        assert office.name_of(who) == viewer[who] == display_name(who)
    assert (office.name_of(BOSS), office.name_of(SYSTEM), office.name_of("alice")) == (
        "Boss",
        "system",
        "Alice",
    )
