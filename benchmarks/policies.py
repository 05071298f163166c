"""Baseline wake policies: the same office, prompts, model, gates and loop breakers, other wake rules.

Each is a subclass of `Office` overriding only how employees are woken; the think itself
(`Thinker`: prompt, model call, gates, actions, effects) is untouched.

- `BroadcastOffice`, "every member answers every message": each posted message (boss or agent)
  owes every other member of its conversation one think of its own, 1-5 s later; nothing else
  wakes anyone (no adaptive timer, no idle thinks, no unanswered-ceiling or pair-streak checks on
  waking; the speech gates and the post-side loop breakers still apply).
- `PollingOffice`, "fixed 10-second polling": every employee looks every 10 s; a look that finds
  something unread thinks (mention/boss first, then most unread, as in ideaco), an empty look
  costs nothing; posts wake nobody and there are no idle thinks.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from ideaco.office import rules
from ideaco.office.conversation import BOSS, Message
from ideaco.office.office import Office
from ideaco.office.state import ConversationState, EmployeeState, Focus


class BroadcastOffice(Office):
    """Every member answers every message (one think per message per other member)."""

    def _reach(self, conv: ConversationState, message: Message) -> None:
        now = self.clock.now()
        if message.sender == BOSS:
            conv.closed_until, conv.last_boss_at, conv.blocked_pair = None, now, None
        elif not message.from_agent:
            return
        for member in conv.members:
            emp = self.employees.get(member)
            if emp is None or member == message.sender:
                continue
            emp.focus.append(Focus(conv.id, "boss" if message.sender == BOSS else "nudge"))
            self.schedule_wake(
                emp, now + timedelta(seconds=rules.mention_delay(self.rng, self.config.timers)), "nudge"
            )

    def schedule_wake(self, emp: EmployeeState, at: datetime, trigger: str) -> None:
        if trigger != "timer":  # no timed looks at all: only messages (and owed thinks) wake
            super().schedule_wake(emp, at, trigger)

    def after_think(self, emp: EmployeeState, next_look_at: datetime, read: str | None = None) -> None:
        emp.phase = "idle"
        emp.deferred_triggers = []
        if emp.focus:  # more messages to answer: the next one soon
            soon = self.clock.now() + timedelta(seconds=rules.mention_delay(self.rng, self.config.timers))
            super().schedule_wake(emp, soon, "nudge")

    def _idle_room(self, emp: EmployeeState, now: datetime) -> str | None:
        return None


class PollingOffice(Office):
    """Every employee looks every 10 s; posts wake nobody."""

    POLL_S = 10.0

    def use_polling(self) -> None:
        """Fix every timed delay (adaptive look, empty look, first look) at POLL_S."""
        self.config.timers = dataclasses.replace(self.config.timers, min_s=self.POLL_S, max_s=self.POLL_S)

    def _reach(self, conv: ConversationState, message: Message) -> None:
        if message.sender == BOSS:  # the boss's bookkeeping stays (it reopens a closed room)
            conv.closed_until, conv.last_boss_at, conv.blocked_pair = None, self.clock.now(), None

    def _idle_room(self, emp: EmployeeState, now: datetime) -> str | None:
        return None


POLICIES = {
    "ideaco": Office,
    "every member answers every message": BroadcastOffice,
    "fixed 10 s polling": PollingOffice,
}
