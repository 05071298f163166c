"""The chat's line when the model is behind the clock (issue 29, item 7), both sides of each bound."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from ideaco.cli.lag import NOTICE_S, REPEAT_S, LagNotice, behind

T0 = datetime(2026, 1, 5, 9, 0)
THINK_S = 5.0


@dataclass
class Call:
    answered: bool = False

    def done(self) -> bool:
        return self.answered


@dataclass
class Ctx:
    employee: str
    at: datetime
    call: Call


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def test_behind_is_the_think_latest_past_its_moment_and_ignores_answered_ones() -> None:
    thinking = [Ctx("alice", at(0), Call()), Ctx("bob", at(-20), Call()), Ctx("dana", at(-90), Call(True))]
    assert behind(thinking, at(40), THINK_S) == ("bob", 55.0)
    assert behind([Ctx("alice", at(0), Call())], at(THINK_S), THINK_S) is None  # exactly on time
    assert behind([Ctx("alice", at(0), Call())], at(THINK_S + 1), THINK_S) == ("alice", 1.0)
    assert behind([], at(100), THINK_S) is None


def test_the_line_comes_at_the_notice_bound_and_names_who_and_how_late() -> None:
    ctx = Ctx("sam", at(0), Call())
    just_under = LagNotice(5.0)
    assert just_under.line([ctx], at(THINK_S + NOTICE_S - 1), THINK_S, {"sam": "Sam"}) is None
    notice = LagNotice(5.0)
    line = notice.line([ctx], at(THINK_S + NOTICE_S + 60), THINK_S, {"sam": "Sam"})
    assert line is not None
    assert "Sam's answer is 1 min 30 s late" in line and "5x real time" in line and "--speed" in line


def test_the_line_is_said_again_only_after_the_repeat_bound() -> None:
    ctx = Ctx("sam", at(0), Call())
    notice = LagNotice(2.0)
    first = at(THINK_S + NOTICE_S)
    assert notice.line([ctx], first, THINK_S, {}) is not None
    assert notice.line([ctx], first + timedelta(seconds=REPEAT_S - 1), THINK_S, {}) is None
    again = notice.line([ctx], first + timedelta(seconds=REPEAT_S), THINK_S, {})
    assert again is not None and "sam's answer" in again  # no name known: the id


def test_nothing_is_said_once_the_model_answered() -> None:
    notice = LagNotice(5.0)
    assert notice.line([Ctx("sam", at(0), Call(True))], at(600), THINK_S, {"sam": "Sam"}) is None
