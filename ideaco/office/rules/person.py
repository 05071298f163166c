"""The old name of what the levers make of one employee, now in `rules/levers.py`.

Kept importable only while `perceive/waking.py` (being edited for issue 38, item 3) still says
`person.`; it defines nothing: each name is the `levers` function itself, so a call never enters
this module. Goes when waking.py names `levers`.
"""

from __future__ import annotations

from ideaco.office.rules.levers import affinity_of as affinity
from ideaco.office.rules.levers import claims_tasks_of as claims_tasks
from ideaco.office.rules.levers import talkativeness_of as talkativeness
from ideaco.office.rules.levers import timers_of as timers
from ideaco.office.rules.levers import zone_of as zone

__all__ = ["affinity", "claims_tasks", "talkativeness", "timers", "zone"]
