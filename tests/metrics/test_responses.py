"""Boss lines replied to and answered by the addressee, and mention latency (docs/evaluation.md), on
hand-made message records. A reply is any later message of an employee a line names; an answer is
the addressee's own."""

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


def test_a_boss_line_is_replied_to_by_the_first_addressed_employee() -> None:
    out = boss_lines(
        [
            msg("boss", 0, "@Ben status?", mentions=["ben"]),
            msg("ana", 10),  # not addressed: does not reply to it
            msg("ben", 40, conv="other"),  # elsewhere: no
            msg("ben", 70),
            msg("boss", 100, "Write the release notes.", mentions=["ana", "ben", "cyd"]),
            msg("cyd", 130, conv="boss:cyd"),  # a report in the boss chat replies to it
        ],
        AGENTS,
    )
    first, second = out["lines"]
    assert (first["kind"], first["replied_by"], first["latency_s"]) == ("question", "ben", 70.0)
    assert (second["kind"], second["replied_by"], second["latency_s"]) == ("request", "cyd", 30.0)
    assert (out["questions"], out["requests"], out["replied"], out["replied_rate"]) == (1, 1, 2, 1.0)
    assert out["replied_by"] == {"ben": 1, "cyd": 1}
    # Ben answered his @-mention in person; the room-wide request spoke to nobody in particular.
    assert (out["addressed"], out["answered"], out["answered_rate"]) == (1, 1, 1.0)
    assert out["answered_by"] == {"ben": 1}
    assert out["latency"]["median_s"] == 50.0


def test_a_boss_line_nobody_replied_to() -> None:
    out = boss_lines([msg("boss", 0, "Anyone?", mentions=["ana"]), msg("ben", 5)], AGENTS)
    assert out["lines"][0]["replied_by"] is None and out["replied_rate"] == 0.0
    assert (out["addressed"], out["answered"], out["answered_rate"]) == (0, 0, None)  # names nobody
    assert out["latency"] == {"count": 0, "mean_s": None, "median_s": None, "p90_s": None}
    empty = boss_lines([], AGENTS)
    assert (empty["replied_rate"], empty["answered_rate"], empty["replied"], empty["answered"]) == (
        None,
        None,
        0,
        0,
    )


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
    assert (out["mentions"], out["replied"]) == (3, 2)
    assert out["replied_rate"] == round(2 / 3, 4)
    assert "answered" not in out and "answered_rate" not in out  # a mention is only ever replied to
    assert out["latency"]["mean_s"] == 17.5


def test_latency_summary() -> None:
    assert latency_summary([3.0, 1.0, 2.0, 10.0]) == {
        "count": 4,
        "mean_s": 4.0,
        "median_s": 2.5,
        "p90_s": 10.0,
    }


# Answered by the addressee (issue 29, item 4): the employee a boss line speaks to in person answers
# it, in the line's room or its own 1-on-1 with the boss, before the boss's next line to it.


def in_person(messages: list[dict]) -> list[tuple[list[str], list[str]]]:
    """(addressees, those of them who answered) of each boss line."""
    lines = boss_lines(messages, AGENTS)["lines"]
    return [(r["addressees"], r["answered_by_addressee"]) for r in lines]


def test_the_addressee_answering_answers_the_line() -> None:
    messages = [msg("boss", 0, "@Ben status?", mentions=["ben"]), msg("ben", 30)]
    out = boss_lines(messages, AGENTS)
    assert in_person(messages) == [(["ben"], ["ben"])]
    assert (out["addressed"], out["answered"], out["answered_rate"]) == (1, 1, 1.0)
    assert (out["replied"], out["replied_rate"], out["lines"][0]["replied_by"]) == (1, 1.0, "ben")


def test_someone_else_answering_is_a_reply_but_not_the_addressee_s_answer() -> None:
    messages = [
        msg("boss", 0, "@Ben status?", mentions=["ben"]),
        msg("ana", 30, "@Ben is out", mentions=["ben"]),
    ]
    out = boss_lines(messages, AGENTS)
    assert in_person(messages) == [(["ben"], [])]
    assert (out["answered"], out["answered_rate"]) == (0, 0.0)


def test_an_answer_after_the_boss_s_next_line_to_them_answers_only_that_line() -> None:
    messages = [
        msg("boss", 0, "@Ben status?", mentions=["ben"]),
        msg("boss", 60, "@Ben hello??", mentions=["ben"]),
        msg("ben", 90),
    ]
    out = boss_lines(messages, AGENTS)
    assert in_person(messages) == [(["ben"], []), (["ben"], ["ben"])]
    assert out["replied_rate"] == 1.0  # both replied to: any later message of Ben's there counts
    assert out["answered_rate"] == 0.5
    # The next line to someone else, or a line to nobody in particular, leaves Ben's line open.
    messages = [
        msg("boss", 0, "@Ben status?", mentions=["ben"]),
        msg("boss", 30, "@Ana and you?", mentions=["ana"]),
        msg("boss", 40, "Lunch at noon.", mentions=["ana", "ben", "cyd"]),
        msg("ben", 90),
    ]
    assert in_person(messages) == [(["ben"], ["ben"]), (["ana"], []), ([], [])]


def test_an_answer_elsewhere_does_not_count_but_one_in_the_boss_chat_does() -> None:
    line = msg("boss", 0, "@Ben status?", mentions=["ben"])
    assert in_person([line, msg("ben", 30, conv="dm:ana:ben")]) == [(["ben"], [])]
    assert in_person([line, msg("ben", 30, conv="boss:ben")]) == [(["ben"], ["ben"])]


def test_a_line_to_two_people_is_two_answers_owed() -> None:
    messages = [
        msg("boss", 0, "@Ana @Cyd who takes it?", mentions=["ana", "cyd"]),
        msg("cyd", 20, "Me."),
        msg("ben", 25, "Me too."),  # not asked
    ]
    out = boss_lines(messages, AGENTS)
    assert in_person(messages) == [(["ana", "cyd"], ["cyd"])]
    assert (out["addressed"], out["answered"], out["answered_rate"]) == (2, 1, 0.5)
    everyone = [msg("boss", 0, "@all who takes it?", mentions=["ana", "ben", "cyd"]), msg("ben", 9)]
    assert in_person(everyone) == [(["ana", "ben", "cyd"], ["ben"])]


def test_a_boss_line_in_a_1_on_1_addresses_its_other_side() -> None:
    messages = [
        msg("boss", 0, "Write the release notes.", conv="boss:ana", mentions=["ana"]),
        msg("ana", 50, "On it.", conv="boss:ana"),
        msg("boss", 60, "And the changelog.", conv="boss:cyd", mentions=["cyd"]),
        msg("cyd", 70, "Sure.", conv="room"),  # not where it was asked, nor her boss chat
    ]
    assert in_person(messages) == [(["ana"], ["ana"]), (["cyd"], [])]


def test_a_room_line_naming_nobody_addresses_no_one_in_particular() -> None:
    messages = [msg("boss", 0, "Who can look at this?", mentions=["ana", "ben", "cyd"]), msg("ana", 5)]
    out = boss_lines(messages, AGENTS)
    assert in_person(messages) == [([], [])]
    assert out["replied_rate"] == 1.0 and out["answered_rate"] is None


def test_a_mention_by_full_name_names_the_addressee() -> None:
    messages = [msg("boss", 0, "@Benedict status?", mentions=["ben"]), msg("ben", 5)]
    out = boss_lines(messages, AGENTS, {"ana": "Ana", "ben": "Benedict", "cyd": "Cyd"})
    assert out["lines"][0]["answered_by_addressee"] == ["ben"]
