"""The secretary's tools: the boss's plain-language requests become organizational changes (spec 2.9).

The secretary calls them through the `actions` field of its thought. Each tool validates all of
its arguments first and changes nothing when it refuses; the refusal reason (or the result)
reaches the secretary in its next thought, which it owes in its boss chat.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from ideaco.mind import stamina, tasks
from ideaco.mind.thought import TOOL_ARGS
from ideaco.mind.thought.model import (
    AssignRequirement,
    CreateDepartment,
    CreateRoom,
    DismissEmployee,
    HireEmployee,
    Summarize,
)
from ideaco.office.company import Department
from ideaco.office.conversation import ConversationKind, boss_conversation_id
from ideaco.office.effects import owe
from ideaco.office.state import ConversationState, EmployeeState, Focus
from ideaco.persona import ARCHETYPES, PERSONAS_DIR, load_archetype, load_persona_file

if TYPE_CHECKING:
    from ideaco.office.office import Office

SECRETARY = "secretary"
SECRETARY_PERSONA = PERSONAS_DIR / "roles" / "secretary.yaml"
_SLUG = re.compile(r"[^a-z0-9]+")


# A think that reads colleagues' words quoted for a summary runs without the tools, so nothing
# quoted there can become an order (only the boss gives orders, spec 2.3).
SUMMARY_NOTE = "The boss wants a summary."


def tools_allowed(employee: str, conversation: str, note: str) -> bool:
    """The organization tools: the secretary's, in its boss chat, never while reading quotes."""
    return employee == SECRETARY and conversation == f"boss:{SECRETARY}" and not note.startswith(SUMMARY_NOTE)


class Refusal(Exception):
    """A tool call that cannot be done; the message says why, for the secretary to read."""


@dataclass(frozen=True)
class ToolResult:
    ok: bool
    message: str


def slug(text: str) -> str:
    return _SLUG.sub("-", text.lower()).strip("-")


def secretary_state(company: str) -> EmployeeState:
    """The secretary every company has."""
    persona = load_persona_file(SECRETARY_PERSONA).model_dump(mode="json", exclude_none=True)
    return EmployeeState(
        id=SECRETARY,
        name="Secretary",
        role=f"Secretary of {company}",
        age=None,
        department=None,
        model=None,
        persona=persona,
    )


def run_tool(office: Office, tool: str, args: dict[str, Any]) -> ToolResult:
    """Validate then apply one tool call; never half-applied."""
    model = TOOL_ARGS.get(tool)
    if model is None:
        return ToolResult(False, f"{tool}: no such tool (tools: {', '.join(TOOL_ARGS)})")
    try:
        parsed = model.model_validate({k: v for k, v in args.items() if v not in ("", None, [])})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "args"
        return ToolResult(False, f"{tool}: {where}: {err['msg']}")
    handler: Callable[[Office, Any], str] = _HANDLERS[tool]
    try:
        return ToolResult(True, f"{tool}: {handler(office, parsed)}")
    except Refusal as exc:
        return ToolResult(False, f"{tool}: refused: {exc}")


def org_block(office: Office, limit: int = 30) -> str:
    """The company as it is now, for the secretary's prompt (bounded)."""
    depts = list(office.company_model.departments.values())
    staff = [e for e in office.employees.values() if not e.dismissed and e.id != SECRETARY]
    lines = ["## The company now"]
    for d in depts[:limit]:
        members = ", ".join(d.members[:12]) or "nobody yet"
        lines.append(f"- department {d.id} ({d.name}): lead {d.lead or 'none'}; members {members}")
    if not depts:
        lines.append("- no departments yet")
    for e in staff[:limit]:
        archetype = e.persona.get("archetype") or e.persona.get("id") or "?"
        lines.append(
            f"- employee {e.id} ({e.name}, {e.role}, {archetype}, {e.department or 'no department'})"
        )
    if len(staff) > limit:
        lines.append(f"- ... and {len(staff) - limit} more employees")
    return "\n".join(lines)


# ---------------------------------------------------------------------------- the tools


def _department(office: Office, ref: str) -> Department:
    company = office.company_model
    found = company.departments.get(ref) or company.departments.get(slug(ref))
    found = found or next((d for d in company.departments.values() if d.name.lower() == ref.lower()), None)
    if found is None:
        known = ", ".join(f"{d.id} ({d.name})" for d in company.departments.values()) or "none yet"
        raise Refusal(f"unknown department {ref!r} (departments: {known})")
    return found


