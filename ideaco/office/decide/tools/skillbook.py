"""`load_skill {name}` in a think (issue 20, item 5): a marked note for the next think.

The employee's persona carries its skills resolved (name, summary, text: `build._with_skills`), so a
resume needs no skill folder. `load_skill` leaves a marked note on the employee's mind (a `mind`
step, so `applied` and a resume carry it); the next think's prompt quotes the skill's text instead
of the note (`ideaco/skills`: `MARK`, `split_notes`).
"""

from __future__ import annotations

from datetime import datetime

from ideaco.kinds import ToolName
from ideaco.mind.thought.model import Action
from ideaco.office.core.steps import Step, ToolStep
from ideaco.office.decide.scratch import Scratch
from ideaco.skills import MARK, book


def act(scratch: Scratch, employee: str, action: Action, now: datetime) -> list[Step]:
    """One `load_skill` call: a marked note for the next think, or a refusal the employee reads."""
    emp = scratch.employees[employee]
    name = str(action.args.get("name") or "").strip()
    skills = book(emp.persona)
    if name not in skills:
        known = ", ".join(skills) or "none"
        message = f"{ToolName.LOAD_SKILL} refused: {name!r} is not one of your skills ({known})"
        scratch.employee(employee).mind.notes.append(message)
        return [ToolStep(ToolName.LOAD_SKILL, False, message), *scratch.take(now)]
    if MARK + name not in emp.mind.notes:  # once, however often it is asked for
        scratch.employee(employee).mind.notes.append(MARK + name)
    return [
        ToolStep(ToolName.LOAD_SKILL, True, f"{name}: its text is in your next thought"),
        *scratch.take(now),
    ]
