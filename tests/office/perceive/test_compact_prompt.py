"""What a small local model reads (compact mode): the line it answers quoted last, no dedupe hint,
a message window that only grows at its end between steps (so the previous prompt is a prefix of
the next, and a server's cache serves it), and memorySummary asked only once lines left it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from ideaco.office.perceive.reading import WINDOW_LEAST, WINDOW_STEP, window_start
from tests.office.conftest import ROOM, prompt_of, step_until, thought, who


@pytest.mark.parametrize(
    ("count", "first_kept", "start"),
    [
        (0, 0, 0),
        (10, 0, 0),  # 10 lines: all shown
        (19, 0, 0),  # 19: still all (the window grows at its end)
        (20, 0, 10),  # 20: the window steps to 10..19
        (29, 0, 10),
        (30, 0, 20),
        (30, 25, 25),  # never before the first line the conversation keeps
    ],
)
def test_window_start(count: int, first_kept: int, start: int) -> None:
    assert (WINDOW_LEAST, WINDOW_STEP) == (10, 10)
    assert window_start(count, first_kept) == start


def _office(make_office, compact: bool, answers):
    office = make_office(answers, casual=False)
    office.config.compact_schema = compact
    office.start()
    return office


async def test_the_line_being_answered_is_quoted_and_no_dedupe_hint(make_office) -> None:
    def answers(request):
        if who(request).employee == "bob":
            return thought(True, "REST. Boring works.")
        return thought()

    office = _office(make_office, True, answers)
    office.post_as_boss(ROOM, "@Bob REST or GraphQL?")
    await step_until(office, lambda: any(m["sender"] == "bob" for m in office.journal.messages))
    office.post_as_boss(ROOM, "@Alice do you agree with Bob?")
    alice = office.employees["alice"]
    posted = office.conversations[ROOM].count
    await step_until(office, lambda: alice.desk.cursors.get(ROOM, 0) >= posted, within=timedelta(minutes=5))
    prompt = prompt_of([r for r in office.llm.requests if who(r).employee == "alice"][-1])
    assert 'You are answering Boss (BOSS): "@Alice do you agree with Bob?"' in prompt
    assert "Already said by colleagues" not in prompt
    bob = prompt_of([r for r in office.llm.requests if who(r).employee == "bob"][0])
    assert 'You are answering Boss (BOSS): "@Bob REST or GraphQL?"' in bob


async def test_a_full_model_keeps_the_dedupe_hint(make_office) -> None:
    def answers(request):
        return thought(True, "REST. Boring works.") if who(request).employee == "bob" else thought()

    office = _office(make_office, False, answers)
    office.post_as_boss(ROOM, "@Bob REST or GraphQL?")
    await step_until(office, lambda: any(m["sender"] == "bob" for m in office.journal.messages))
    office.post_as_boss(ROOM, "@Alice do you agree?")
    alice = office.employees["alice"]
    posted = office.conversations[ROOM].count
    await step_until(office, lambda: alice.desk.cursors.get(ROOM, 0) >= posted, within=timedelta(minutes=5))
    prompt = prompt_of([r for r in office.llm.requests if who(r).employee == "alice"][-1])
    assert 'Already said by colleagues (do not repeat): "REST. Boring works."' in prompt


async def test_consecutive_prompts_share_the_window_and_summary_is_asked_once_lines_left(make_office) -> None:
    office = _office(make_office, True, lambda _r: thought())
    alice = office.employees["alice"]
    for i in range(25):
        office.post_as_boss(ROOM, f"note {i:02d} for the record")
        if i in (12, 14, 24):
            posted = office.conversations[ROOM].count
            await step_until(office, lambda p=posted: alice.desk.cursors.get(ROOM, 0) >= p)
    asked = [r for r in office.llm.requests if who(r).employee == "alice" and who(r).conversation == ROOM]
    lines = [[ln for ln in prompt_of(r).splitlines() if "note " in ln and "[" in ln] for r in asked]
    thirteen = next(x for x in lines if len(x) == 13)
    fifteen = next(x for x in lines if len(x) == 15)
    # 13 then 15 lines: the same first lines (read marks aside), new ones at the end only.
    assert "note 00" in thirteen[0] and "note 00" in fifteen[0]
    assert [ln[1:] for ln in fifteen[:13]] == [ln[1:] for ln in thirteen]
    last = lines[-1]
    assert "note 10" in last[0] and len(last) == 15  # 25 lines: the window stepped to 10..24
    summary_asked = ["memorySummary" in r.json_schema["properties"] for r in asked]
    assert summary_asked[0] is False and summary_asked[-1] is True
