"""Baseline wake policies: the same office, prompts, model, gates and loop breakers, other wake rules.

Each is a `WakePolicy` (ideaco/office/resolve/waking.py) the office is built with; the think itself
(reading, the model call, gates, actions, what a thought changes) is untouched.

- `BroadcastWakes`, "every member answers every message": each posted message (boss or agent)
  owes every other member of its conversation one think of its own, 1-5 s later; nothing else
  wakes anyone. It lives in the package (`ideaco/office/resolve/policies.py`, the switch `wake=broadcast`
  of an ablation sweep); it is imported from there.
- `PollingWakes`, "fixed 10-second polling": every employee looks every 10 s; a look that finds
  something unread thinks (mention/boss first, then most unread, as in ideaco), an empty look
  costs nothing; posts wake nobody and there are no idle thinks.
"""

from __future__ import annotations

import dataclasses
import random
from datetime import datetime

from ideaco.office import rules
from ideaco.office.core.conversation import Message
from ideaco.office.core.state import ConversationState, Employee
from ideaco.office.perceive.view import OfficeView
from ideaco.office.resolve.policies import BroadcastWakes
from ideaco.office.resolve.waking import AdaptiveWakes, Reach


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

    def timers_for(self, office: OfficeView, emp: Employee) -> rules.TimerConfig:
        return office.config.timers  # fixed polling: no one's pace changes it

    def idle_room(
        self, office: OfficeView, emp: Employee, now: datetime, rng: random.Random, considered: dict[str, str]
    ) -> str | None:
        return None


POLICIES = {
    "ideaco": AdaptiveWakes,
    "every member answers every message": BroadcastWakes,
    "fixed 10 s polling": PollingWakes,
}
