"""Perceive reads the office and writes nothing of it (issue 38, item 2): a look's plan, the
request a think sends, the alerts its prompt shows and the context it carries leave the office
as they found it, its random streams too; the desk takes a look's plan itself (`Desk.take_look`)."""

from __future__ import annotations

import asyncio
import json
import random
from datetime import timedelta

from ideaco.cycle import Trigger
from ideaco.office.engine import persistence
from ideaco.office.perceive import looks, reading, taskboard
from tests.office.conftest import ROOM


def _saved(office) -> str:
    return json.dumps(persistence.snapshot(office), sort_keys=True, default=str)


async def test_a_look_and_what_a_think_reads_change_nothing_of_the_office(make_office) -> None:
    office = make_office()
    office.start()
    await office.run(timedelta(minutes=1))
    office.post_as_boss(ROOM, "@Alice where is the API draft?")
    emp, conv = office.state.employees["alice"], office.state.conversations[ROOM]
    considered = office.meta.setdefault("idle_thought_at", {})
    before, now = _saved(office), office.now()

    plan = looks.plan_look(office.policy, office, emp, [Trigger.MENTION], now, random.Random(1), considered)
    assert plan is not None and plan.found.conversation == ROOM  # it found the mention
    begun = reading.begin_request(office, emp, conv, plan.trigger, plan.note, now, random.Random(2))
    assert "where is the API draft?" in begun.request.messages[-1]["content"]
    taskboard.shown_alerts(office, emp, now)
    call = asyncio.get_running_loop().create_future()
    ctx = begun.context(emp, conv, plan.trigger, now, "t-probe", call, note=plan.note, rethinks=0)
    assert ctx.mentioned and ctx.conversation == ROOM

    assert _saved(office) == before  # desks, minds, rooms, counters, streams: as they were
    emp.desk.take_look(plan.found.alert, plan.found.owed, plan.deferred)  # the desk's own write
    assert _saved(office) != before
