"""Baseline wake policies: the same office, prompts, model, gates and loop breakers, other wake rules.

Each is a `WakePolicy` (ideaco/office/waking.py) the office is built with; the think itself
(reading, the model call, gates, actions, what a thought changes) is untouched.

- `BroadcastWakes`, "every member answers every message": each posted message (boss or agent)
  owes every other member of its conversation one think of its own, 1-5 s later; nothing else
  wakes anyone (no adaptive timer, no idle thinks, no unanswered-ceiling or pair-streak checks on
  waking; the speech gates and the post-side loop breakers still apply).
- `PollingWakes`, "fixed 10-second polling": every employee looks every 10 s; a look that finds
  something unread thinks (mention/boss first, then most unread, as in ideaco), an empty look
  costs nothing; posts wake nobody and there are no idle thinks.
"""

from __future__ import annotations

import dataclasses
import random
from datetime import datetime, timedelta

from ideaco.cycle import Owed, Trigger
from ideaco.office import rules
from ideaco.office.conversation import BOSS, Message
from ideaco.office.state import ConversationState, Employee
from ideaco.office.view import OfficeView
from ideaco.office.waking import AdaptiveWakes, Reach, Wake


class BroadcastWakes(AdaptiveWakes):
    """Every member answers every message (one think per message per other member)."""

    def keeps(self, trigger: Trigger) -> bool:
        return trigger != Trigger.TIMER  # no timed looks at all: only messages (and owed thinks) wake

    def reached_by(
        self, office: OfficeView, conv: ConversationState, message: Message, rng: random.Random
    ) -> Reach:
        reach = Reach()
        if message.sender != BOSS and not message.from_agent:
            return reach
        trigger = Trigger.BOSS if message.sender == BOSS else Trigger.NUDGE
        for member in conv.members:
            if member not in office.employees or member == message.sender:
                continue
            reach.owed.append((member, Owed(conv.id, trigger)))
            at = message.at + timedelta(seconds=rules.mention_delay(rng, office.config.timers))
            reach.wakes.append(Wake(member, at, Trigger.NUDGE))
        return reach

    def idle_room(
        self, office: OfficeView, emp: Employee, now: datetime, rng: random.Random, considered: dict[str, str]
    ) -> str | None:
        return None

    def after_think(
        self, office: OfficeView, emp: Employee, next_look_at: datetime, read: str | None, rng: random.Random
    ) -> list[Wake]:
        if not emp.desk.owed:
            return []
        # More messages to answer: the next one soon.
        soon = office.now() + timedelta(seconds=rules.mention_delay(rng, office.config.timers))
        return [Wake(emp.id, soon, Trigger.NUDGE)]


class PollingWakes(AdaptiveWakes):
    """Every employee looks every POLL_S seconds; posts wake nobody."""

    POLL_S = 10.0

    @classmethod
    def timers(cls, timers: rules.TimerConfig) -> rules.TimerConfig:
        """Every timed delay (adaptive look, empty look, first look) fixed at POLL_S."""
        return dataclasses.replace(timers, min_s=cls.POLL_S, max_s=cls.POLL_S)

    def reached_by(
        self, office: OfficeView, conv: ConversationState, message: Message, rng: random.Random
    ) -> Reach:
        return Reach()

    def idle_room(
        self, office: OfficeView, emp: Employee, now: datetime, rng: random.Random, considered: dict[str, str]
    ) -> str | None:
        return None


POLICIES = {
    "ideaco": AdaptiveWakes,
    "every member answers every message": BroadcastWakes,
    "fixed 10 s polling": PollingWakes,
}
