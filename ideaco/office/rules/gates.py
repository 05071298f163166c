"""Speech gates (spec 2.2), applied after the model said shouldSpeak=true.

Order: saturation, anti-spam, cooldown. The gates count one employee's own messages in one
conversation. A window "within W" holds events younger than W: at exactly W an event has left it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from ideaco.cycle import Gate
from ideaco.kinds import ConversationKind


@dataclass(frozen=True)
class KindGates:
    """Anti-spam (max_posts within window_s) and cooldown for one kind of conversation."""

    max_posts: int
    window_s: float
    cooldown_s: float


@dataclass(frozen=True)
class GateConfig:
    """The table of spec 2.2; a scenario may override any row or the saturation threshold."""

    work: KindGates = KindGates(max_posts=2, window_s=300.0, cooldown_s=60.0)
    casual: KindGates = KindGates(max_posts=4, window_s=600.0, cooldown_s=30.0)
    dm: KindGates = KindGates(max_posts=4, window_s=300.0, cooldown_s=20.0)
    boss: KindGates = KindGates(max_posts=6, window_s=300.0, cooldown_s=10.0)
    saturation_silence_at: int = 7  # topicSaturation at or above this silences the unmentioned

    def for_kind(self, kind: ConversationKind | str) -> KindGates:
        """The row for a conversation kind."""
        return getattr(self, ConversationKind(kind).value)


DEFAULT_GATES = GateConfig()


@dataclass(frozen=True)
class GateVerdict:
    """Whether a draft may be posted; if not, which gate held it and when that gate reopens."""

    allowed: bool
    gate: Gate | None = None
    reopens_at: datetime | None = None  # None for saturation: only a mention or a new topic opens it


ALLOWED = GateVerdict(True)


def anti_spam_reopens_at(
    own_post_times: Sequence[datetime], now: datetime, max_posts: int, window_s: float
) -> datetime | None:
    """None when under the limit, else the moment enough posts leave the window to allow one more."""
    window = timedelta(seconds=window_s)
    recent = sorted(t for t in own_post_times if now - t < window)
    if len(recent) < max_posts:
        return None
    # To get down to max_posts - 1 posts, the oldest len - max_posts + 1 of them must leave.
    return recent[len(recent) - max_posts] + window


def cooldown_reopens_at(
    own_post_times: Sequence[datetime], now: datetime, cooldown_s: float
) -> datetime | None:
    """None when the last own post is at least cooldown_s old (or there is none), else when it will be."""
    if not own_post_times:
        return None
    reopens = max(own_post_times) + timedelta(seconds=cooldown_s)
    return reopens if now < reopens else None


def check_speech(
    kind: ConversationKind | str,
    own_post_times: Sequence[datetime],
    saturation: int,
    mentioned: bool,
    now: datetime,
    cfg: GateConfig = DEFAULT_GATES,
) -> GateVerdict:
    """Apply the gates in order; own_post_times are this employee's posts in this conversation.

    Being mentioned lifts only the saturation gate: a mentioned employee held by anti-spam or
    cooldown is re-woken at reopens_at, so the reply is delayed, never dropped.
    """
    if saturation >= cfg.saturation_silence_at and not mentioned:
        return GateVerdict(False, Gate.SATURATION)
    return check_timing(kind, own_post_times, now, cfg)


def check_timing(
    kind: ConversationKind | str,
    own_post_times: Sequence[datetime],
    now: datetime,
    cfg: GateConfig = DEFAULT_GATES,
) -> GateVerdict:
    """Anti-spam, then cooldown: the gates that hold a draft whatever it says (all a mentioned
    employee faces)."""
    row = cfg.for_kind(kind)
    reopens = anti_spam_reopens_at(own_post_times, now, row.max_posts, row.window_s)
    if reopens is not None:
        return GateVerdict(False, Gate.ANTI_SPAM, reopens)
    reopens = cooldown_reopens_at(own_post_times, now, row.cooldown_s)
    if reopens is not None:
        return GateVerdict(False, Gate.COOLDOWN, reopens)
    return ALLOWED
