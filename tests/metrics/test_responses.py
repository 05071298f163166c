"""Boss lines answered and mention latency (docs/evaluation.md), on hand-made message records."""

from __future__ import annotations

from ideaco.metrics.responses import boss_lines, latency_summary, mention_latency

AGENTS = {"ana", "ben", "cyd"}


def msg(sender: str, secs: int, text: str = "hi", conv: str = "room", mentions=()) -> dict:
    return {
        "id": f"{sender}-{secs}",
        "sender": sender,
        "text": text,
        "conversation": conv,
        "mentions": list(mentions),
        "at": f"2026-01-05T09:{secs // 60:02d}:{secs % 60:02d}",
    }


def test_a_boss_line_is_answered_by_the_first_addressed_employee() -> None:
    out = boss_lines(
        [
            msg("boss", 0, "@Ben status?", mentions=["ben"]),
            msg("ana", 10),  # not addressed: does not answer it
            msg("ben", 40, conv="other"),  # elsewhere: no
            msg("ben", 70),
            msg("boss", 100, "Write the release notes.", mentions=["ana", "ben", "cyd"]),
            msg("cyd", 130, conv="boss:cyd"),  # a report in the boss chat answers it
        ],
        AGENTS,
    )
    first, second = out["lines"]
    assert (first["kind"], first["answered_by"], first["latency_s"]) == ("question", "ben", 70.0)
    assert (second["kind"], second["answered_by"], second["latency_s"]) == ("request", "cyd", 30.0)
    assert (out["questions"], out["requests"], out["answered"], out["answered_rate"]) == (1, 1, 2, 1.0)
    assert out["answered_by"] == {"ben": 1, "cyd": 1}
    assert out["latency"]["median_s"] == 50.0


def test_an_unanswered_boss_line() -> None:
    out = boss_lines([msg("boss", 0, "Anyone?", mentions=["ana"]), msg("ben", 5)], AGENTS)
    assert out["lines"][0]["answered_by"] is None and out["answered_rate"] == 0.0
    assert out["latency"] == {"count": 0, "mean_s": None, "median_s": None, "p90_s": None}
    assert boss_lines([], AGENTS)["answered_rate"] is None


def test_mention_latency_is_the_time_to_the_mentioned_one_s_next_message_there() -> None:
    out = mention_latency(
        [
            msg("ana", 0, "@Ben @Cyd thoughts?", mentions=["ben", "cyd"]),
            msg("boss", 5, "@Ben and you?", mentions=["ben"]),
            msg("ben", 20),  # answers both mentions of Ben
            msg("cyd", 30, conv="other"),  # not where she was mentioned
            msg("ana", 40, "@Ana talking to myself", mentions=["ana"]),  # self-mention: not counted
        ],
        AGENTS,
    )
    assert (out["mentions"], out["answered"]) == (3, 2)
    assert out["answered_rate"] == round(2 / 3, 4)
    assert out["latency"]["mean_s"] == 17.5


def test_latency_summary() -> None:
    assert latency_summary([3.0, 1.0, 2.0, 10.0]) == {
        "count": 4,
        "mean_s": 4.0,
        "median_s": 2.5,
        "p90_s": 10.0,
    }