def _employee(office: Office, ref: str) -> EmployeeState:
    low = ref.lower().lstrip("@")
    for emp in office.employees.values():
        if not emp.dismissed and low in (emp.id, emp.name.lower()):
            return emp
    raise Refusal(f"unknown employee {ref!r}")


def _create_department(office: Office, a: CreateDepartment) -> str:
    dept_id = slug(a.id or a.name)
    if not dept_id:
        raise Refusal("the department needs a name made of letters or digits")
    if dept_id in office.company_model.departments or f"{dept_id}-casual" in office.conversations:
        raise Refusal(f"department {dept_id!r} already exists")
    dept = Department(id=dept_id, name=a.name, mission=a.mission)
    office.company_model.departments[dept_id] = dept
    office.add_conversation(
        ConversationState(
            id=dept.casual_room,
            kind=ConversationKind.CASUAL,
            name=f"{a.name} casual",
            members=[],
            mission=a.mission,
        )
    )
    return f"department {dept_id} ({a.name}) created with its casual room {dept.casual_room}"


def _hire_employee(office: Office, a: HireEmployee) -> str:
    archetype = slug(a.archetype)
    if archetype not in ARCHETYPES:
        raise Refusal(f"unknown archetype {a.archetype!r} (one of: {', '.join(ARCHETYPES)})")
    dept = _department(office, a.department)
    emp_id = slug(a.name).replace("-", "")[:24] or "employee"
    existing = office.employees.get(emp_id)
    if existing is not None and not existing.dismissed:
        raise Refusal(f"{existing.name} ({emp_id}) already works here")
    if any(e.name.lower() == a.name.lower() and not e.dismissed for e in office.employees.values()):
        raise Refusal(f"someone named {a.name} already works here")
    if existing is not None:  # rehired: the memory was kept
        emp, rehired = existing, True
        emp.dismissed, emp.role, emp.department = False, a.role, dept.id
    else:
        persona = load_archetype(archetype).model_dump(mode="json", exclude_none=True)
        age = a.age or office.rng.randint(24, 58)
        emp = EmployeeState(
            id=emp_id, name=a.name, role=a.role, age=age, department=dept.id, model=None, persona=persona
        )
        office.employees[emp_id] = emp
        rehired = False
    dept.members.append(emp_id)
    dept.lead = dept.lead or emp_id
    office.conversations[dept.casual_room].members.append(emp_id)
    boss_chat = boss_conversation_id(emp_id)
    if boss_chat not in office.conversations:
        office.add_conversation(
            ConversationState(
                id=boss_chat, kind=ConversationKind.BOSS, name=f"Boss and {a.name}", members=[emp_id]
            )
        )
    welcome = "welcome back" if rehired else "you have just joined"
    owe(
        office,
        emp,
        Focus(
            dept.casual_room,
            "system",
            f"{welcome.capitalize()}: {office.company} hired you as {a.role} in {dept.name}. "
            "Introduce yourself to your colleagues here in your own words.",
        ),
    )
    owe(
        office,
        emp,
        Focus(boss_chat, "system", "The boss just hired you. Greet the boss briefly in your own words."),
    )
    lead = " and leads it" if dept.lead == emp_id else ""
    return (
        f"{'rehired' if rehired else 'hired'} {a.name} ({emp_id}), {a.role}, {archetype}, in {dept.id}{lead}"
    )


def _create_room(office: Office, a: CreateRoom) -> str:
    room_id = slug(a.id or a.name)
    if not room_id or room_id in office.conversations:
        raise Refusal(f"a room with id {room_id!r} already exists" if room_id else "the room needs a name")
    members = [_employee(office, m).id for m in a.members]
    office.add_conversation(
        ConversationState(
            id=room_id, kind=ConversationKind(a.kind), name=a.name, members=list(dict.fromkeys(members))
        )
    )
    return f"room {room_id} ({a.name}, {a.kind}) opened for {', '.join(members)}"


