"""What the levers (`rules/levers.py`) make of one employee: its own timers, gates and thresholds.

Read-only helpers over an `Employee` (its persona's tendencies, its stamina zone, its opinions of
colleagues) for the wake policy and the speech gates.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from ideaco import skills
from ideaco.mind import relationships, stamina
from ideaco.mind.board import Offer
from ideaco.office.core.state import Employee
from ideaco.office.rules import levers
from ideaco.office.rules.gates import GateConfig
from ideaco.office.rules.levers import LeverConfig
from ideaco.office.rules.timers import TimerConfig


def _tendency(emp: Employee, name: str, cfg: LeverConfig, neutral: float = levers.MIDDLE) -> float:
    """The persona's tendency, or with personas switched off the value that leaves the engine as the spec has it."""
    return levers.tendency(emp.persona, name) if cfg.personas else neutral


def talkativeness(emp: Employee, cfg: LeverConfig) -> float:
    return _tendency(emp, "talkativeness", cfg)  # neutral 0.5: the spec's timers and gates


def zone(emp: Employee) -> stamina.Zone:
    return stamina.zone(emp.mind.stamina)


def pace(emp: Employee, cfg: LeverConfig) -> float:
    """How far apart this employee's looks come (talkativeness and stamina zone)."""
    return levers.pace(talkativeness(emp, cfg), zone(emp), cfg)


_TIMERS: dict[tuple[int, int, float, str], tuple[TimerConfig, LeverConfig, TimerConfig]] = {}


def timers(emp: Employee, base: TimerConfig, cfg: LeverConfig) -> TimerConfig:
    """The spec's timers with this employee's look and nudge delays scaled by its pace.

    Asked at every look of every employee: kept by what it depends on (the configs by identity),
    since hashing a TimerConfig each time cost more than the rest of an empty look."""
    talk, where = talkativeness(emp, cfg), zone(emp)
    key = (id(base), id(cfg), talk, where)
    cached = _TIMERS.get(key)
    if cached is not None and cached[0] is base and cached[1] is cfg:
        return cached[2]
    scaled = levers.look_timers(base, levers.pace(talk, where, cfg))
    if len(_TIMERS) >= 1024:
        _TIMERS.clear()
    _TIMERS[key] = (base, cfg, scaled)
    return scaled


def gates(emp: Employee, base: GateConfig, cfg: LeverConfig) -> GateConfig:
    """The spec's gates with this employee's cooldowns and anti-spam windows scaled."""
    return levers.person_gates(base, levers.speech_factor(talkativeness(emp, cfg), cfg))


def silence_threshold(emp: Employee, cfg: LeverConfig) -> int:
    return levers.silence_threshold(_tendency(emp, "silence_bias", cfg, 0.0), cfg)  # neutral: hold nothing


def claims_tasks(emp: Employee, cfg: LeverConfig, piece: str = "") -> float:
    """How keen the employee is on work; on a piece its skills fit, as keen as anyone (issue 20)."""
    if piece and skills.fits(skills.names_of(emp.persona), piece):
        return 1.0
    return _tendency(emp, "claims_tasks", cfg, 1.0)  # neutral: no first dibs, everyone at once


def dibs(emp: Employee, offered_at: datetime, cfg: LeverConfig, piece: str = "") -> datetime:
    """When work put on the board at `offered_at` opens to this employee (the keen, and those whose
    skills fit the piece, get first dibs)."""
    return offered_at + timedelta(seconds=levers.dibs_after(claims_tasks(emp, cfg, piece), cfg))


def opens(emp: Employee, offer: Offer, cfg: LeverConfig) -> datetime:
    """When this offer opens to this employee (`dibs` for its moment and its piece)."""
    return dibs(emp, offer.offered_at, cfg, offer.description)


def affinity(emp: Employee, other: str, now: datetime) -> float:
    """What `emp` thinks of `other` now (50 for a stranger, the boss or the engine)."""
    return relationships.affinity_of(emp.mind.relationships, other, now)
