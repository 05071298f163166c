"""A think begins in one place (issue 38, item 2): `Begin` is what beginning takes, applied by
`Employee.begin` for the live run, the what-if and the replay; a record's `began` reads back."""

from __future__ import annotations

from ideaco.cycle import Owed, Phase, Trigger
from ideaco.mind.stamina import Stamina
from ideaco.office.core.state import Begin, Employee


def _emp() -> Employee:
    emp = Employee("ann", "Ann", "Engineer", 30, "eng", None, {})
    emp.mind.notes = ["[system] the boss said hi"]
    emp.desk.task_alerts = {"task-1": "aging"}
    return emp


def test_beginning_sets_the_phase_the_stamina_the_notes_read_and_the_alerts_shown() -> None:
    emp, tired = _emp(), Stamina(patience=60.0, fatigue=30.0, stress=10.0)
    emp.begin(Begin(tired, True, {"task-1": "aging", "task-2": "opened"}))
    assert emp.desk.phase is Phase.THINKING and emp.mind.stamina == tired and emp.mind.notes == []
    assert emp.desk.task_alerts == {"task-1": "aging", "task-2": "opened"}


def test_a_logged_begin_reads_back_as_the_live_one_applied_it() -> None:
    live, replayed = _emp(), _emp()
    began = Begin(Stamina(patience=90.0), True, {"task-1": "aging", "task-2": "opened"})
    live.begin(began)
    record = {
        "stamina": began.stamina.to_dict(),
        "notes": ["[system] the boss said hi"],
        "task_alerts": dict(began.task_alerts),
    }
    replayed.begin(Begin.from_record(record))
    assert (live.mind.stamina, live.mind.notes, live.desk.task_alerts, live.desk.phase) == (
        replayed.mind.stamina,
        replayed.mind.notes,
        replayed.desk.task_alerts,
        replayed.desk.phase,
    )


def test_an_older_record_without_stamina_or_notes_keeps_them() -> None:
    emp = _emp()
    before = emp.mind.stamina
    emp.begin(Begin.from_record({}))
    assert emp.mind.stamina == before and emp.mind.notes == ["[system] the boss said hi"]
    assert emp.desk.phase is Phase.THINKING


# --- a look taken onto the desk (perceive writes nothing: the desk takes the plan itself) ---------


def test_a_look_at_an_owed_think_takes_it_in_flight_and_keeps_the_wakes_other_causes() -> None:
    desk = _emp().desk
    report, later = Owed("boss:ann", Trigger.BOSS, "report"), Owed("eng", Trigger.MENTION)
    desk.owed, desk.deferred_triggers = [report, later], ["timer"]
    desk.take_look(("task-2", "overdue"), report, ("nudge", "timer"))
    assert desk.inflight is report and desk.owed == [later]
    assert desk.deferred_triggers == ["timer", "nudge"]  # a cause already kept is kept once
    assert desk.task_alerts == {"task-1": "aging", "task-2": "overdue"} and desk.phase is Phase.TYPING


def test_an_idle_think_is_owed_to_no_one_and_a_plain_look_keeps_no_cause() -> None:
    desk = _emp().desk
    idle = Owed("casual", Trigger.IDLE)
    desk.owed = [idle]
    desk.take_look(None, idle, ("nudge",))
    assert desk.inflight is None and desk.owed == [] and desk.deferred_triggers == ["nudge"]
    plain = _emp().desk
    plain.inflight = Owed("eng", Trigger.MENTION)
    plain.take_look(None, None, ("nudge",))
    assert (
        plain.inflight is None and plain.deferred_triggers == [] and plain.task_alerts == {"task-1": "aging"}
    )
    assert plain.phase is Phase.TYPING