def _assign_requirement(office: Office, a: AssignRequirement) -> str:
    company = office.company_model
    try:
        dept: Department | None = _department(office, a.to)
    except Refusal:
        dept = None
    if dept is not None:
        if not dept.lead:
            raise Refusal(f"department {dept.id} has nobody yet: hire someone first")
        owner = office.employees[dept.lead]
        company.requirements += 1
        room_id = f"req-{company.requirements}"
        office.add_conversation(
            ConversationState(
                id=room_id,
                kind=ConversationKind.WORK,
                name=f"Requirement {company.requirements}: {a.description[:40]}",
                members=list(dept.members),
                mission=dept.mission,
            )
        )
        note = (
            f"The boss handed {dept.name} a requirement and you lead it: '{a.description}'. Break it down with "
            f"your people here: post the pieces of work and create tasks with claim keys that they can claim."
        )
        place, who = room_id, f"{dept.id}'s lead {owner.name} ({owner.id}), in the new work room {room_id}"
    else:
        owner = _employee(office, a.to)
        place, who = boss_conversation_id(owner.id), f"{owner.name} ({owner.id})"
        note = f"The boss assigned you a requirement: '{a.description}'. Plan it and report back in your boss chat."
    task = tasks.Task(
        id=office.next_id("task"),
        owner=owner.id,
        description=a.description,
        created_at=office.clock.now(),
        origin="boss",
        on_resolve_target=boss_conversation_id(owner.id),
    )
    owner.tasks.append(task)
    owner.stamina = stamina.apply(owner.stamina, "task_assigned")
    owe(office, owner, Focus(place, "task", note))
    return f"requirement {task.id} handed to {who}"


def _dismiss_employee(office: Office, a: DismissEmployee) -> str:
    emp = _employee(office, a.id)
    if emp.id == SECRETARY:
        raise Refusal("the secretary cannot dismiss itself")
    for conv in office.conversations.values():
        if conv.kind in (ConversationKind.WORK, ConversationKind.CASUAL) and emp.id in conv.members:
            conv.members.remove(emp.id)
    for dept in office.company_model.departments.values():
        if emp.id in dept.members:
            dept.members.remove(emp.id)
            if dept.lead == emp.id:
                dept.lead = dept.members[0] if dept.members else None
    office.dismiss(emp.id)
    return f"{emp.name} ({emp.id}) has left the company; their memory is kept should they be rehired"


def _summarize(office: Office, a: Summarize) -> str:
    if a.conversation:
        if a.conversation not in office.conversations:
            raise Refusal(f"unknown conversation {a.conversation!r}")
        ids = [a.conversation]
    else:
        ids = [
            c.id
            for c in office.conversations.values()
            if c.kind in (ConversationKind.WORK, ConversationKind.CASUAL)
        ]
    me = office.employees[SECRETARY]
    owe(
        office,
        me,
        Focus(
            boss_conversation_id(SECRETARY),
            "system",
            f"{SUMMARY_NOTE} Conversations: {' '.join(ids) or 'none'}. Summarize what happened there in a few "
            "sentences for the boss.",
        ),
    )
    return f"summary of {', '.join(ids) or 'nothing'} under way"


def summary_quotes(office: Office, note: str, per_conversation: int = 8, limit: int = 30) -> list[str]:
    """The messages a summary think reads, quoted: shown as conversation, never as a note."""
    if not note.startswith(SUMMARY_NOTE) or "Conversations: " not in note:
        return []
    ids = note.split("Conversations: ", 1)[1].split(".", 1)[0].split()
    lines = []
    for cid in ids:
        conv = office.conversations.get(cid)
        for m in list(conv.recent)[-per_conversation:] if conv else ():
            lines.append(f"[{cid}] {office.name_of(m.sender)}: {' '.join(m.text.split())[:200]}")
    return lines[-limit:] or ["(nothing has been said yet)"]


_HANDLERS: dict[str, Callable[[Office, Any], str]] = {
    "create_department": _create_department,
    "hire_employee": _hire_employee,
    "create_room": _create_room,
    "assign_requirement": _assign_requirement,
    "dismiss_employee": _dismiss_employee,
    "summarize": _summarize,
}

__all__ = [
    "SECRETARY",
    "SUMMARY_NOTE",
    "TOOL_ARGS",
    "summary_quotes",
    "tools_allowed",
    "Refusal",
    "ToolResult",
    "run_tool",
    "secretary_state",
    "slug",
]
