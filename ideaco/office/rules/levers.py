"""People, not prompts: what personality, stamina and relationships change in the engine itself.

Pure rules, every input (the persona's tendencies, the stamina zone, an affinity, the random
source) passed in. Each lever is bounded: a tendency moves an engine number by a factor between
two limits, never past them, so a persona file cannot switch a mechanism off or on by accident.
The numbers live in `LeverConfig` (docs/mind.md, "Levers"); `NEUTRAL` turns every lever off.

- cadence: how far apart an employee's looks and nudged wakes come (talkativeness, stamina zone);
- speech: its own cooldowns and anti-spam windows (talkativeness), and the interest under which a
  draft it was not asked for is held as chosen silence (silence_bias);
- tasks: how soon a claimable task opens to it, and it wakes to it (claims_tasks: first dibs to the keen);
- relationships: which unread conversation it reads first, how soon it answers a DM, and whether a
  strained pair still nudge each other (affinity);
- one employee: what the levers make of an `Employee` (its persona's tendencies, its stamina zone, its
  opinions of colleagues), read by the wake policy, the speech gates and the board.
"""

from __future__ import annotations

import functools
import math
import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from ideaco import skills
from ideaco.mind import stamina
from ideaco.mind.board import Offer
from ideaco.mind.stamina import Zone
from ideaco.office.core.state import Employee
from ideaco.office.rules.gates import GateConfig, KindGates
from ideaco.office.rules.timers import TimerConfig

MIDDLE = 0.5  # a tendency a persona does not state


@dataclass(frozen=True)
class LeverConfig:
    """The levers' numbers. Pace and speech move geometrically with talkativeness t, from their
    `_at_0` to their `_at_1` end: at_0 x (at_1 / at_0) ** t, so 2 ** (1 - 2t) for 2.0 and 0.5
    (1 at t = 0.5: a persona that states no talkativeness gets the spec's numbers)."""

    pace_at_0: float = 2.0  # talkativeness 0: looks and nudged wakes twice as far apart
    pace_at_1: float = 0.5  # talkativeness 1: half as far apart (0.5: the spec's own)
    zone_pace: tuple[tuple[Zone, float], ...] = ((Zone.GREEN, 1.0), (Zone.YELLOW, 1.25), (Zone.RED, 2.0))
    speech_at_0: float = 2.0  # talkativeness 0: cooldowns and anti-spam windows twice as long
    speech_at_1: float = 0.5  # talkativeness 1: half as long (0.5: the spec's own)
    idle_chance_per_talk: float = 2.0  # idle-think chance x (2 x talkativeness): 15% at 0.5
    red_idle_thinks: bool = False  # an employee in the red zone starts no idle topic
    silence_span: int = 7  # interest under 1 + round(7 x silence_bias) is held, unless addressed
    claim_spread_s: float = 240.0  # a claimable task opens to a member (1 - claims_tasks) x 240 s later
    pull_per_point: float = 0.01  # an unread message weighs 1 + 0.01 x (affinity - 50): 0.51 to 1.5
    dm_reply_per_point: float = 0.01  # a DM's nudge delay x 1 - 0.01 x (affinity - 50): 1.49 to 0.5
    strained_below: float = 20.0  # a pair where either rates the other under 20 stop nudging each other
    personas: bool = True  # False (the personas switch off): no tendency is read, each lever neutral

    def zone_factor(self, zone: Zone) -> float:
        return dict(self.zone_pace).get(zone, 1.0)


DEFAULT_LEVERS = LeverConfig()
NEUTRAL = LeverConfig(
    pace_at_0=1.0,
    pace_at_1=1.0,
    zone_pace=(),
    speech_at_0=1.0,
    speech_at_1=1.0,
    idle_chance_per_talk=2.0,
    red_idle_thinks=True,
    silence_span=0,
    claim_spread_s=0.0,
    pull_per_point=0.0,
    dm_reply_per_point=0.0,
    strained_below=0.0,
)


def _geometric(t: float, at_0: float, at_1: float) -> float:
    t = min(1.0, max(0.0, t))
    return at_0 * (at_1 / at_0) ** t


def tendency(persona: Mapping[str, Any], name: str) -> float:
    """A persona's tendency (0..1); MIDDLE when the persona does not state it."""
    value = (persona.get("tendencies") or {}).get(name)
    return MIDDLE if value is None else min(1.0, max(0.0, float(value)))


