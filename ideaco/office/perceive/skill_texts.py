"""An employee's skills as a think sees them (issue 20, item 5): the names `load_skill` may take,
and the texts of the skills loaded in the think before, quoted in the prompt (bounded) instead of
their marked notes (`decide/tools/skillbook.py` leaves the marks).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ideaco.kinds import ToolName
from ideaco.office.core.state import Employee
from ideaco.skills import TEXT_CHARS, names_of

TOOL = ToolName.LOAD_SKILL
MARK = "@skill "  # a note that is no note: the next prompt quotes this skill
LOADED = 2  # skills quoted in one prompt


def book(emp: Employee) -> dict[str, dict[str, Any]]:
    """The employee's skills by name (empty for one without any)."""
    return {s["name"]: s for s in emp.persona.get("skills") or () if isinstance(s, dict) and "name" in s}


def offered(emp: Employee) -> tuple[str, ...]:
    """The skill names `load_skill` may take in this employee's thought."""
    return names_of(emp.persona)


def split_notes(emp: Employee, notes: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The notes to show as notes, and the loaded skills' texts to quote (at most LOADED, bounded)."""
    skills = book(emp)
    plain = tuple(n for n in notes if not n.startswith(MARK))
    names = dict.fromkeys(n[len(MARK) :] for n in notes if n.startswith(MARK))
    quoted = tuple(
        f"{name}\n{str(skills[name].get('text', ''))[:TEXT_CHARS]}" for name in names if name in skills
    )
    return plain, quoted[:LOADED]
