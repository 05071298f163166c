"""The task board (issue 13) through the engine: work offered or released tells its room, the keenest
wake to it first and the first claim takes it; the red zone may not claim; work nobody claims for
30 minutes pings the department's lead."""

from __future__ import annotations

from datetime import datetime, timedelta

from ideaco.kinds import MessageKind
from ideaco.mind.board import Offer
from ideaco.office.core.state import Begin
from ideaco.office.perceive import taskboard
from tests.office.conftest import (
    ROOM,
    START,
    messages_in,
    prompt_of,
    run_for,
    step_until,
    thought,
    thoughts_of,
    who,
)
from tests.office.decide.test_person_levers import RED, office_of

ASK = {"at": "00:00", "to": "boss:lead", "text": "Please put the quarterly report on the board."}


def model(claims: bool = True):
    def answer(request):
        tag, text = who(request), prompt_of(request)
        if tag.employee == "lead" and "quarterly report on the board" in text and "[task-" not in text:
            offer = {"op": "offer", "description": "Quarterly report", "claimKey": "quarterly-report"}
            return thought(True, "Done, it is on the board.", interest=7, taskOps=[offer])
        if claims and "## Claimable tasks" in text:
            return thought(
                True, "I'll take it.", interest=7, taskOps=[{"op": "create", "claimKey": "quarterly-report"}]
            )
        return thought()

    return answer


def team(make_office, handler, script: tuple[dict, ...] = ()):
    office = office_of(
        make_office,
        handler,
        script=[ASK, *script],
        lead="old-hand",
        zen="zen-slacker",
        grinder="ultra-grinder",
        tired="idealist",
    )
    office.employees["tired"].mind.stamina = RED
    return office


def owners(office) -> dict[str, str]:
    return {t.id: e.id for e in office.employees.values() for t in e.mind.tasks if t.pending}


async def test_offered_work_tells_the_room_and_the_keenest_claims_it_first(make_office, spy) -> None:
    office = team(make_office, model())
    wakes = spy(office)
    office.start()
    await step_until(office, lambda: bool(owners(office)))
    [notice] = [m for m in messages_in(office, ROOM) if m["kind"] == MessageKind.CLAIMABLE]
    assert notice["sender"] == "system"
    assert notice["text"] == (
        "Lead offers [task-1] Quarterly report (claim key quarterly-report). Anyone here can claim it."
    )
    woken = {w.employee: (w.due - w.at).total_seconds() for w in wakes.caused_by(notice["id"])}
    # Not the one who offered it, not the red zone; the grinder (0.95) long before the slacker (0.1).
    assert set(woken) == {"grinder", "zen"}
    assert 1 + 0.05 * 240 <= woken["grinder"] <= 5 + 0.05 * 240
    assert 1 + 0.9 * 240 <= woken["zen"] <= 5 + 0.9 * 240
    assert owners(office) == {"task-1": "grinder"}
    assert office.state.board == {}
    task = office.employees["grinder"].mind.tasks[0]
    assert (task.claim_key, task.origin) == ("quarterly-report", "boss")  # the boss asked for the work
    [claim] = [t for t in thoughts_of(office, "grinder") if t["spoke"]]
    assert [s for s in claim["applied"]["steps"] if s["step"] == "board"] == [
        {"step": "board", "removed": ["task-1"]}
    ]


async def test_the_board_opens_to_each_member_at_its_dibs(make_office) -> None:
    seen: list = []

    def answer(request):
        seen.append(request)
        return model(claims=False)(request)

    # The boss asks the slacker something a minute in: it thinks before its dibs for sure.
    office = team(make_office, answer, ({"at": "00:01", "to": ROOM, "text": "@Zen a quick one?"},))
    office.start()
    await office.run(timedelta(minutes=10))
    offered = office.state.board["task-1"].offered_at
    dibs = {"grinder": 12, "zen": 216, "tired": 72}
    shown = [(who(r).employee, who(r).at) for r in seen if "## Claimable tasks" in prompt_of(r)]
    assert "grinder" in {e for e, _ in shown} and "lead" not in {e for e, _ in shown}  # not its own offer
    for employee, at in shown:
        assert at >= offered + timedelta(seconds=dibs[employee])
    hidden = [who(r) for r in seen if "## Claimable tasks" not in prompt_of(r) and who(r).at > offered]
    assert any(t.employee == "zen" and t.at < offered + timedelta(seconds=216) for t in hidden)


