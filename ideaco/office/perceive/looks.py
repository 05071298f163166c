"""A look at the chat: what a wake finds to think about, as a plan (its trigger, note and typing pause).

What a look reads is the look policy's (`LookPolicy`; ideaco's is `AdaptiveLooks`): owed thinks
first, then mentions and the boss, then the most unread; else a task alert; else, in a quiet
casual room, maybe an idle think. Whom a post wakes and when one looks next are the resolve's
(`resolve/waking.py`, whose `WakePolicy` is a `LookPolicy` too).

`plan_look` only reads (the office, the desk) and draws from the stream it is handed, in the
order a look always draws (an idle room's chance, then the typing pause); the desk takes the plan
itself (`Desk.take_look`, core). The office does both at a wake; `engine/early.py` plans the looks still
to come, on copies of the streams, to build the request of a think before its moment.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Protocol

from ideaco.cycle import Owed, Trigger, first_trigger
from ideaco.ids import boss_conversation_id
from ideaco.kinds import ConversationKind
from ideaco.mind import relationships, stamina, tasks
from ideaco.office import rules
from ideaco.office.core.conversation import Message
from ideaco.office.core.state import ConversationState, Employee
from ideaco.office.perceive import taskboard
from ideaco.office.perceive.view import OfficeView
from ideaco.office.rules import levers

ToRead = tuple[str, Owed | None]  # the conversation to read, and the owed think it answers (if any)


class LookPolicy(Protocol):
    """What an office's employees read when they look."""

    def choose(self, office: OfficeView, emp: Employee, now: datetime) -> ToRead | None:
        """The conversation an employee reads at a look, or None for nothing to read."""
        ...

    def idle_room(
        self, office: OfficeView, emp: Employee, now: datetime, rng: random.Random, considered: dict[str, str]
    ) -> str | None:
        """A quiet casual room an empty look thinks in anyway (`considered`: room -> last idle think)."""
        ...


def is_open(emp: Employee, conversation: str, now: datetime) -> bool:
    """Whether no gate holds `emp`'s replies in `conversation` at `now`."""
    held = emp.desk.held_until.get(conversation)
    return held is None or held <= now


class AdaptiveLooks:
    """ideaco's look rules (spec 2.1): the unread conversation read first leans toward the people
    one likes (`rules/levers.py`); an idle casual room gets a think by the persona's talkativeness."""

    def choose(self, office: OfficeView, emp: Employee, now: datetime) -> ToRead | None:
        """One conversation at a time: owed thinks first, then mentions/boss, then most unread."""
        for owed in emp.desk.owed:
            if is_open(emp, owed.conversation, now) and owed.conversation in office.state.conversations:
                return owed.conversation, owed
        best: tuple[tuple[int, float], str] | None = None
        cfg = office.config.person_levers()
        for conv in office.conversations_of(emp.id):
            if emp.desk.cursors.get(conv.id, 0) >= conv.count or not is_open(emp, conv.id, now):
                continue  # read to the end (checked first: an empty look is the common case)
            unread = unread_of(emp, conv)
            if not unread:
                continue
            addressed = any(emp.id in m.mentions for m in unread)
            # The most unread, each message weighed by what I think of its sender (0.51-1.5).
            weight = sum(
                levers.pull(relationships.affinity_of(emp.mind.relationships, m.sender, now), cfg)
                for m in unread
            )
            key = (1 if addressed else 0, round(weight, 9))
            if best is None or key > best[0]:
                best = (key, conv.id)
        return (best[1], None) if best else None

    def idle_room(
        self, office: OfficeView, emp: Employee, now: datetime, rng: random.Random, considered: dict[str, str]
    ) -> str | None:
        """A casual room idle for 10 min may get a think anyway, so someone starts a topic.

        The chance is 15% for an average talker, scaled by the persona's talkativeness (a
        chatterbox starts topics, a shy introvert rarely does), and none in the red zone. An idle think restarts its room's
        idle time like a message would: the room needs someone to consider starting a topic every
        10 min, not every member on every look.
        """
        base, chance = office.config.timers, None
        timers = base
        for conv in office.conversations_of(emp.id):
            if conv.kind is not ConversationKind.CASUAL:
                continue
            quiet_since = conv.last_message_at
            if conv.id in considered:
                thought_at = datetime.fromisoformat(considered[conv.id])
                quiet_since = thought_at if quiet_since is None else max(quiet_since, thought_at)
            if not rules.room_is_idle(quiet_since, now, base):
                continue  # not idle: no chance, no draw (the common case, checked first)
            if chance is None:
                cfg = office.config.person_levers()
                chance = levers.idle_chance(
                    levers.talkativeness_of(emp, cfg),
                    stamina.zone(emp.mind.stamina),
                    base.idle_think_chance,
                    cfg,
                )
                if chance <= 0.0:  # a red-zone employee starts no topic (and draws nothing)
                    return None
                timers = base if chance == base.idle_think_chance else _idle_timers(base, chance)
            if rules.should_think_idle(conv.kind, quiet_since, now, rng, timers):
                return conv.id
        return None


