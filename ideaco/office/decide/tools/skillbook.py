"""An employee's skills in a think (issue 20, item 5): `load_skill {name}` and the prompt it feeds.

The employee's persona carries its skills resolved (name, summary, text: `build._with_skills`), so a
resume needs no skill folder. `load_skill` leaves a marked note on the employee's mind (a `mind`
step, so `applied` and a resume carry it); the next think's notes are read once, and this module
turns the mark into the skill's text, quoted in the prompt (bounded) instead of a note.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ideaco.mind.thought.model import Action
from ideaco.office.core.state import Employee
from ideaco.office.core.steps import Step, ToolStep
from ideaco.office.decide.scratch import Scratch
from ideaco.skills import TEXT_CHARS, names_of

TOOL = "load_skill"
MARK = "@skill "  # a note that is no note: the next prompt quotes this skill
LOADED = 2  # skills quoted in one prompt


def book(emp: Employee) -> dict[str, dict[str, Any]]:
    """The employee's skills by name (empty for one without any)."""
    return {s["name"]: s for s in emp.persona.get("skills") or () if isinstance(s, dict) and "name" in s}


def offered(emp: Employee) -> tuple[str, ...]:
    """The skill names `load_skill` may take in this employee's thought."""
    return names_of(emp.persona)


def act(scratch: Scratch, employee: str, action: Action, now: datetime) -> list[Step]:
    """One `load_skill` call: a marked note for the next think, or a refusal the employee reads."""
    emp = scratch.employees[employee]
    name = str(action.args.get("name") or "").strip()
    skills = book(emp)
    if name not in skills:
        known = ", ".join(skills) or "none"
        message = f"{TOOL} refused: {name!r} is not one of your skills ({known})"
        scratch.employee(employee).mind.notes.append(message)
        return [ToolStep(TOOL, False, message), *scratch.take(now)]
    if MARK + name not in emp.mind.notes:  # once, however often it is asked for
        scratch.employee(employee).mind.notes.append(MARK + name)
    return [ToolStep(TOOL, True, f"{name}: its text is in your next thought"), *scratch.take(now)]


def split_notes(emp: Employee, notes: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The notes to show as notes, and the loaded skills' texts to quote (at most LOADED, bounded)."""
    skills = book(emp)
    plain = tuple(n for n in notes if not n.startswith(MARK))
    names = dict.fromkeys(n[len(MARK) :] for n in notes if n.startswith(MARK))
    quoted = tuple(
        f"{name}\n{str(skills[name].get('text', ''))[:TEXT_CHARS]}" for name in names if name in skills
    )
    return plain, quoted[:LOADED]
