"""The words of an employee's cycle, declared once: triggers, gates, loop-breaker and draft-filter rules, phases.

wake -> read -> think -> gate -> act -> schedule. Every value here is also what the logs say
(spec 1.5), so the enums are string enums: `Trigger.BOSS == "boss"` and it is written as "boss".
Also here: `Owed`, a think the engine owes an employee, which the mind (an onResolve report, a
stalled task, an escalation) and the office (a held reply, a summary request) both ask for.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum
from typing import Any


class Words(str, Enum):
    """A string enum that prints, formats and serializes as its value."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)


class Trigger(Words):
    """Why an employee thinks (spec 1.5)."""

    BOSS = "boss"
    MENTION = "mention"
    ON_RESOLVE = "on_resolve"
    TASK = "task"
    SYSTEM = "system"
    NUDGE = "nudge"
    TIMER = "timer"
    IDLE = "idle"


# When a batch of causes wakes someone, the first of this order names the thought (spec 1.5).
TRIGGER_ORDER = tuple(Trigger)
# Thinks the engine owes (a report, a summary, a task alert): a gate delays them, never drops them.
ENGINE_TRIGGERS = (Trigger.SYSTEM, Trigger.ON_RESOLVE, Trigger.TASK)
# Thinks that answer someone: a mentioned employee held by a gate is re-woken when it opens.
ADDRESSED_TRIGGERS = (Trigger.MENTION, Trigger.BOSS, *ENGINE_TRIGGERS)


def first_trigger(triggers: Iterable[str]) -> Trigger:
    """The trigger recorded for a batch of causes (spec 1.5 order); a timer when there is none."""
    present = set(triggers)
    for trigger in TRIGGER_ORDER:
        if trigger.value in present:
            return trigger
    return Trigger.TIMER


class Gate(Words):
    """Why a thought did not speak (spec 1.5); None in the logs when it spoke."""

    CHOSE_SILENCE = "chose_silence"
    SATURATION = "saturation"
    ANTI_SPAM = "anti_spam"
    COOLDOWN = "cooldown"
    LOOP_BREAKER = "loop_breaker"
    FILTERED = "filtered"  # not fit to post: prompt echo, placeholder, debris, private thoughts
    SUPERSEDED = "superseded"
    BUDGET = "budget"
    ERROR = "error"


class LoopRule(Words):
    """Which loop breaker (spec 2.3) refused a post or stopped a post from waking anyone."""

    # Their numbers are office/rules/loop_breakers.py's.
    DUPLICATE = "duplicate"  # the same text from the same employee again, soon after
    RING = "ring"  # X,Y,Z,X closes the room for a while (also: a post into a room still closed)
    PAIR_STREAK = "pair_streak"  # two employees back and forth: they stop waking each other
    UNANSWERED = "unanswered"  # many agent messages since the boss: posts stop waking anyone


class TextRule(Words):
    """Which text rule (`office/rules/text/`) refused a text a person would read (logged as `rule`,
    with gate `filtered` and the rule's kind: a guarantee or small-model hygiene)."""

    PROMPT_ECHO = "prompt_echo"  # repeats the prompt's own instructions
    PLACEHOLDER = "placeholder"  # a template slot left unfilled: [insert name], {company}, <NAME>
    DEGENERATE = "degenerate"  # no words, letter runs, markup or JSON debris
    LEAKED_THOUGHT = "leaked_thought"  # the thought's private inner text, posted
    UNFINISHED = "unfinished"  # cut by its length bound with no sentence end to cut back to, or broken off
    EMPTY = "empty"  # no text at all
    UNREADABLE = "unreadable"  # a control, bidi override or private-use character no one reads


class Phase(Words):
    """Where an employee is in its cycle."""

    IDLE = "idle"
    TYPING = "typing"
    THINKING = "thinking"


@dataclass(frozen=True)
class Owed:
    """A think the engine owes an employee in a conversation, with a note for it to read."""

    conversation: str
    trigger: Trigger
    note: str = ""
    escalation: bool = False  # the think may escalate to the boss: what it says there is flagged
    # The secretary's report of a tool round: which round of the boss's request it follows, and
    # the calls refused so far in that request (office/rules/toolcaps.py).
    round: int = 0
    refused: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out = {"conversation": self.conversation, "trigger": self.trigger.value, "note": self.note}
        out |= {"escalation": True} if self.escalation else {}
        out |= {"round": self.round} if self.round else {}
        return out | ({"refused": list(self.refused)} if self.refused else {})

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Owed:
        return cls(
            str(data["conversation"]),
            Trigger(data["trigger"]),
            str(data.get("note") or ""),
            bool(data.get("escalation", False)),
            int(data.get("round") or 0),
            tuple(str(k) for k in data.get("refused") or ()),
        )