async def test_a_late_claim_learns_who_took_it(make_office) -> None:
    def answer(request):
        text = prompt_of(request)
        if (
            who(request).employee == "zen" and "claim key quarterly-report" in text
        ):  # read in the room's notice
            return thought(taskOps=[{"op": "create", "claimKey": "quarterly-report"}])
        return model()(request)

    office = team(make_office, answer)
    office.start()
    await step_until(
        office, lambda: any(t["thought"] and t["thought"]["taskOps"] for t in thoughts_of(office, "zen"))
    )
    assert owners(office) == {"task-1": "grinder"}
    assert office.employees["zen"].mind.notes == [
        "Your task claim 'quarterly-report' was refused: Grinder (grinder) already owns it as task-1."
    ]


async def test_the_red_zone_sees_the_board_but_may_not_claim(make_office) -> None:
    requests: list = []

    def answer(request):
        requests.append(request)
        return model(claims=False)(request)

    office = team(make_office, answer)
    office.start()
    await office.run(timedelta(minutes=2))
    office.post_as_boss(ROOM, "@Tired have a look at the board")
    await step_until(
        office,
        lambda: any(who(r).employee == "tired" and "look at the board" in prompt_of(r) for r in requests),
    )
    [seen] = [r for r in requests if who(r).employee == "tired" and "look at the board" in prompt_of(r)]
    assert "You are worn out: finish or release your own tasks before you claim another." in prompt_of(seen)


async def test_work_nobody_claims_for_30_minutes_pings_the_lead_once(make_office) -> None:
    office = team(make_office, model(claims=False))
    office.start()
    await office.run(timedelta(minutes=50))
    offered = office.state.board["task-1"].offered_at
    pings = [t for t in thoughts_of(office, "lead") if t["trigger"] == "system"]
    assert len(pings) == 1
    ping = pings[0]
    assert ping["conversation"] == ROOM
    assert "Nobody has claimed [task-1] 'Quarterly report'" in ping["applied"]["note"]
    at = datetime.fromisoformat(ping["at"])
    assert offered + timedelta(minutes=30) <= at <= offered + timedelta(minutes=30, seconds=25)
    assert office.employees["lead"].desk.task_alerts == {"task-1": "unowned"}


async def test_a_released_task_goes_back_on_the_board_and_to_its_room(make_office) -> None:
    def answer(request):
        tag, text = who(request), prompt_of(request)
        if (
            tag.employee == "lead"
            and "Boss (BOSS): Lead, own the release notes" in text
            and "[task-" not in text
        ):
            return thought(
                True, "Mine.", interest=7, taskOps=[{"op": "create", "description": "Release notes"}]
            )
        if tag.employee == "lead" and "Boss (BOSS): Lead, give it up" in text:
            return thought(
                True, "OK.", interest=7, taskOps=[{"op": "release", "taskId": "task-1", "reason": "swamped"}]
            )
        return thought()

    office = office_of(
        make_office,
        answer,
        script=[
            {"at": "00:00", "to": "boss:lead", "text": "Lead, own the release notes."},
            {"at": "00:02", "to": "boss:lead", "text": "Lead, give it up, you are swamped."},
        ],
        lead="old-hand",
        grinder="ultra-grinder",
    )
    office.start()
    await office.run(timedelta(minutes=5))
    assert office.employees["lead"].mind.tasks == []
    offer = office.state.board["task-1"]
    assert (offer.claim_key, offer.reason, offer.room, offer.department) == (
        "release-notes",
        "swamped",
        ROOM,
        "eng",
    )
    [notice] = [m for m in messages_in(office, ROOM) if m["kind"] == MessageKind.CLAIMABLE]
    assert notice["text"].startswith(
        "Lead released [task-1] Release notes (claim key release-notes): swamped."
    )
    assert START < datetime.fromisoformat(notice["at"])


async def test_work_that_opens_after_its_line_was_read_still_gets_a_think(make_office) -> None:
    def answer(request):
        tag, text = who(request), prompt_of(request)
        if tag.employee == "zen" and "## Claimable tasks" in text:
            return model()(request)
        return model(claims=False)(request)

    office = team(make_office, answer)
    office.start()
    await step_until(office, lambda: bool(office.state.board))
    offered = office.state.board["task-1"].offered_at
    office.post_as_boss(ROOM, "@Zen how are you today?")  # Zen reads the offer's line long before its dibs
    await office.run(timedelta(minutes=6))
    [early] = [t for t in thoughts_of(office, "zen") if t["trigger"] == "boss"]
    assert datetime.fromisoformat(early["at"]) < offered + timedelta(seconds=216)
    assert owners(office) == {"task-1": "zen"}
    [claim] = [t for t in thoughts_of(office, "zen") if t["spoke"] and t["trigger"] == "task"]
    assert (
        "[task-1] 'Quarterly report' (claim key quarterly-report) on the task board is open to you now"
        in (claim["applied"]["note"])
    )
    at = datetime.fromisoformat(claim["at"])
    assert offered + timedelta(seconds=216) <= at <= offered + timedelta(seconds=216 + 25)


