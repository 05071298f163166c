"""Who wakes when (spec 2.1): whom a post reaches and when one looks next, as a policy the resolve asks.

`AdaptiveWakes` is ideaco's: a post nudges the other members (10-300 s) and wakes those it
addresses (1-5 s), unless a loop breaker says otherwise; the unanswered ceiling owes a lead an
escalation; work put on the board wakes the room by dibs; the next look comes from the thought's
interest and saturation, sooner when something the employee waits for comes due. What a look
reads is perceive's (`perceive/looks.py`: `AdaptiveLooks`, which this policy is too, so an office
is built with one policy). The benchmarks' baselines (`benchmarks/policies.py`) and the switch's
`broadcast` (`policies.py`) are other policies: the office is the same.

A policy only reads the office (`OfficeView`) and returns values (`Reach`, wakes); its random
draws come from the generator it is handed, in the order the resolve applies them (`apply.post`,
`apply.after_think`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from ideaco.cycle import LoopRule, Owed, Trigger
from ideaco.ids import BOSS, boss_conversation_id
from ideaco.kinds import ConversationKind, MessageKind
from ideaco.mind import relationships, stamina, tasks
from ideaco.office import rules
from ideaco.office.core.conversation import Message
from ideaco.office.core.state import ConversationState, Desk, Employee
from ideaco.office.perceive import taskboard
from ideaco.office.perceive.looks import AdaptiveLooks, LookPolicy, is_open, unread_of
from ideaco.office.perceive.view import OfficeView
from ideaco.office.rules import levers
from ideaco.office.rules.loop_breakers import UNANSWERED_CEILING

ESCALATE_ROOM = (
    "The thread in {room} ({id}) has gone {ceiling} messages without the boss, and posts there no longer wake "
    "anyone. As the lead of {dept}, decide: if it needs the boss, escalate here in a sentence or two (what "
    "is stuck, what you need); if not, stay silent."
)
ESCALATE_THREAD = (
    "Your thread in {room} ({id}) has gone {ceiling} messages without the boss, and posts there no longer wake "
    "anyone. If it needs the boss, escalate here in a sentence or two (what is stuck, what you need); if "
    "not, stay silent."
)
PAIR_SUMMARY = (
    "You and {other} have gone back and forth several times. Summarize where you landed in one short "
    "message, then let it rest."
)


@dataclass(frozen=True)
class Wake:
    """Wake `employee` at `at`; the trigger joins its batch."""

    employee: str
    at: datetime
    trigger: Trigger


@dataclass
class Reach:
    """Whom a posted message wakes, and what else it sets off."""

    wakes: list[Wake] = field(default_factory=list)
    owed: list[tuple[str, Owed]] = field(default_factory=list)  # thinks owed, in order, before the wakes
    blocked_pair: tuple[str, str] | None = None  # a pair streak: these two stop waking each other
    rule: LoopRule | None = None  # a loop breaker that fired on this post (unanswered: it woke nobody)
    escalated: bool = False  # the unanswered ceiling owed someone an escalation with this post


class WakePolicy(LookPolicy, Protocol):
    """How an office wakes its employees (and, as a `LookPolicy`, what they read when they look)."""

    def keeps(self, trigger: Trigger) -> bool:
        """Whether a wake for this cause is scheduled at all."""
        ...

    def reached_by(
        self, office: OfficeView, conv: ConversationState, message: Message, rng: random.Random
    ) -> Reach:
        """Whom a message just posted in `conv` wakes (the boss's own bookkeeping is the office's)."""
        ...

    def next_look(self, office: OfficeView, emp: Employee, at: datetime, now: datetime) -> datetime:
        """`at`, or sooner when something the employee waits for comes due."""
        ...

    def timers_for(self, office: OfficeView, emp: Employee) -> rules.TimerConfig:
        """The timers of this employee's looks (its adaptive delay's bounds, an empty look's wait)."""
        ...

    def after_think(
        self,
        office: OfficeView,
        emp: Employee,
        next_look_at: datetime,
        read: str | None,
        rng: random.Random,
        now: datetime,
    ) -> list[Wake]:
        """The wakes to schedule when a think that is over at `now` lands (its `deferred_triggers`
        are still on the desk)."""
        ...