# --------------------------------------------------------------------------- cadence


def pace(talkativeness: float, zone: Zone, cfg: LeverConfig = DEFAULT_LEVERS) -> float:
    """How far apart an employee's looks come, as a factor of the spec's delays.

    2 ** (1 - 2 x talkativeness): 0.5 (talkativeness 1) to 2 (talkativeness 0), times 1.25 in the
    yellow zone and 2 in the red: a chatterbox looks often, a shy introvert seldom, a worn-out
    employee less than either.
    """
    return _geometric(talkativeness, cfg.pace_at_0, cfg.pace_at_1) * cfg.zone_factor(zone)


@functools.lru_cache(maxsize=256)
def look_timers(timers: TimerConfig, pace: float) -> TimerConfig:
    """The timers of one employee: its adaptive look's bounds and its nudged wakes scaled by `pace`.

    Mentions (1-5 s), the typing pause and the idle-room wait are not scaled: an addressed
    employee answers as soon as anyone. Cached: every look of every employee asks.
    """
    if pace == 1.0:
        return timers
    return replace(
        timers,
        min_s=timers.min_s * pace,
        max_s=timers.max_s * pace,
        nudge_min_s=timers.nudge_min_s * pace,
        nudge_max_s=timers.nudge_max_s * pace,
    )


def idle_chance(talkativeness: float, zone: Zone, base: float, cfg: LeverConfig = DEFAULT_LEVERS) -> float:
    """The chance an empty look in a quiet casual room thinks anyway: none in the red zone."""
    if zone == Zone.RED and not cfg.red_idle_thinks:
        return 0.0
    return min(1.0, base * cfg.idle_chance_per_talk * talkativeness)


# --------------------------------------------------------------------------- speech


def speech_factor(talkativeness: float, cfg: LeverConfig = DEFAULT_LEVERS) -> float:
    """The factor on one's own cooldowns and anti-spam windows: 2 ** (1 - 2 x talkativeness), 2 to 0.5."""
    return _geometric(talkativeness, cfg.speech_at_0, cfg.speech_at_1)


@functools.lru_cache(maxsize=256)
def person_gates(gates: GateConfig, factor: float) -> GateConfig:
    """The speech gates of one employee: every cooldown and anti-spam window times `factor`.

    The number of posts a window allows and the saturation threshold stay the spec's.
    """
    if factor == 1.0:
        return gates

    def scaled(row: KindGates) -> KindGates:
        return replace(row, window_s=row.window_s * factor, cooldown_s=row.cooldown_s * factor)

    return replace(
        gates,
        work=scaled(gates.work),
        casual=scaled(gates.casual),
        dm=scaled(gates.dm),
        boss=scaled(gates.boss),
    )


def silence_threshold(silence_bias: float, cfg: LeverConfig = DEFAULT_LEVERS) -> int:
    """The interestLevel under which an employee keeps a draft to itself: 1 + round(7 x silence_bias).

    1 (never: silence_bias under 1/14) to 8 (silence_bias 1: only what is critical is said).
    """
    return 1 + math.floor(cfg.silence_span * min(1.0, max(0.0, silence_bias)) + 0.5)


def holds_silence(interest: int, threshold: int, addressed: bool) -> bool:
    """Whether a draft is held as chosen silence: its interest under the threshold, and nobody asked."""
    return not addressed and interest < threshold


# --------------------------------------------------------------------------- tasks


def dibs_after(claims_tasks: float, cfg: LeverConfig = DEFAULT_LEVERS) -> float:
    """Seconds after work goes on the board before a member may see and claim it: (1 - claims_tasks) x 240.

    The keen get first dibs: an ultra grinder (0.95) after 12 s, a zen slacker (0.1) after 216 s.
    """
    return (1.0 - min(1.0, max(0.0, claims_tasks))) * cfg.claim_spread_s


def claim_delay(
    claims_tasks: float, rng: random.Random, timers: TimerConfig, cfg: LeverConfig = DEFAULT_LEVERS
) -> float:
    """Seconds before a member wakes to a claimable task: its dibs, then a mention's 1-5 s.

    Consumes one rng draw.
    """
    return dibs_after(claims_tasks, cfg) + rng.uniform(timers.mention_min_s, timers.mention_max_s)


