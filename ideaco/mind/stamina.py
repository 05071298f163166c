"""An employee's stamina (spec 2.6): patience, fatigue, stress, comfort zones and recovery.

Pure: `Stamina` is frozen and every function returns a new one, with each value clamped to
0..100. How the engine drives it: before each think it calls `recover(st, now)` (natural
recovery for the simulated time since the last activity), then `apply(st, "llm_call")` and
the other events of that thought, and `mark_active(st, now)` once the think is over, so the
time spent thinking is not counted as idle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from ideaco.cycle import Words
from ideaco.mind.relationships import SWING_ABOVE

# event -> (patience, fatigue, stress) deltas
EVENTS: dict[str, tuple[float, float, float]] = {
    "llm_call": (0, 2, 0),
    "task_assigned": (10, 0, 0),
    "task_complete": (20, -15, -15),
    "task_fail": (-10, 10, 25),
    "chat_positive": (5, -3, -5),  # affinity up by more than 5
    "chat_negative": (-8, 3, 10),  # affinity down by more than 5
    "repetition": (-15, 10, 10),
    # A document's review (issue 20, IdeaCo's table): passed (a rebuttal that persuaded counts),
    # or rejected, harder each round.
    "review_passed": (15, -10, -20),
    "review_rejected_1": (-5, 5, 10),
    "review_rejected_2": (-15, 10, 20),
    "review_rejected_3": (-30, 15, 30),
}
RECOVERY_PER_HOUR = (5.0, -5.0, -5.0)  # per idle simulated hour, pro rata
# Events a noisy model can set off at will (a random dislike, a repeated draft) count at most this
# often per simulated hour: one model's random negativity cannot sink an employee in half an hour.
PER_HOUR = {"chat_negative": 2, "repetition": 2}
HOUR = timedelta(hours=1)
GREEN_ABOVE = 70.0
RED_BELOW = 40.0
ESCALATE_BELOW = 30.0

YELLOW_NOTE = (
    "You are getting tired: every message costs energy; speak only when it matters, prefer finishing tasks."
)
REFLECTION_QUESTIONS = (
    "What have I been doing that is not working?",
    "Why?",
    "What completely different approach should I try?",
    "Should I escalate?",
)
RED_NOTE = "\n".join(
    [
        "## Reflection (you are exhausted and stressed)",
        "Before anything else, answer these for yourself in {thoughts}:",
        *(f"- {q}" for q in REFLECTION_QUESTIONS),
    ]
)


def _clamp(value: float) -> float:
    return float(min(max(value, 0.0), 100.0))


@dataclass(frozen=True)
class Stamina:
    """Patience, fatigue and stress, each 0..100 (clamped on construction)."""

    patience: float = 100.0
    fatigue: float = 0.0
    stress: float = 0.0
    last_active_at: datetime | None = None
    recent: tuple[tuple[str, datetime], ...] = ()  # bounded events (PER_HOUR) of the last hour

    def __post_init__(self) -> None:
        for name in ("patience", "fatigue", "stress"):
            object.__setattr__(self, name, _clamp(getattr(self, name)))

    def to_dict(self) -> dict[str, Any]:
        """JSON form; comfort and zone are there to read in state.json, from_dict ignores them."""
        return {
            "patience": self.patience,
            "fatigue": self.fatigue,
            "stress": self.stress,
            "last_active_at": self.last_active_at.isoformat() if self.last_active_at else None,
            "recent": [[event, at.isoformat()] for event, at in self.recent],
            "comfort": comfort(self),
            "zone": zone(self),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Stamina:
        last = d.get("last_active_at")
        return cls(
            patience=d.get("patience", 100.0),
            fatigue=d.get("fatigue", 0.0),
            stress=d.get("stress", 0.0),
            last_active_at=datetime.fromisoformat(last) if last else None,
            recent=tuple((str(e), datetime.fromisoformat(a)) for e, a in d.get("recent") or ()),
        )


def _shift(st: Stamina, dp: float, df: float, ds: float) -> Stamina:
    return replace(st, patience=st.patience + dp, fatigue=st.fatigue + df, stress=st.stress + ds)


def apply(st: Stamina, event: str, now: datetime | None = None) -> Stamina:
    """A new Stamina after one EVENTS event; ValueError for an unknown event.

    With `now`, an event of PER_HOUR counts only if fewer than its bound happened in the hour
    before `now` (at exactly an hour an event has left the window); else nothing changes.
    """
    try:
        deltas = EVENTS[event]
    except KeyError:
        raise ValueError(f"unknown stamina event {event!r}; known: {', '.join(EVENTS)}") from None
    if now is None or event not in PER_HOUR:
        return _shift(st, *deltas)
    recent = tuple((e, at) for e, at in st.recent if now - at < HOUR)
    if sum(1 for e, _ in recent if e == event) >= PER_HOUR[event]:
        return replace(st, recent=recent)
    return replace(_shift(st, *deltas), recent=(*recent, (event, now)))


def counts(st: Stamina, event: str, now: datetime) -> bool:
    """Whether `event` at `now` would change stamina (False: its hourly bound is reached)."""
    if event not in PER_HOUR:
        return event in EVENTS
    return sum(1 for e, at in st.recent if e == event and now - at < HOUR) < PER_HOUR[event]


def review_rejected(round_: int) -> str:
    """The stamina event of a document's `round_`-th rejection (1st, 2nd, 3rd and later)."""
    return f"review_rejected_{min(max(round_, 1), 3)}"