class AdaptiveWakes(AdaptiveLooks):
    """ideaco's wake rules (spec 2.1, with the loop breakers of 2.3 on who a post wakes).

    Per person (`rules/levers.py`): looks and nudged wakes come sooner for the talkative and later
    for the tired; a DM from someone liked is answered sooner; a strained pair stop nudging each
    other. What a look reads is `AdaptiveLooks`' (perceive).
    """

    def keeps(self, trigger: Trigger) -> bool:
        return True

    def timers_for(self, office: OfficeView, emp: Employee) -> rules.TimerConfig:
        return levers.timers_of(emp, office.config.timers, office.config.person_levers())

    def _nudge(
        self, office: OfficeView, member: Employee, conv: ConversationState, sender: str, rng: random.Random
    ) -> float | None:
        """Seconds until `member` is nudged by `sender`'s post, or None: a strained pair do not nudge."""
        cfg, now = office.config.person_levers(), office.now()
        sender_emp = office.state.employees.get(sender)
        mine: float | None = None  # what `member` thinks of a sender who works here
        if sender_emp is not None:
            mine = relationships.affinity_of(member.mind.relationships, sender, now)
            theirs = relationships.affinity_of(sender_emp.mind.relationships, member.id, now)
            if levers.strained(mine, theirs, cfg):
                return None
        delay = rules.nudge_delay(rng, self.timers_for(office, member))
        if conv.kind is ConversationKind.DM and mine is not None:
            delay *= levers.dm_reply_factor(mine, cfg)
        return delay

    # ------------------------------------------------------------------ who a post wakes

    def reached_by(
        self, office: OfficeView, conv: ConversationState, message: Message, rng: random.Random
    ) -> Reach:
        now, timers = message.at, office.config.timers
        reach = Reach()
        if message.kind == MessageKind.CLAIMABLE:
            return self._to_claim(office, conv, message, rng)
        if message.sender == BOSS:
            for member in conv.members:
                if member not in office.state.employees:
                    continue
                if member in message.mentions:
                    at, trigger = rules.mention_delay(rng, timers), Trigger.BOSS
                else:
                    at = rules.nudge_delay(rng, self.timers_for(office, office.state.employees[member]))
                    trigger = Trigger.NUDGE
                reach.wakes.append(Wake(member, now + timedelta(seconds=at), trigger))
            return reach
        if not message.from_agent:
            return reach
        since = max((t for t in (conv.last_boss_at, conv.reset_at) if t), default=None)
        history = list(conv.recent)
        if rules.unanswered_ceiling_reached(history, since):
            reach.rule = LoopRule.UNANSWERED
            if rules.owes_escalation(conv.escalated_at, since):
                self._escalate(office, conv, message, rng, reach)
            return reach
        pair = rules.pair_streak(history, since)
        blocked = conv.blocked_pair
        if pair and blocked is None:
            blocked = reach.blocked_pair = pair
            reach.rule = LoopRule.PAIR_STREAK
            if pair[0] in office.state.employees:
                note = PAIR_SUMMARY.format(other=office.name_of(pair[1]))
                reach.owed.append((pair[0], Owed(conv.id, Trigger.SYSTEM, note)))
                at = now + timedelta(seconds=rules.mention_delay(rng, timers))
                reach.wakes.append(Wake(pair[0], at, Trigger.SYSTEM))
        for member in conv.members:
            if member == message.sender or member not in office.state.employees:
                continue
            if blocked and {message.sender, member} == set(blocked):
                continue
            if member in message.mentions:
                delay, trigger = rules.mention_delay(rng, timers), Trigger.MENTION
            else:
                nudge = self._nudge(office, office.state.employees[member], conv, message.sender, rng)
                if nudge is None:
                    continue
                delay, trigger = nudge, Trigger.NUDGE
            reach.wakes.append(Wake(member, now + timedelta(seconds=delay), trigger))
        return reach

    def _escalate(
        self, office: OfficeView, conv: ConversationState, message: Message, rng: random.Random, reach: Reach
    ) -> None:
        """The unanswered ceiling owes a think that may escalate to the boss chat: to the room's
        department lead, or for a DM (or a room with no lead) to the one whose post reached it."""
        dept = office.state.company.departments.get(conv.department or "")
        lead = (
            office.state.employees.get(dept.lead or "")
            if dept and conv.kind is not ConversationKind.DM
            else None
        )
        who = lead if lead is not None and not lead.dismissed else office.state.employees[message.sender]
        if lead is who and dept is not None:
            note = ESCALATE_ROOM.format(
                room=conv.name, id=conv.id, dept=dept.name, ceiling=UNANSWERED_CEILING
            )
        else:
            note = ESCALATE_THREAD.format(room=conv.name, id=conv.id, ceiling=UNANSWERED_CEILING)
        reach.owed.append((who.id, Owed(boss_conversation_id(who.id), Trigger.SYSTEM, note, escalation=True)))
        soon = message.at + timedelta(seconds=rules.mention_delay(rng, office.config.timers))
        reach.wakes.append(Wake(who.id, soon, Trigger.SYSTEM))
        reach.escalated = True

    def _to_claim(
        self, office: OfficeView, conv: ConversationState, message: Message, rng: random.Random
    ) -> Reach:
        """Work put on the board wakes the room's members 1-5 s after it opens to them, the keenest
        first (claims_tasks); not whoever put it there, nor anyone in the red zone (who may not claim)."""
        reach, offered_by = Reach(), taskboard.offers_from(office, message)
        pieces = " ".join(o.description for o in taskboard.announced(office, message))
        for member in conv.members:
            emp = office.state.employees.get(member)
            if emp is None or member in offered_by or not stamina.may_claim(emp.mind.stamina):
                continue
            cfg = office.config.person_levers()
            delay = levers.claim_delay(
                levers.claims_tasks_of(emp, cfg, pieces), rng, office.config.timers, cfg
            )
            reach.wakes.append(Wake(member, message.at + timedelta(seconds=delay), Trigger.NUDGE))
        return reach

    # ------------------------------------------------------------------ when to look next

    def next_look(self, office: OfficeView, emp: Employee, at: datetime, now: datetime) -> datetime:
        """`at`, or earlier when a gate holding an owed reply opens, or a task turns overdue or critical.

        An employee has one pending wake, kept in its state (so it survives a resume); a sooner
        look replaces the one set for such a moment, so every reschedule must keep that moment.
        """
        for owed in emp.desk.owed:
            held = emp.desk.held_until.get(owed.conversation)
            if held is not None and now < held < at:
                at = held
        due = tasks.next_urgency_change(emp.mind.tasks, now)  # a task turning overdue or critical
        if due is not None and now < due < at:
            at = due
        due = taskboard.next_unowned_alert(office, emp, now)  # work nobody claimed, for a lead
        if due is not None and now < due < at:
            at = due
        due = taskboard.next_opening(office, emp, now)  # board work opening to me (my dibs)
        if due is not None and now < due < at:
            at = due
        return at

    def after_think(
        self,
        office: OfficeView,
        emp: Employee,
        next_look_at: datetime,
        read: str | None,
        rng: random.Random,
        now: datetime,
    ) -> list[Wake]:
        """The next look, and any wake that arrived while busy (1-5 s from now)."""
        wakes = [Wake(emp.id, self.next_look(office, emp, next_look_at, now), Trigger.TIMER)]
        deferred = [Trigger(t) for t in emp.desk.deferred_triggers]
        waiting = addressed_unread(office, emp, now, skip=read)
        if waiting and waiting not in deferred:
            # The boss or a colleague addressed me elsewhere while I thought about this
            # conversation: that answer is owed in 1-5 s, not at the next timed look.
            deferred.append(waiting)
        if deferred:
            soon = now + timedelta(seconds=rules.mention_delay(rng, office.config.timers))
            wakes += [Wake(emp.id, soon, trigger) for trigger in deferred]
        return wakes


def addressed_unread(
    office: OfficeView, emp: Employee, now: datetime, skip: str | None = None
) -> Trigger | None:
    """BOSS or MENTION when an open conversation holds an unread message addressing `emp`."""
    found: Trigger | None = None
    for conv in office.conversations_of(emp.id):
        if conv.id == skip or not is_open(emp, conv.id, now):
            continue
        for message in unread_of(emp, conv):
            if emp.id in message.mentions:
                if message.sender == BOSS:
                    return Trigger.BOSS
                found = Trigger.MENTION
    return found


def pending(
    desk: Desk, now: datetime, rng: random.Random, timers: rules.TimerConfig
) -> list[tuple[datetime, Trigger]]:
    """The wakes an employee's desk holds when the office starts (or resumes): its saved wake, or a first look.

    A first look comes 10-300 s in (one draw of `rng`).
    """
    wake_at, triggers = desk.wake_at, desk.wake_triggers or [Trigger.TIMER]
    at = max(now, wake_at) if wake_at else now + timedelta(seconds=rng.uniform(timers.min_s, timers.max_s))
    return [(at, Trigger(t)) for t in triggers]
