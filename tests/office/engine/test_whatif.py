"""The office as answers already in will leave it (office/engine/whatif.py): a think whose answer is
in is landed on a copy, the office untouched, and what its post sets off is predicted exactly as
the office will then send it. The whole runs, chained early calls and all, are
tests/office/engine/test_early_runs.py's."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from typing import Any

import pytest

from ideaco.llm.base import ChatRequest
from ideaco.office.engine import upcoming, whatif
from ideaco.office.engine.early import EarlyCalls
from ideaco.office.engine.office import Office
from tests.office.conftest import CASUAL, ROOM, step_until, thought, who

SAID = "The API draft is ready, @Bob can you review it?"


def alice_answers(request: ChatRequest) -> Any:
    """Alice answers the boss in the room, naming Bob; everyone else stays silent."""
    if who(request).employee == "alice" and who(request).conversation == ROOM:
        return thought(True, SAID, interest=8)
    return thought()


async def answered_not_landed(make_office) -> tuple[Office, whatif.Link]:
    """The office at the moment Alice's answer is in and her think has not finished yet."""
    office = make_office(
        alice_answers, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice where are we?"}]
    )
    office.start()
    await step_until(office, lambda: "alice" in office.thinking)
    ctx = office.thinking["alice"]
    while not ctx.call.done():
        await asyncio.sleep(0)
    (link,) = whatif.answered(office, ())
    return office, link


def _desks(office: Office) -> dict[str, Any]:
    return {e.id: e.desk.to_dict() for e in office.employees.values()}


async def test_an_answer_in_lands_on_a_copy_and_the_office_is_untouched(make_office) -> None:
    office, link = await answered_not_landed(make_office)
    room, desks, streams = office.conversations[ROOM], _desks(office), office.streams.to_dict()
    count, messages, minds = (
        room.count,
        list(office.journal.messages),
        office.employees["alice"].mind.to_dict(),
    )

    view = whatif.what_if(office, [link])

    assert view is not None and view.links == (link.key,) and "alice" not in view.thinking
    assert view.landed_at == upcoming.finish_at(office, link.at)
    assert [m.text for m in view.conversations[ROOM].recent][-1] == SAID
    # Bob, named, is woken soon in the what-if; the office itself has not moved.
    woken, was = view.employees["bob"].desk.wake_at, office.employees["bob"].desk.wake_at
    assert woken is not None and woken > view.landed_at and (was is None or woken < was)
    assert (room.count, office.journal.messages, _desks(office)) == (count, messages, desks)
    assert office.streams.to_dict() == streams and office.employees["alice"].mind.to_dict() == minds
    assert "alice" in office.thinking and view.wakes.due == []


async def test_what_a_landed_answer_sets_off_is_predicted_as_the_office_then_sends_it(make_office) -> None:
    office, link = await answered_not_landed(make_office)
    view = whatif.what_if(office, [link])
    assert view is not None
    chained = upcoming.predict(view, "bob")
    before = upcoming.predict(office, "bob")
    assert chained is not None and SAID in chained.request.messages[-1]["content"]
    assert before is None or before.request != chained.request

    await step_until(office, lambda: "alice" not in office.thinking)  # her think lands for real

    assert upcoming.predict(office, "bob") == chained  # the very request, at the very moment


