"""Who talks to whom, persona spread and mood (docs/evaluation.md)."""

from __future__ import annotations

import pytest

from ideaco.metrics.social import graph_summary, mood, persona_spread, talk_edges

PEOPLE = {"ana", "ben", "cyd", "boss"}


def msg(sender: str, conv: str = "room", mentions=()) -> dict:
    return {"sender": sender, "conversation": conv, "mentions": list(mentions), "at": "2026-01-05T09:00:00"}


def test_a_message_goes_to_whom_it_mentions_else_the_other_side_else_the_last_speaker() -> None:
    edges = talk_edges(
        [
            msg("boss", mentions=["ana", "ben"]),  # boss -> ana, boss -> ben
            msg("ana"),  # a reply to the boss, the last speaker here
            msg("ana"),  # her own message was the last: to nobody
            msg("ben", "dm:ben:cyd"),  # a DM: to the other side
            msg("cyd", "boss:cyd"),  # the boss chat: to the boss
            msg("boss", "boss:cyd"),  # and back
            msg("secretary"),  # not one of `people`
        ],
        PEOPLE,
    )
    assert {(e["from"], e["to"]): e["count"] for e in edges} == {
        ("boss", "ana"): 1,
        ("boss", "ben"): 1,
        ("ana", "boss"): 1,
        ("ben", "cyd"): 1,
        ("cyd", "boss"): 1,
        ("boss", "cyd"): 1,
    }
    summary = graph_summary(edges)
    assert summary["pairs"] == 6
    assert summary["reciprocity"] == round(4 / 6, 4)  # boss<->ana, boss<->cyd talk back
    assert summary["to_boss_share"] == round(2 / 6, 4)
    assert graph_summary([]) == {"pairs": 0, "reciprocity": None, "to_boss_share": None}


def test_persona_spread_is_the_coefficient_of_variation_of_archetype_rates() -> None:
    out = persona_spread(
        {"ana": "chatterbox", "ben": "chatterbox", "cyd": "shy-introvert"},
        messages_by={"ana": 6, "ben": 2, "cyd": 1},
        thoughts_by={"ana": 6, "ben": 4, "cyd": 4},
        spoke_by={"ana": 6, "ben": 2, "cyd": 1},
        hours=2.0,
    )
    rows = out["by_archetype"]
    assert rows["chatterbox"]["messages_per_hour"] == 2.0  # 8 messages / 2 employees / 2 h
    assert rows["shy-introvert"]["messages_per_hour"] == 0.5
    assert rows["chatterbox"]["speak_rate"] == 0.8
    assert out["spread"] == pytest.approx(0.6)  # pstdev(2, 0.5) / mean = 0.75 / 1.25
    one = persona_spread({"ana": "chatterbox"}, {"ana": 3}, {"ana": 3}, {"ana": 3}, 1.0)
    assert one["spread"] is None
    quiet = persona_spread({"ana": "a", "ben": "b"}, {}, {}, {}, 1.0)
    assert quiet["spread"] is None


def test_mood_is_each_thought_s_interest_and_saturation() -> None:
    thoughts = [
        {
            "employee": "ana",
            "at": "2026-01-05T09:02:00",
            "thought": {"interestLevel": 8, "topicSaturation": 2},
        },
        {
            "employee": "ana",
            "at": "2026-01-05T09:01:00",
            "thought": {"interestLevel": 4, "topicSaturation": 6},
        },
        {"employee": "ben", "at": "2026-01-05T09:03:00", "thought": None},  # a failed call: no mood
    ]
    out = mood(thoughts)
    assert [p["interest"] for p in out["by_employee"]["ana"]] == [4, 8]
    assert (out["interest_mean"], out["saturation_mean"]) == (6.0, 4.0)
    assert mood([])["interest_mean"] is None
