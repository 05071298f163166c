"""The metrics at their edges (issue 21, item 7): each threshold from both sides, each default,
each rounding, on small hand-made records, and the parts of `evaluate` the pinned replay does not
reach (documents and reviews, task rows missing a status or a time, persona fallbacks)."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from ideaco.analysis import History, StaminaPoint
from ideaco.metrics import SUMMARY, evaluate
from ideaco.metrics.responses import boss_lines, latency_summary
from ideaco.metrics.social import persona_spread, talk_edges
from ideaco.metrics.text import char_grams, jaccard, repetition
from ideaco.store.runlog import RunLog

START = datetime(2026, 1, 5, 9, 0, 0)
AGENTS = {"ana", "ben", "cyd"}


def at(secs: float) -> str:
    return (START + timedelta(seconds=secs)).isoformat()


def msg(sender: str, text: str = "hi", conv: str = "room", secs: float = 0, mentions=()) -> dict:
    return {
        "id": f"{sender}-{secs}",
        "sender": sender,
        "text": text,
        "conversation": conv,
        "mentions": list(mentions),
        "at": at(secs),
    }


def run_of(personas: dict[str, dict], thoughts=(), messages=(), hours: float = 1.0) -> RunLog:
    """A run in memory: these employees (id -> persona), logs, and a clock `hours` long."""
    state = {
        "office": {"start": START.isoformat(), "now": at(hours * 3600)},
        "employees": [{"id": e, "name": e.title(), "persona": p} for e, p in personas.items()],
    }
    return RunLog(Path("hand-made"), state, list(messages), list(thoughts))


def thought(employee: str, secs: float = 60, calls: int = 0, steps=(), **extra) -> dict:
    rec = {"employee": employee, "at": at(secs), "applied": {"at": at(secs + 5), "steps": list(steps)}}
    if calls:
        rec["llm"] = {"calls": calls, "prompt_tokens": 0, "completion_tokens": 0}
    return rec | extra


# --------------------------------------------------------------------------- text


def test_character_grams_around_char_n() -> None:
    # docs/evaluation.md: G4, the character 4-grams of the normalised text
    assert char_grams("abc") == frozenset({"abc"})  # shorter than n: the text itself
    assert char_grams("abcd") == frozenset({"abcd"})
    assert char_grams("abcde") == frozenset({"abcd", "bcde"})  # every 4-gram, none shorter
    assert char_grams("abcdefg") == frozenset({"abcd", "bcde", "cdef", "defg"})


def test_an_empty_gram_set_is_like_nothing_but_another_empty_one() -> None:
    assert jaccard(frozenset(), char_grams("ok")) == 0.0
    assert jaccard(char_grams("ok"), frozenset()) == 0.0
    assert jaccard(frozenset(), frozenset()) == 1.0
    # A message with no word ("!!!") is no near-duplicate of a worded one before it.
    out = repetition([msg("ana", "hello there"), msg("ben", "!!!")], AGENTS)
    assert (out["duplicates"], out["near_duplicates"]) == (0, 0)


def test_a_near_duplicate_is_at_or_above_near() -> None:
    assert jaccard(char_grams("abcdef"), char_grams("abcdeg")) == 0.5  # 2 shared of 4
    at_near = repetition([msg("ana", "abcdef"), msg("ben", "abcdeg")], AGENTS)
    assert (at_near["duplicates"], at_near["near_duplicates"]) == (0, 1)
    below = repetition([msg("ana", "abcde"), msg("ben", "abcdx")], AGENTS)  # 1 shared of 3
    assert (below["duplicates"], below["near_duplicates"]) == (0, 0)


def fillers(n: int, sender: str, conv: str = "room") -> list[dict]:
    """n messages unlike each other and anything else: three-digit numbers (one gram each)."""
    return [msg(sender, f"{i:03d}", conv) for i in range(n)]


@pytest.mark.parametrize(("between", "duplicate"), [(49, 1), (50, 0)])  # W = 50
def test_a_duplicate_is_looked_for_in_the_last_window_messages_of_the_room(
    between: int, duplicate: int
) -> None:
    # The line is the (between + 1)-th earlier message of the room: the 50th, or the 51st.
    line = "the same line again"
    out = repetition([msg("ana", line), *fillers(between, "ben"), msg("ben", line)], AGENTS)
    assert (out["duplicates"], out["near_duplicates"]) == (duplicate, 0)


@pytest.mark.parametrize(("between", "duplicate"), [(49, 1), (50, 0)])  # W = 50
def test_a_cross_room_copy_is_looked_for_in_the_sender_s_last_window_messages(
    between: int, duplicate: int
) -> None:
    line = "the same line again"
    messages = [msg("ana", line, "one"), *fillers(between, "ana", "two"), msg("ana", line, "three")]
    out = repetition(messages, AGENTS)
    assert (out["duplicates"], out["near_duplicates"]) == (duplicate, 0)


# --------------------------------------------------------------------------- responses


def test_a_reply_at_the_same_moment_as_the_boss_line_replies_to_and_answers_it() -> None:
    out = boss_lines(
        [msg("boss", "@Ben now?", secs=30, mentions=["ben"]), msg("ben", "yes", secs=30)], AGENTS
    )
    [row] = out["lines"]
    assert (row["replied_by"], row["latency_s"], row["answered_by_addressee"]) == ("ben", 0.0, ["ben"])


def test_the_boss_replied_and_answered_rates_are_rounded_to_four_digits() -> None:
    out = boss_lines(
        [
            msg("boss", "@Ana one", secs=0, mentions=["ana"]),
            msg("ana", "ok", secs=5),
            msg("boss", "@Ben two", secs=10, mentions=["ben"]),
            msg("boss", "@Cyd three", secs=20, mentions=["cyd"]),
        ],
        AGENTS,
    )
    assert (out["replied_rate"], out["answered_rate"]) == (0.3333, 0.3333)


def test_the_90th_percentile_of_short_lists() -> None:
    assert latency_summary([4.0])["p90_s"] == 4.0
    assert latency_summary([2.0, 1.0])["p90_s"] == 2.0  # index int(1.8) = 1
    assert latency_summary([float(i) for i in range(1, 11)])["p90_s"] == 10.0  # index 9, the last
    assert latency_summary([float(i) for i in range(1, 12)])["p90_s"] == 10.0  # index 9 of 11


# --------------------------------------------------------------------------- social


def test_a_mention_addresses_a_room_message_rather_than_the_last_speaker() -> None:
    edges = talk_edges([msg("ana"), msg("ben", "@Cyd?", mentions=["cyd"])], AGENTS)
    assert [(e["from"], e["to"]) for e in edges] == [("ben", "cyd")]


def test_mentions_of_oneself_or_of_no_one_known_fall_back_to_the_last_speaker() -> None:
    edges = talk_edges([msg("ben"), msg("ana", "@Ana @Zed", mentions=["ana", "zed"])], AGENTS)
    assert [(e["from"], e["to"]) for e in edges] == [("ana", "ben")]


def test_persona_rates_count_missing_employees_as_zero_and_round_to_stated_digits() -> None:
    out = persona_spread(
        {"ana": "a", "ben": "b", "cyd": "b"},
        messages_by={"ana": 1, "ben": 2},  # cyd posted nothing,
        thoughts_by={"ana": 2, "ben": 2},  # thought nothing
        spoke_by={"ana": 1, "ben": 2},  # and never spoke
        hours=3.0,
    )
    a, b = out["by_archetype"]["a"], out["by_archetype"]["b"]
    assert (a["messages"], a["messages_per_hour"], a["speak_rate"]) == (1, 0.333, 0.5)
    assert (b["messages"], b["messages_per_hour"], b["speak_rate"]) == (2, 0.333, 1.0)
    assert out["spread"] == 0.0  # equal rates, whatever their size (their mean is below 1 here)


def test_persona_spread_for_rates_below_one_and_runs_up_to_an_hour() -> None:
    out = persona_spread({"ana": "a", "ben": "b"}, {"ana": 1, "ben": 2}, {}, {}, hours=0.5)
    assert [r["messages_per_hour"] for r in out["by_archetype"].values()] == [2.0, 4.0]
    assert out["spread"] == round(1 / 3, 4)  # pstdev 1 / mean 3
    small = persona_spread({"ana": "a", "ben": "b"}, {"ana": 1, "ben": 2}, {}, {}, hours=4.0)
    assert [r["messages_per_hour"] for r in small["by_archetype"].values()] == [0.25, 0.5]
    assert small["spread"] == round(1 / 3, 4)  # mean 0.375: still a spread
    assert [r["speak_rate"] for r in out["by_archetype"].values()] == [None, None]  # no thoughts
    hour = persona_spread({"ana": "a"}, {"ana": 3}, {}, {}, hours=1.0)
    assert hour["by_archetype"]["a"]["messages_per_hour"] == 3.0
    none = persona_spread({"ana": "a"}, {"ana": 3}, {}, {}, hours=0.0)
    assert none["by_archetype"]["a"]["messages_per_hour"] is None and none["spread"] is None


# --------------------------------------------------------------------------- evaluate


def test_summary_metrics_are_read_only() -> None:
    # The CLI, the viewer and the sweep table all read the one SUMMARY tuple.
    with pytest.raises(FrozenInstanceError):
        SUMMARY[0].better = "higher"  # type: ignore[misc]


def test_calls_per_employee_hour_with_one_employee_beside_the_secretary() -> None:
    run = run_of(
        {"ana": {}, "secretary": {}},
        [thought("ana", calls=4), thought("secretary", calls=2)],
        hours=2.0,
    )
    assert evaluate(run, History())["summary"]["calls_per_employee_hour"] == 3.0  # 6 calls / 1 / 2 h


def doc_step(path: str, tool: str, status: str | None = None) -> dict:
    review = {"status": status, "reviewer": "ben"} if status else None
    step = {"step": "document", "tool": tool, "department": "eng", "path": path, "author": "ana"}
    version = {"hash": path, "author": "ana", "at": "2026-01-05T09:00:00", "thought": "t1"}
    written = {"versions": [version], "content": path} if tool == "write_document" else {}
    return step | written | {"review": review}


def test_documents_approved_rejection_rate_and_calls_per_approved_document() -> None:
    verdicts = [
        ("a.md", "rejected"),
        ("a.md", "rejected"),
        ("a.md", "approved"),  # approved at the third verdict
        ("b.md", "rejected"),
        ("b.md", "rejected"),  # rejected for good
        ("c.md", "approved"),
        ("d.md", "approved"),
    ]
    thoughts = [thought("ana", 10, calls=3, steps=[doc_step(f"{p}.md", "write_document") for p in "abcde"])]
    thoughts += [
        thought("ben", 20 + i, steps=[doc_step(p, "review", s)]) for i, (p, s) in enumerate(verdicts)
    ]
    thoughts.append(thought("ben", 40, calls=7))  # 10 calls in all
    summary = evaluate(run_of({"ana": {}, "ben": {}}, thoughts), History())["summary"]
    assert summary["documents_approved"] == 3  # a, c, d; b rejected, e never reviewed
    assert summary["review_rejection_rate"] == 0.5714  # 4 rejections of 7 verdicts
    assert summary["calls_per_approved_document"] == 3.333  # 10 calls / 3


def test_comfort_at_the_end_is_of_employees_with_a_stamina_point() -> None:
    hist = History(
        stamina={
            "ana": [StaminaPoint(START, 90.0, 10.0, 10.0, "start")],  # comfort 90 - (4 + 6) = 80
            "ben": [],  # no point: no comfort
            "gone": [StaminaPoint(START, 10.0, 0.0, 0.0, "start")],  # not an employee of the run
        }
    )
    section = evaluate(run_of({"ana": {}, "ben": {}}), hist)
    assert section["comfort_end"] == {"ana": 80.0}
    assert section["summary"]["comfort_end_mean"] == 80.0


def test_silences_count_gated_thoughts_and_leave_ungated_ones_out_of_the_gates() -> None:
    thoughts = [
        thought("ana", 10, spoke=True, gate=None),
        thought("ana", 20, spoke=False, gate="cooldown"),
        thought("ana", 30, spoke=False, gate=None),  # wanted to speak with nothing to say: no gate
    ]
    section = evaluate(run_of({"ana": {}}, thoughts), History())
    silences = section["silences"]
    assert (silences["thoughts"], silences["silent"], silences["rate"]) == (3, 2, 0.6667)
    assert silences["by_gate"] == {"cooldown": 1}
    assert silences["rates"] == {"cooldown": 0.3333}
    assert section["summary"]["silence_cooldown"] == 0.3333


def test_tasks_without_failures_or_pending_ones_and_a_resolved_task_missing_its_start() -> None:
    hist = History(
        tasks={
            "t1": {"status": "resolved", "created_at": at(0), "resolved_at": at(600)},
            "t2": {"status": "resolved", "resolved_at": at(900)},  # created before the log: no time
        }
    )
    tasks = evaluate(run_of({"ana": {}}, [thought("ana", calls=5)]), hist)["tasks"]
    assert (tasks["created"], tasks["resolved"], tasks["failed"], tasks["pending"]) == (2, 2, 0, 0)
    assert tasks["time_to_resolve"]["count"] == 1 and tasks["time_to_resolve"]["median_s"] == 600.0
    assert tasks["per_resolved"]["calls"] == 2.5


def test_a_task_row_without_a_status_is_pending() -> None:
    hist = History(tasks={"t1": {}, "t2": {"status": "failed"}})
    tasks = evaluate(run_of({"ana": {}}), hist)["tasks"]
    assert (tasks["created"], tasks["resolved"], tasks["failed"], tasks["pending"]) == (2, 0, 1, 1)
    assert tasks["per_resolved"] == {"calls": None, "tokens": None}


def test_a_refused_claim_is_counted_once_when_its_note_first_lands() -> None:
    refused_a, refused_b = "Your task claim 'a' was refused: Ben has it.", "Your task claim 'b' was refused."
    other = "Ask Ben about the schema."

    def notes(*lines: str) -> dict:
        return {"step": "mind", "employee": "ana", "notes": list(lines)}

    thoughts = [
        thought("ana", 10, steps=[notes(refused_a, other)]),
        thought("ana", 20, steps=[notes(refused_a, other, refused_b)]),  # only b is new
        thought("ana", 30, steps=[{"step": "mind", "employee": "ana"}]),  # no notes changed
    ]
    assert evaluate(run_of({"ana": {}}, thoughts), History())["tasks"]["claims_refused"] == 2


def test_a_persona_s_archetype_else_its_id_else_none() -> None:
    personas = {
        "ana": {"archetype": "chatterbox", "id": "ana-persona"},
        "ben": {"id": "zen-slacker"},
        "cyd": {},
    }
    spread = evaluate(run_of(personas), History())["personas"]["by_archetype"]
    assert {k: v["employees"] for k, v in spread.items()} == {
        "chatterbox": ["ana"],
        "none": ["cyd"],
        "zen-slacker": ["ben"],
    }


def test_wordless_messages_are_duplicates_only_when_the_loop_breaker_says_so() -> None:
    # "👍" then "🎉" are two messages (their normalised texts differ); "👍" twice is a duplicate.
    different = repetition([msg("a", "👍", secs=0), msg("a", "🎉", secs=1)], {"a"})
    same = repetition([msg("a", "👍", secs=0), msg("a", " 👍 ", secs=1)], {"a"})
    assert (different["duplicate_rate"], same["duplicate_rate"]) == (0.0, 0.5)
