"""Loop breakers (spec 2.3, after OpenMausBot's room-post-budget and AelionBot).

Each rule is a pure decision over one conversation's recent messages (oldest first) and `now`.
Refusals are never recorded as posts by the caller: a blocked employee must not deepen its own
block. Windows hold events younger than W: at exactly W an event has left.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from ideaco.cycle import LoopRule
from ideaco.ids import BOSS, SYSTEM
from ideaco.office.core.conversation import Message
from ideaco.wording import normalise

# The loop breakers' numbers (spec 2.3), each defined here once: a prompt that tells an employee of
# one renders it from here.
DUPLICATE_WINDOW_S = 60.0  # the same words from the same sender within this are a duplicate
RING_WINDOW_S = 120.0  # agent posts younger than this can close a ring (X, Y, Z, X)
RING_CLOSED_S = 300.0  # a ring closes the conversation to agent posts for this long
PAIR_STREAK = 4  # messages alternating strictly between two agents: they stop waking each other
UNANSWERED_CEILING = 10  # agent messages since the boss last wrote: posts stop waking anyone


@dataclass(frozen=True)
class LoopVerdict:
    """Whether an agent post may go out; reason is the loop rule that refused it, detail a line for the log."""

    allowed: bool
    reason: LoopRule | None = None
    detail: str = ""


@dataclass(frozen=True)
class RingVerdict(LoopVerdict):
    """A ring verdict also says until when the conversation is closed to agent posts."""

    closed_until: datetime | None = None


def _since_boss(history: Sequence[Message], since_reset: datetime | None = None) -> list[Message]:
    """Messages after the last boss message and strictly after since_reset (a task-op time)."""
    start = 0
    for i, msg in enumerate(history):
        if msg.sender == BOSS:
            start = i + 1
    tail = list(history[start:])
    if since_reset is not None:
        tail = [m for m in tail if m.at > since_reset]
    return tail


def check_duplicate(
    history: Sequence[Message],
    sender: str,
    text: str,
    now: datetime,
    window_s: float = DUPLICATE_WINDOW_S,
    elsewhere: Sequence[Message] = (),
) -> LoopVerdict:
    """Refuse the same sender posting the same text (case and spacing aside) within window_s.

    `elsewhere` holds messages of other rooms: the same words posted there by the sender (a reply
    and a send_message saying the same, a cross-room copy) are a duplicate too.
    """
    window = timedelta(seconds=window_s)
    key = normalise(text)
    for msg in reversed(history):
        if msg.sender == sender and now - msg.at < window and normalise(msg.text) == key:
            return LoopVerdict(
                False, LoopRule.DUPLICATE, f"{sender} already posted this text at {msg.at.isoformat()}"
            )
    for msg in elsewhere:
        if msg.sender == sender and now - msg.at < window and normalise(msg.text) == key:
            detail = f"{sender} already posted this text in {msg.conversation} at {msg.at.isoformat()}"
            return LoopVerdict(False, LoopRule.DUPLICATE, detail)
    return LoopVerdict(True)


def is_closed(closed_until: datetime | None, now: datetime) -> bool:
    """Whether a ring closure still holds at now (it lifts at exactly closed_until)."""
    return closed_until is not None and now < closed_until


def closes_ring(senders: Sequence[str], candidate: str) -> bool:
    """Whether candidate after senders makes the last four X,Y,Z,X with X, Y, Z distinct."""
    tail = [*senders[-3:], candidate]
    if len(tail) < 4:
        return False
    first, second, third, last = tail
    return first == last and len({first, second, third}) == 3


def check_ring(
    history: Sequence[Message],
    sender: str,
    now: datetime,
    window_s: float = RING_WINDOW_S,
    close_s: float = RING_CLOSED_S,
) -> RingVerdict:
    """Refuse an agent post that closes a ring (a standing closure is `is_closed`'s to say).

    Only agent posts younger than window_s and after the last boss message count. A new ring
    closes the conversation to agent posts for close_s. The boss and the system always post.
    """
    if sender in (BOSS, SYSTEM):
        return RingVerdict(True)
    window = timedelta(seconds=window_s)
    senders = [m.sender for m in _since_boss(history) if m.from_agent and now - m.at < window]
    if closes_ring(senders, sender):
        until = now + timedelta(seconds=close_s)
        speakers = ",".join([*senders[-3:], sender])
        return RingVerdict(
            False, LoopRule.RING, f"ring {speakers}: closed to agent posts until {until.isoformat()}", until
        )
    return RingVerdict(True)


def pair_streak(
    history: Sequence[Message], since_reset: datetime | None = None, length: int = PAIR_STREAK
) -> tuple[str, str] | None:
    """(starter, partner) when the last `length` messages alternate strictly between two agents.

    Counts only messages after the last boss message and after since_reset (a task-op time). The
    starter is who began the whole alternating run, even when it is longer than `length`.
    """
    tail = _since_boss(history, since_reset)
    if length < 2 or len(tail) < length:
        return None
    senders = [m.sender for m in tail]
    if not all(m.from_agent for m in tail[-length:]):
        return None
    last = senders[-length:]
    if len(set(last)) != 2 or any(last[i] == last[i + 1] for i in range(length - 1)):
        return None
    start = len(senders) - length
    # Walk back while the alternation goes on, to find who started it.
    while start > 0 and tail[start - 1].from_agent and senders[start - 1] == senders[start + 1]:
        start -= 1
    return senders[start], senders[start + 1]


def unanswered_ceiling_reached(
    history: Sequence[Message], since_reset: datetime | None = None, ceiling: int = UNANSWERED_CEILING
) -> bool:
    """Whether `ceiling` agent messages came since the boss last wrote (and since since_reset).

    Once reached, agent messages stop nudging anyone until the boss writes or a task op happens.
    """
    return sum(1 for m in _since_boss(history, since_reset) if m.from_agent) >= ceiling


def owes_escalation(escalated_at: datetime | None, since_reset: datetime | None) -> bool:
    """Whether a conversation at its unanswered ceiling still owes someone an escalation (issue 13):
    once per stretch, a stretch ending when the boss writes there or a task op happens."""
    return escalated_at is None or (since_reset is not None and escalated_at < since_reset)


def thought_superseded(arrived: Sequence[Message], thinker: str) -> tuple[Message, ...]:
    """Messages that arrived while a thought was being thought, other than the thinker's own.

    Empty: the thought is not superseded.
    """
    return tuple(m for m in arrived if m.sender != thinker)


def may_rethink(rethinks_done: int, max_rethinks: int = 1) -> bool:
    """A superseded thought gets at most max_rethinks re-thinks with the difference."""
    return rethinks_done < max_rethinks