def test_board_work_is_owed_to_a_member_once_from_its_dibs(make_office) -> None:
    office = team(make_office, model())
    offer = Offer(
        id="task-1", description="Report", claim_key="report", offered_by="lead", offered_at=START, room=ROOM
    )
    office.state.board["task-1"] = offer
    zen, tired, grinder = (office.employees[e] for e in ("zen", "tired", "grinder"))
    opens = START + timedelta(seconds=216)
    assert taskboard.next_opening(office, zen, START) == opens
    assert taskboard.next_opening(office, zen, opens) is None
    assert taskboard.opened_alert(office, zen, opens - timedelta(milliseconds=1)) is None
    owed, task, level = taskboard.opened_alert(office, zen, opens)
    assert (owed.conversation, owed.trigger, task, level) == (ROOM, "task", "task-1", "opened")
    zen.desk.task_alerts[task] = level
    assert taskboard.opened_alert(office, zen, opens) is None  # once
    # The red zone may not claim: nothing owed, no look brought forward.
    assert taskboard.opened_alert(office, tired, opens) is None
    assert taskboard.next_opening(office, tired, START) is None
    # A think whose prompt listed the work counts as being told (reading it changes nothing; the
    # think's begin applies it).
    before = dict(grinder.desk.task_alerts)
    shown = taskboard.shown_alerts(office, grinder, START + timedelta(seconds=12))
    assert grinder.desk.task_alerts == before and shown["task-1"] == "opened"
    grinder.begin(Begin(None, False, shown))
    assert taskboard.opened_alert(office, grinder, START + timedelta(seconds=12)) is None


async def test_work_offered_in_two_thoughts_gets_two_ids_and_both_stay_on_the_board(make_office) -> None:
    again = {"at": "00:10", "to": "boss:lead", "text": "Please put the annual report on the board too."}
    offered: list[str] = []

    def answer(request):
        tag, text = who(request), prompt_of(request)
        for key in ("quarterly-report", "annual-report"):
            if (
                tag.employee == "lead"
                and f"{key.split('-')[0]} report on the board" in text
                and key not in offered
            ):
                offered.append(key)
                offer = {"op": "offer", "description": key.replace("-", " "), "claimKey": key}
                return thought(True, "It is on the board.", interest=7, taskOps=[offer])
        return thought()

    office = team(make_office, answer, script=(again,))
    office.start()
    await step_until(office, lambda: len(offered) >= 2 and not office.thinking)
    # An offer's id is a task id: the second thought's offer does not take the first one's id.
    assert sorted((o.id, o.claim_key) for o in office.state.board.values()) == [
        ("task-1", "quarterly-report"),
        ("task-2", "annual-report"),
    ]
    assert office.counters["task"] == 2


async def test_a_claim_key_that_is_no_slug_is_refused_and_the_thinker_reads_why(make_office) -> None:
    """Issue 29, item 3: a claim key like `104895763-boss.smithd.,-<span-style=` went on the task
    board as it was. Now the offer is refused, with a note the model reads; the run goes on."""
    bad = "104895763-boss.smithd.,-<span-style="

    def answer(request):
        tag, text = who(request), prompt_of(request)
        if tag.employee == "lead" and "quarterly report on the board" in text and "[task-" not in text:
            offer = {"op": "offer", "description": "Quarterly report", "claimKey": bad}
            return thought(True, "Done, it is on the board.", interest=7, taskOps=[offer])
        return thought()

    office = team(make_office, answer)
    office.start()
    await step_until(office, lambda: any(t["employee"] == "lead" for t in thoughts_of(office)))
    assert office.state.board == {}
    assert not [m for m in messages_in(office, ROOM) if m["kind"] == MessageKind.CLAIMABLE]
    notes = office.employees["lead"].mind.notes
    assert any(
        n.startswith(f"Your task claim '{bad}' was refused: a claim key is a short slug") for n in notes
    )
    await run_for(office, 30)  # the run goes on
