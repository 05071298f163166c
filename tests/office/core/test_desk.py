"""The desk's own writes (core, issue 38 item 2): a think cut short owed again, a think about to
begin for an employee held meanwhile; the engine calls them (at a begin, at a resume)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ideaco.cycle import Owed, Phase, Trigger
from tests.office.conftest import ROOM


def test_a_think_cut_short_is_owed_again_first(make_office) -> None:
    office = make_office()
    desk = office.employees["alice"].desk
    cut, other = Owed("boss:alice", Trigger.SYSTEM, "Report."), Owed(ROOM, Trigger.MENTION, "Answer Bob.")
    desk.phase, desk.inflight, desk.owed, desk.wake_triggers = Phase.THINKING, cut, [other], []
    desk.restore_cut_think()
    assert (desk.phase, desk.inflight, desk.owed, desk.wake_triggers) == (
        Phase.IDLE,
        None,
        [cut, other],
        [Trigger.SYSTEM],
    )
    desk.phase, desk.inflight = Phase.TYPING, cut  # owed already: not twice
    desk.restore_cut_think()
    assert desk.owed == [cut, other]
    for still in (Owed("boss:alice", Trigger.SYSTEM, "Other."), Owed(ROOM, Trigger.SYSTEM, "Report.")):
        desk.phase, desk.inflight = Phase.THINKING, still  # the same room or note, not the same think
        desk.restore_cut_think()
        assert desk.owed[0] == still


def test_a_plain_look_cut_short_looks_again_on_a_timer_and_an_idle_desk_is_left_alone(make_office) -> None:
    office = make_office()
    desk = office.employees["alice"].desk
    desk.phase, desk.inflight, desk.wake_triggers = Phase.THINKING, None, []
    desk.restore_cut_think()
    assert (desk.phase, desk.owed, desk.wake_triggers) == (Phase.IDLE, [], [Trigger.TIMER])
    desk.inflight, desk.wake_triggers = Owed(ROOM, Trigger.MENTION, "x"), [Trigger.BOSS]
    desk.restore_cut_think()  # idle: nothing was cut
    assert (desk.owed, desk.wake_triggers, desk.inflight) == ([], [Trigger.BOSS], None)


@pytest.mark.parametrize("held", [False, True])
def test_a_think_about_to_begin_for_an_employee_held_meanwhile_waits(make_office, held: bool) -> None:
    office = make_office()
    if held:
        office.post_as_boss(ROOM, "@Alice stop")
    desk = office.employees["alice"].desk
    desk.phase, desk.wake_at = Phase.TYPING, office.now() + timedelta(seconds=9)
    assert desk.held_while_typing() is held
    assert (desk.phase is Phase.IDLE) is held and (desk.wake_at is None) is held
