"""The office as answers already in will leave it (office/engine/whatif.py): a think whose answer is
in is landed on a copy, the office untouched, and what its post sets off is predicted exactly as
the office will then send it. The whole runs, chained early calls and all, are
tests/office/test_ahead.py's."""

from __future__ import annotations

import asyncio
from typing import Any

from ideaco.llm.base import ChatRequest
from ideaco.office.engine import upcoming, whatif
from ideaco.office.engine.office import Office
from tests.office.conftest import ROOM, step_until, thought, who

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
