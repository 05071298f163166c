"""Wake policies by name: ideaco's adaptive one, and "every member answers every message".

`OfficeConfig.switches.wake` names the policy an office is built with (an ablation sweep varies
it); `policy_for(name)` is the one place that turns the name into a `WakePolicy`.

`BroadcastWakes`, "every member answers every message": each posted message (boss or agent) owes
every other member of its conversation one think of its own, 1-5 s later; nothing else wakes
anyone (no adaptive timer, no idle thinks, no unanswered-ceiling or pair-streak checks on waking;
the speech gates and the post-side loop breakers still apply). The benchmarks' baseline of the
same name is this policy.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from ideaco.cycle import Owed, Trigger
from ideaco.ids import BOSS
from ideaco.office import rules
from ideaco.office.core.conversation import Message
from ideaco.office.core.state import ConversationState, Employee
from ideaco.office.perceive.view import OfficeView
from ideaco.office.resolve.waking import AdaptiveWakes, Reach, Wake, WakePolicy


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
            if member not in office.state.employees or member == message.sender:
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
        self,
        office: OfficeView,
        emp: Employee,
        next_look_at: datetime,
        read: str | None,
        rng: random.Random,
        now: datetime,
    ) -> list[Wake]:
        if not emp.desk.owed:
            return []
        # More messages to answer: the next one soon.
        soon = now + timedelta(seconds=rules.mention_delay(rng, office.config.timers))
        return [Wake(emp.id, soon, Trigger.NUDGE)]


POLICIES: dict[str, type[AdaptiveWakes]] = {"adaptive": AdaptiveWakes, "broadcast": BroadcastWakes}


def policy_for(name: str) -> WakePolicy:
    """The wake policy a switch names (`adaptive`, `broadcast`)."""
    return POLICIES[name]()