# --------------------------------------------------------------------------- relationships


def pull(affinity: float, cfg: LeverConfig = DEFAULT_LEVERS) -> float:
    """How much an unread message weighs when choosing what to read: 1 + 0.01 x (affinity - 50).

    0.51 from someone rated 1, 1.5 from someone rated 100; 1 for a stranger (50), the boss and the
    engine's own lines.
    """
    return 1.0 + cfg.pull_per_point * (min(100.0, max(1.0, affinity)) - 50.0)


def dm_reply_factor(affinity: float, cfg: LeverConfig = DEFAULT_LEVERS) -> float:
    """The factor on the nudge delay of a DM: 1 - 0.01 x (affinity - 50), 1.49 (rated 1) to 0.5 (rated 100)."""
    return 1.0 - cfg.dm_reply_per_point * (min(100.0, max(1.0, affinity)) - 50.0)


def strained(a_of_b: float, b_of_a: float, cfg: LeverConfig = DEFAULT_LEVERS) -> bool:
    """A strained pair: either rates the other under 20. They stop nudging each other (mentions still wake)."""
    return min(a_of_b, b_of_a) < cfg.strained_below


# --------------------------------------------------------------------------- one employee


def _tendency_of(emp: Employee, name: str, cfg: LeverConfig, neutral: float = MIDDLE) -> float:
    """The persona's tendency, or with personas switched off the value that leaves the engine as the spec has it."""
    return tendency(emp.persona, name) if cfg.personas else neutral


def talkativeness_of(emp: Employee, cfg: LeverConfig) -> float:
    return _tendency_of(emp, "talkativeness", cfg)  # neutral 0.5: the spec's timers and gates


def pace_of(emp: Employee, cfg: LeverConfig) -> float:
    """How far apart this employee's looks come (talkativeness and stamina zone)."""
    return pace(talkativeness_of(emp, cfg), stamina.zone(emp.mind.stamina), cfg)


_TIMERS: dict[tuple[int, int, float, str], tuple[TimerConfig, LeverConfig, TimerConfig]] = {}


def timers_of(emp: Employee, base: TimerConfig, cfg: LeverConfig) -> TimerConfig:
    """The spec's timers with this employee's look and nudge delays scaled by its pace.

    Asked at every look of every employee: kept by what it depends on (the configs by identity),
    since hashing a TimerConfig each time cost more than the rest of an empty look."""
    talk, where = talkativeness_of(emp, cfg), stamina.zone(emp.mind.stamina)
    key = (id(base), id(cfg), talk, where)
    cached = _TIMERS.get(key)
    if cached is not None and cached[0] is base and cached[1] is cfg:
        return cached[2]
    scaled = look_timers(base, pace(talk, where, cfg))
    if len(_TIMERS) >= 1024:
        _TIMERS.clear()
    _TIMERS[key] = (base, cfg, scaled)
    return scaled


def gates_of(emp: Employee, base: GateConfig, cfg: LeverConfig) -> GateConfig:
    """The spec's gates with this employee's cooldowns and anti-spam windows scaled."""
    return person_gates(base, speech_factor(talkativeness_of(emp, cfg), cfg))


def silence_threshold_of(emp: Employee, cfg: LeverConfig) -> int:
    return silence_threshold(_tendency_of(emp, "silence_bias", cfg, 0.0), cfg)  # neutral: hold nothing


def claims_tasks_of(emp: Employee, cfg: LeverConfig, piece: str = "") -> float:
    """How keen the employee is on work; on a piece its skills fit, as keen as anyone (issue 20)."""
    if piece and skills.fits(skills.names_of(emp.persona), piece):
        return 1.0
    return _tendency_of(emp, "claims_tasks", cfg, 1.0)  # neutral: no first dibs, everyone at once


def dibs(emp: Employee, offered_at: datetime, cfg: LeverConfig, piece: str = "") -> datetime:
    """When work put on the board at `offered_at` opens to this employee (the keen, and those whose
    skills fit the piece, get first dibs)."""
    return offered_at + timedelta(seconds=dibs_after(claims_tasks_of(emp, cfg, piece), cfg))


def opens(emp: Employee, offer: Offer, cfg: LeverConfig) -> datetime:
    """When this offer opens to this employee (`dibs` for its moment and its piece)."""
    return dibs(emp, offer.offered_at, cfg, offer.description)