@functools.lru_cache(maxsize=64)
def _idle_timers(timers: rules.TimerConfig, chance: float) -> rules.TimerConfig:
    # Cached: every empty look of every employee asks, and dataclasses.replace is slow.
    return replace(timers, idle_think_chance=chance)


@dataclass(frozen=True)
class Look:
    """What a look at the chat finds to think about."""

    conversation: str
    owed: Owed | None = None  # the owed think it answers (an idle think's is its own)
    alert: tuple[str, str] | None = None  # (task id, urgency) a task alert is for
    idle: bool = False  # nothing to read: a quiet casual room gets a think anyway


def look(
    policy: LookPolicy,
    office: OfficeView,
    emp: Employee,
    now: datetime,
    rng: random.Random,
    considered: dict[str, str],
) -> Look | None:
    """What `emp` thinks about at this look, or None: nothing, the next look is all (no model call)."""
    choice = policy.choose(office, emp, now)
    if choice is not None:
        return Look(*choice)
    due = (
        task_alert(emp, now, office.state.conversations)
        or taskboard.unowned_alert(office, emp, now)
        or taskboard.opened_alert(office, emp, now)
    )
    if due is not None:  # an overdue or critical task wakes its owner, unclaimed work its lead or a member
        owed, task_id, level = due
        return Look(owed.conversation, owed, (task_id, level))
    room = policy.idle_room(office, emp, now, rng, considered)
    return Look(room, Owed(room, Trigger.IDLE), idle=True) if room is not None else None


def unread_of(emp: Employee, conv: ConversationState) -> list[Message]:
    return [m for m in conv.since(emp.desk.cursors.get(conv.id, 0)) if m.sender != emp.id]


def task_alert(emp: Employee, now: datetime, existing: Collection[str]) -> tuple[Owed, str, str] | None:
    """A think owed to an overdue or critical task not yet looked at at this urgency: (think, task, level).

    It happens where the task reports (default: the boss chat).
    """
    for task in emp.mind.pending_tasks:
        level = tasks.urgency(task, now)
        if level in tasks.WAKING_URGENCIES and emp.desk.task_alerts.get(task.id) != level:
            target = tasks.report_target(task)
            if target not in existing:
                target = boss_conversation_id(emp.id)
            note = f"Your task [{task.id}] is {level}: {tasks.URGENCY_HINT[level]}."
            return Owed(target, Trigger.TASK, note), task.id, level
    return None


@dataclass(frozen=True)
class LookPlan:
    """What a look found and how its think begins."""

    found: Look
    trigger: Trigger
    note: str
    deferred: tuple[Trigger, ...]  # the wake's other causes, kept for the look after the think
    pause: float  # the typing pause, seconds


def plan_look(
    policy: LookPolicy,
    office: OfficeView,
    emp: Employee,
    triggers: Sequence[str],
    now: datetime,
    stream: random.Random,
    considered: dict[str, str],
) -> LookPlan | None:
    """The think a wake of `emp` at `now` starts (None: nothing to read, no model call)."""
    found = look(policy, office, emp, now, stream, considered)
    if found is None:
        return None
    causes = [Trigger(t) for t in triggers]
    if found.alert or found.idle:  # the look itself found nothing: the think has its own cause
        causes = []
    owed, deferred = found.owed, ()
    if owed is not None:
        # An owed think is labelled by its own cause; the wake's other causes (a mention
        # elsewhere, say) are kept for the look right after it.
        deferred = tuple(t for t in causes if t not in (Trigger.TIMER, Trigger.IDLE))
        causes = [owed.trigger]
    pause = rules.typing_pause(stream, office.config.timers)
    return LookPlan(found, first_trigger(causes), owed.note if owed else "", deferred, pause)
