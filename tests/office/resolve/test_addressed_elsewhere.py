"""An employee addressed in two conversations at once answers the second right after the first,
not at its next timed look (spec 2.1: a mention or a boss message wakes within 1-5 s)."""

from __future__ import annotations

from datetime import datetime, timedelta

from tests.office.conftest import thought, thoughts_of, who


async def test_a_boss_line_elsewhere_is_answered_right_after_the_current_think(make_office) -> None:
    def answer(request):
        tag = who(request)
        if tag.employee == "alice" and tag.conversation == "boss:alice":
            return thought(True, "REST, in one line.", interest=8)
        # Anything else: silent and bored, so the adaptive next look is far away (~300 s).
        return thought(False, interest=1, saturation=10)

    script = [
        {"at": "00:00", "to": "api-design", "text": "Thoughts on the API, everyone?"},
        {"at": "00:00", "to": "boss:alice", "text": "Alice, REST or GraphQL? One line."},
    ]
    office = make_office(answer, casual=False, script=script)
    office.start()
    await office.run(timedelta(minutes=3))
    first, second, *_ = thoughts_of(office, "alice")
    assert {first["conversation"], second["conversation"]} == {"api-design", "boss:alice"}
    gap = datetime.fromisoformat(second["at"]) - datetime.fromisoformat(first["at"])
    # think (5 s) + wake (1-5 s) + typing (5-20 s), far below the ~300 s timed look
    assert gap <= timedelta(seconds=31), gap
    assert second["trigger"] == "boss"
    assert any(t["spoke"] for t in (first, second))
