"""A think lands in one call (`apply.resolve`) that writes the state and hands back its `Effects`:
the record, the messages to log and show, the wakes to put on the clock. The engine does the rest."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ideaco.office.resolve import apply
from ideaco.office.resolve.landing import Effects
from tests.office.conftest import ROOM, step_until, thought, thoughts_of, who


async def test_a_think_lands_as_effects_and_the_engine_logs_and_schedules_them(
    make_office, monkeypatch
) -> None:
    def answer(request: Any) -> Any:
        if who(request).employee == "alice":
            return thought(True, "@Bob REST, and gRPC between services.", interest=8)
        return thought()

    office = make_office(
        answer, casual=False, script=[{"at": "00:00", "to": ROOM, "text": "@Alice REST or GraphQL?"}]
    )
    landed: list[Effects] = []
    real = apply.resolve

    def resolve(land: Any, result: Any, posts: Any) -> Effects:
        written = (len(office.journal.messages), len(office.journal.thoughts))
        effects = real(land, result, posts)
        assert (len(office.journal.messages), len(office.journal.thoughts)) == written  # it logs nothing
        landed.append(effects)
        return effects

    monkeypatch.setattr(apply, "resolve", resolve)
    office.start()
    await step_until(office, lambda: bool(thoughts_of(office, "alice")))

    [effects] = [e for e in landed if e.record is not None and e.record["employee"] == "alice"]
    assert effects.record == thoughts_of(office, "alice")[0]  # the record the engine logged
    [message] = effects.posted
    assert office.journal.messages[-1] == message.to_record()  # logged by the engine
    assert effects.record["messages"] == [message.id]
    assert effects.next_look is not None
    assert effects.record["next_look_at"] == effects.next_look.isoformat()
    woken = {wake.employee for wake in effects.wakes}
    assert {"bob", "alice"} <= woken  # whom the post reaches, and the thinker's next look
    alice = office.employees["alice"].desk
    assert alice.phase == "idle" and alice.wake_at is not None
    assert any(w.employee == "alice" and w.at == alice.wake_at for w in effects.wakes)
    assert all(isinstance(w.at, datetime) for w in effects.wakes)