def affinity_event(change: int) -> str | None:
    """The chat event an affinity change makes: chat_positive above +SWING_ABOVE (5), chat_negative below -5."""
    if change > SWING_ABOVE:
        return "chat_positive"
    if change < -SWING_ABOVE:
        return "chat_negative"
    return None


def recover(st: Stamina, now: datetime) -> Stamina:
    """Natural recovery for the idle time since last_active_at (+5/-5/-5 per simulated hour,
    pro rata); last_active_at becomes `now`. With no last_active_at there is nothing to recover."""
    if st.last_active_at is None or now <= st.last_active_at:
        return replace(st, last_active_at=max(now, st.last_active_at or now))
    hours = (now - st.last_active_at).total_seconds() / 3600
    recovered = _shift(st, *(rate * hours for rate in RECOVERY_PER_HOUR))
    return replace(recovered, last_active_at=now)


def mark_active(st: Stamina, now: datetime) -> Stamina:
    """Record that the employee was active at `now` (idle recovery counts from here)."""
    return replace(st, last_active_at=now)


def comfort(st: Stamina) -> float:
    """patience - (0.4*fatigue + 0.6*stress), clamped to 0..100."""
    return _clamp(st.patience - (0.4 * st.fatigue + 0.6 * st.stress))


class Zone(Words):
    """A stamina zone (spec 2.6), named once: what the logs, the report, the chat and the levers say."""

    GREEN = "green"
    YELLOW = "yellow"
    RED = "red"


def zone(st: Stamina) -> Zone:
    """green above 70, yellow 40 to 70 (both included), red below 40."""
    c = comfort(st)
    if c > GREEN_ABOVE:
        return Zone.GREEN
    if c < RED_BELOW:
        return Zone.RED
    return Zone.YELLOW


def prompt_note(st: Stamina, thoughts: str = "innerThoughts") -> str:
    """The stamina note of the prompt: nothing in green, a cost note in yellow, reflection in red
    (`thoughts`: the answer's field for private thoughts, as the wire names it)."""
    return {Zone.GREEN: "", Zone.YELLOW: YELLOW_NOTE, Zone.RED: RED_NOTE.format(thoughts=thoughts)}[zone(st)]


def may_claim(st: Stamina) -> bool:
    """Whether the employee may claim more work: not in the red zone (issue 13)."""
    return zone(st) != Zone.RED


def should_escalate(st: Stamina) -> bool:
    """Comfort under 30: the employee escalates its blocked task to the boss."""
    return comfort(st) < ESCALATE_BELOW