async def test_a_think_whose_answer_is_not_in_or_posts_nothing_is_no_link(make_office) -> None:
    office = make_office(casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice where are we?"}])
    office.start()
    await step_until(office, lambda: "alice" in office.thinking)
    ctx = office.thinking["alice"]
    assert not ctx.call.done() and whatif.answered(office, ()) == []  # not in yet
    while not ctx.call.done():
        await asyncio.sleep(0)
    assert whatif.answered(office, ()) == []  # in, and silent: nothing it lands changes a prediction


async def test_an_early_calls_answer_lands_as_its_think_will(make_office) -> None:
    """Alice's think has not begun (she is typing); the call made early for it has answered. The
    what-if begins her think as the office will (her look, her stamina, the thought's id) and lands
    her post: what it sets off is the office's own request once she has thought."""
    office = make_office(
        alice_answers, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice where are we?"}]
    )
    office.start()
    await step_until(office, lambda: "alice" in office.typing)
    think = upcoming.predict(office, "alice")
    assert think is not None
    call = office.calls.start(office.llm, think.request)
    await call
    links = [link for link in whatif.answered(office, [("alice", think, call)]) if link.line is None]
    assert [link.employee for link in links] == ["alice"] and links[0].ctx is None
    view = whatif.what_if(office, links)
    assert view is not None and view.landed_early == {"alice"}
    assert view.landed_at == upcoming.finish_at(office, think.at)
    posted = view.conversations[ROOM].recent[-1]
    chained = upcoming.predict(view, "bob")
    assert chained is not None and SAID in chained.request.messages[-1]["content"]
    assert "alice" in office.typing and office.conversations[ROOM].recent[-1].text != SAID  # untouched

    await step_until(office, lambda: office.conversations[ROOM].recent[-1].text == SAID)

    landed = office.conversations[ROOM].recent[-1]
    assert (landed.id, landed.at, landed.mentions) == (posted.id, posted.at, posted.mentions)
    assert office.employees["alice"].mind.stamina == view.employees["alice"].mind.stamina
    assert upcoming.predict(office, "bob") == chained


async def test_the_bosss_next_script_line_lands_on_the_what_if(make_office) -> None:
    office = make_office(
        alice_answers, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Bob what is left?"}]
    )
    office.start()
    (link,) = whatif.answered(office, ())
    assert (link.line, link.key, link.call) == (0, "script-1", None)
    view = whatif.what_if(office, [link])
    assert view is not None and view.script_next == 1 and office.script_next == 0
    chained = upcoming.predict(view, "bob")
    assert chained is not None and "what is left?" in chained.request.messages[-1]["content"]

    await step_until(office, lambda: office.script_next == 1)

    assert office.conversations[ROOM].recent[-1] == view.conversations[ROOM].recent[-1]
    assert upcoming.predict(office, "bob") == chained


async def test_a_script_line_that_signs_off_ends_the_chain(make_office) -> None:
    script = [
        {"at": "00:00", "to": "boss:bob", "text": "/approve req-1"},  # a sign-off: not carried
        {"at": "00:01", "to": ROOM, "text": "@Bob what is left?"},
    ]
    office = make_office(alice_answers, casual=False, script=script)
    office.start()
    links = whatif.answered(office, ())
    assert [link.key for link in links] == ["script-1"]  # with no answer in, the next line only
    assert whatif.what_if(office, links) is None


async def test_a_think_its_predecessor_will_supersede_ends_the_chain(make_office) -> None:
    """Alice and Charlie both answer the boss; the one who finishes second began before the
    first one's post: at its finish it thinks again (superseded), so nothing after it is landed."""

    def both_answer(request: ChatRequest) -> Any:
        if who(request).conversation == ROOM and who(request).employee in ("alice", "charlie"):
            return thought(True, f"{who(request).employee} here: the API draft is ready", interest=8)
        return thought()

    office = make_office(
        both_answer, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice @Charlie status?"}]
    )
    office.config.think_seconds = 60.0  # long thinks: both are under way at once
    office.start()
    await step_until(office, lambda: {"alice", "charlie"} <= set(office.thinking))
    for ctx in office.thinking.values():
        while not ctx.call.done():
            await asyncio.sleep(0)
    links = whatif.answered(office, ())
    assert [link.employee for link in links] == sorted(
        ("alice", "charlie"), key=lambda e: office.thinking[e].at
    )
    view = whatif.what_if(office, links)
    assert view is not None and view.links == (links[0].key,)
    assert links[1].employee in view.thinking  # still thinking there: it thinks again


async def test_an_early_think_that_begins_before_what_is_landed_ends_the_chain(make_office) -> None:
    """Bob answers the boss in his boss chat, a long think under way; Alice's early call for the
    room is in too, but her think begins before his lands. Though she reads another conversation,
    what his post sets off may reach her before she begins: she is not landed after it."""

    def both_answer(request: ChatRequest) -> Any:
        if (who(request).employee, who(request).conversation) in (("alice", ROOM), ("bob", "boss:bob")):
            return thought(True, f"{who(request).employee} here: the API draft is ready", interest=8)
        return thought()

    script = [
        {"at": "00:00", "to": ROOM, "text": "@Alice status?"},
        {"at": "00:00", "to": "boss:bob", "text": "Bob, status?"},
    ]
    office = make_office(both_answer, casual=False, script=script)
    office.config.think_seconds = 60.0
    office.start()
    await step_until(office, lambda: "bob" in office.thinking and "alice" in office.typing)
    think = upcoming.predict(office, "alice")
    assert think is not None and think.at < upcoming.finish_at(office, office.thinking["bob"].at)
    call = office.calls.start(office.llm, think.request)
    await call
    while not office.thinking["bob"].call.done():
        await asyncio.sleep(0)
    links = [link for link in whatif.answered(office, [("alice", think, call)]) if link.line is None]
    assert [link.employee for link in links] == ["bob", "alice"]
    view = whatif.what_if(office, links)
    assert view is not None and view.links == (office.thinking["bob"].thought_id,)
    assert view.landed_early == set()
    alone = whatif.what_if(office, links[1:])  # on its own, Alice's think lands
    assert alone is not None and alone.landed_early == {"alice"}


async def test_an_idle_look_found_early_restarts_its_rooms_idle_time_as_the_office_will(make_office) -> None:
    """A look that finds a quiet casual room thinks there (an idle think) and restarts the room's
    idle time at the look's moment: on the what-if as in the office."""

    def chatty(request: ChatRequest) -> Any:
        return (
            thought(True, "Anyone up for coffee?", interest=6)
            if who(request).conversation == CASUAL
            else thought()
        )

    office = make_office(chatty)
    office.start()

    def idle_found() -> str | None:
        for _, employee in upcoming.upcoming(office):
            think = upcoming.predict(office, employee)
            if think is not None and think.plan is not None and think.plan.found.idle:
                return employee
        return None

    await step_until(office, lambda: idle_found() is not None, within=timedelta(hours=6))
    employee = idle_found()
    assert employee is not None
    think = upcoming.predict(office, employee)
    call = office.calls.start(office.llm, think.request)
    await call
    links = [link for link in whatif.answered(office, [(employee, think, call)]) if link.line is None]
    view = whatif.what_if(office, links)
    assert view is not None and view.landed_early == {employee}
    looked = view.meta["idle_thought_at"][CASUAL]
    assert looked == (think.at - timedelta(seconds=think.plan.pause)).isoformat()

    await step_until(office, lambda: employee in office.typing)

    assert office.meta["idle_thought_at"][CASUAL] == looked


@pytest.mark.parametrize("limit", [1, 2])
async def test_the_thinks_an_answer_sets_off_start_early_within_the_limit(make_office, limit: int) -> None:
    """Alice's post, once landed, wakes Bob (named) and Charlie (nudged): nothing the office as it
    stands predicts for them can be started (her post lands first), but on the what-if they can,
    as many as `--speculate` leaves room for."""
    office, link = await answered_not_landed(make_office)
    ahead = EarlyCalls(limit, settle_s=0.0, survival=0.0)  # (nobody held back by another's think)
    ahead.top_up(office)
    assert ahead.counts.started == ahead.counts.chained == len(ahead.early) == limit
    assert all(e.chained and SAID in e.request.messages[-1]["content"] for e in ahead.early.values())
    assert set(ahead.early) <= {"bob", "charlie"}


async def test_a_chained_call_is_kept_while_the_answer_it_rests_on_stands_and_used_once_it_lands(
    make_office,
) -> None:
    office, link = await answered_not_landed(make_office)
    ahead = office.early_calls = EarlyCalls(2, settle_s=0.0, survival=0.0)
    ahead.top_up(office)
    chained = {e: early.request for e, early in ahead.early.items()}
    ahead.touch(list(chained))  # (something they read changed, say): checked again, still the same
    ahead.top_up(office)
    assert {e: early.request for e, early in ahead.early.items()} == chained and ahead.counts.dropped == 0
    await step_until(office, lambda: ahead.counts.used == len(chained))
    assert ahead.counts.dropped == 0


async def test_a_chained_call_whose_answer_is_gone_is_dropped(make_office) -> None:
    """The answer it rested on is no longer in (cut, say): the office as it stands sends another
    request, so the call made on the what-if is dropped at the next look."""
    office, link = await answered_not_landed(make_office)
    ahead = EarlyCalls(2, settle_s=0.0, survival=0.0)
    ahead.top_up(office)
    assert ahead.counts.chained == 2
    del office.thinking["alice"]  # her think gone: nothing to chain on
    ahead.touch(["bob", "charlie"])
    ahead.top_up(office)
    assert ahead.counts.dropped == 2 and not any(e.chained for e in ahead.early.values())
