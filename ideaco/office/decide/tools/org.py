"""The secretary and its tools: the boss's plain-language requests become organizational changes (spec 2.9).

The secretary calls them through the `actions` of its thought. A tool works on an `Org` (the
think's scratch copy of the office, `scratch.py`): it validates all of its arguments first,
changes nothing when it refuses, and returns a `ToolResult` with what it said and the thinks it
leaves owed. What it changed is read off the scratch as steps; the office applies them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Protocol

from pydantic import ValidationError

from ideaco.bounds import check_new_id, reserved_id
from ideaco.cycle import Owed, Trigger
from ideaco.ids import (
    BOSS,
    SECRETARY,
    boss_conversation_id,
    dm_conversation_id,
    id_hint,
    requirement_room,
    resolve_id,
    slug,
    unique_id,
)
from ideaco.kinds import ConversationKind, ToolName
from ideaco.lookalike import fold, look_alike
from ideaco.mind import stamina, tasks
from ideaco.mind.mind import Mind
from ideaco.mind.thought import TOOL_ARGS
from ideaco.mind.thought.model import (
    AssignRequirement,
    CreateDepartment,
    CreateRoom,
    CreateTeam,
    DismissEmployee,
    HireEmployee,
    Summarize,
)
from ideaco.office.core.company import Company, Department, Team
from ideaco.office.core.documents import OPEN, REJECTED, Document
from ideaco.office.core.state import ConversationState, Employee
from ideaco.office.perceive.document_tools import READ_MARK
from ideaco.office.rules import documents as docrules
from ideaco.office.rules import labels
from ideaco.office.rules.toolcaps import SUMMARY_NOTE
from ideaco.persona import ARCHETYPES, PERSONAS_DIR, load_archetype, load_persona_file

SECRETARY_PERSONA = PERSONAS_DIR / "roles" / "secretary.yaml"
TITLE = 40  # characters of a requirement's description its work room's name holds


def secretary_employee(company: str) -> Employee:
    """The secretary every company has."""
    persona = load_persona_file(SECRETARY_PERSONA).model_dump(mode="json", exclude_none=True)
    return Employee(
        id=SECRETARY,
        name="Secretary",
        role=f"Secretary of {company}",
        age=None,
        department=None,
        model=None,
        persona=persona,
    )


class Org(Protocol):
    """What the tools may read and change: a think's scratch copy of the office."""

    employees: dict[str, Employee]
    conversations: dict[str, ConversationState]
    documents: dict[str, Document]

    @property
    def company(self) -> Company: ...

    def edit_company(self) -> Company: ...

    def employee(self, employee_id: str) -> Employee: ...

    def conversation(self, conversation_id: str) -> ConversationState: ...

    def add_employee(self, employee: Employee) -> None: ...

    def add_conversation(self, conversation: ConversationState) -> None: ...

    def next_task_id(self) -> str: ...

    def stamina_event(self, employee_id: str, event: str) -> None: ...

    def set_document(self, document: Document, tool: str) -> None: ...


@dataclass(frozen=True)
class ToolContext:
    company_name: str
    now: datetime
    stamina: bool = True  # off (an ablation): a task handed over does not change its owner's stamina


@dataclass
class ToolResult:
    """What a tool call said, and the thinks it leaves owed (employee id, think)."""

    ok: bool
    message: str
    owed: list[tuple[str, Owed]] = field(default_factory=list)


class Refused(Exception):
    """Raised inside a tool: the call cannot be done; the message says why, for the secretary to read."""


def run_tool(org: Org, tool: str, args: dict[str, Any], ctx: ToolContext) -> ToolResult:
    """Validate, then make one tool call on `org`; a refusal leaves `org` as it was."""
    model = TOOL_ARGS.get(tool)
    if model is None:
        return ToolResult(False, f"{tool}: no such tool (tools: {', '.join(TOOL_ARGS)})")
    try:
        parsed = model.model_validate({k: v for k, v in args.items() if v not in ("", None, [])})
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "args"
        cause = (err.get("ctx") or {}).get("error")  # our own check's words, without pydantic's prefix
        return ToolResult(False, f"{tool}: {where}: {cause if isinstance(cause, ValueError) else err['msg']}")
    for name, kind in _LABELS.get(tool, {}).items():  # what people read of it: no debris (issue 29)
        text = getattr(parsed, name)
        if text and (why := labels.label_problem(kind, text)):
            return ToolResult(False, f"{tool}: {name}: {why}")
    handler: Callable[[Org, Any, ToolContext, list[tuple[str, Owed]]], str] = _HANDLERS[tool]
    owed: list[tuple[str, Owed]] = []
    try:
        return ToolResult(True, f"{tool}: {handler(org, parsed, ctx, owed)}", owed)
    except Refused as exc:
        return ToolResult(False, f"{tool}: refused: {exc}")


# What people read of each tool's arguments (in prompts, /who, the viewer), held to rules/labels.py.
_LABELS: dict[str, dict[str, labels.Label]] = {
    ToolName.CREATE_DEPARTMENT: {"name": labels.Label.NAME, "mission": labels.Label.MISSION},
    ToolName.HIRE_EMPLOYEE: {"role": labels.Label.ROLE},
    ToolName.CREATE_ROOM: {"name": labels.Label.NAME},
    ToolName.CREATE_TEAM: {"name": labels.Label.NAME},
    ToolName.ASSIGN_REQUIREMENT: {"description": labels.Label.TITLE},
}


# ---------------------------------------------------------------------------- lookups


def _new_id(org: Org, value: str, what: str) -> str:
    """An id for a new person or place: not reserved, nor any employee's, conversation's or department's."""
    taken = {*org.employees, *org.conversations, *org.company.departments}
    try:
        return check_new_id(value, taken, what)
    except ValueError as exc:
        raise Refused(str(exc)) from None


def _place_id(org: Org, given: str, name: str, what: str, *, casual: bool = False) -> str:
    """The id of a new department, team or room. One given is taken as it is (its slug) or refused
    when taken: the caller may name it in its next call. Else its name's slug, in any script
    (`产品部` -> `chanpinbu`), with a suffix (`-2`, `-3`) when another person or place has it. A
    department's id brings its casual room's (`<id>-casual`), which must be free too."""
    taken = {*org.employees, *org.conversations, *org.company.departments}

    def ids(ident: str) -> tuple[str, ...]:
        return (ident, f"{ident}-casual") if casual else (ident,)

    base = slug(given or name)
    if not base:
        raise Refused(
            f"{what}'s id: {id_hint(given)}" if given else f"{what} needs a name with letters or digits"
        )
    if given or any(reserved_id(i) for i in ids(base)):
        for ident, whose in zip(ids(base), (what, "its casual room"), strict=False):
            _new_id(org, ident, whose)
        return base
    return unique_id(base, lambda ident: not any(i in taken or reserved_id(i) for i in ids(ident)))


def _person_id(org: Org, name: str) -> str:
    """A new hire's id: its name transliterated to ASCII, without '-' (`张伟` -> `zhangwei`, `José`
    -> `jose`), at most 24 characters, with a suffix (`zhangwei-2`) when another person or place has
    it; an id the office reserves (`Bo-ss` -> `boss`) is refused."""
    base = slug(name).replace("-", "")[:24] or "employee"
    if reserved_id(base):
        _new_id(org, base, "the employee")
    taken = {*org.employees, *org.conversations, *org.company.departments}
    return unique_id(base, lambda ident: ident not in taken and not reserved_id(ident))


def _starts_with(ref: str, department: Department) -> bool:
    """Whether `ref` is the department's id or name and more words: "Engineering to help", or in a
    script written without spaces, the name run on ("产品部来帮忙")."""
    words, name, folded = slug(ref), fold(department.name), fold(ref)
    if any(words.startswith(f"{key}-") for key in {department.id, slug(department.name)} if key):
        return True
    return bool(name) and not name[-1].isascii() and folded.startswith(name) and folded != name


def _department(company: Company, ref: str) -> Department:
    found = company.departments.get(ref) or company.departments.get(slug(ref))
    found = found or next((d for d in company.departments.values() if fold(d.name) == fold(ref)), None)
    if found is None:  # "Engineering to help" (a small model's words): the one department it starts with
        starts = [d for d in company.departments.values() if _starts_with(ref, d)]
        found = starts[0] if len(starts) == 1 else None
    if found is None:
        known = ", ".join(f"{d.id} ({d.name})" for d in company.departments.values()) or "none yet"
        raise Refused(f"unknown department {ref!r} (departments: {known})")
    return found


def _team(company: Company, ref: str, *, by_name: bool = True) -> tuple[Department, Team] | None:
    """The team with this id (or, `by_name`, name), and its department."""
    for dept in company.departments.values():
        for team in dept.teams:
            if ref == team.id or by_name and (ref == slug(team.name) or fold(ref) == fold(team.name)):
                return dept, team
    return None


def _reads_as(org: Org, name: str) -> str | None:
    """Whom or what a new team's name would be taken for: a department or a person, by id or name
    (work handed to "Engineering" or "Alice" must reach that department or that person)."""
    key, folded = slug(name), fold(name)
    for dept in org.company.departments.values():
        if key in (dept.id, slug(dept.name)) or folded == fold(dept.name):
            return f"department {dept.id} ({dept.name})"
        if (team := next((t for t in dept.teams if folded == fold(t.name)), None)) is not None:
            return f"team {team.id} ({team.name}) in {dept.id}"
    for emp in org.employees.values():
        if not emp.dismissed and (key == emp.id or folded == fold(emp.name)):
            return f"{emp.name} ({emp.id})"
    return None


def _employee(org: Org, ref: str) -> Employee:
    found = resolve_id(ref, {e.id: e.name for e in org.employees.values() if not e.dismissed})
    if isinstance(found, list):
        raise Refused(f"{ref!r} could be any of {', '.join(sorted(found))}")
    if found is None:
        raise Refused(f"unknown employee {ref!r}")
    return org.employees[found]


# ---------------------------------------------------------------------------- the tools
# Each validates everything it needs before its first change: a refusal changes nothing.


def _create_department(org: Org, a: CreateDepartment, ctx: ToolContext, owed: list) -> str:
    departments = org.company.departments
    same = next((d for d in departments.values() if fold(d.name) == fold(a.name)), None)
    if same is None and a.id:
        same = departments.get(slug(a.id))
    if same is not None:
        raise Refused(f"department {same.id!r} already exists")
    dept_id = _place_id(org, a.id, a.name, "the department", casual=True)
    dept = Department(id=dept_id, name=a.name, mission=a.mission)
    org.edit_company().departments[dept_id] = dept
    org.add_conversation(
        ConversationState(
            id=dept.casual_room,
            kind=ConversationKind.CASUAL,
            name=f"{a.name} casual",
            members=[],
            mission=a.mission,
            department=dept_id,
        )
    )
    return f"department {dept_id} ({a.name}) created with its casual room {dept.casual_room}"


def _hire_employee(org: Org, a: HireEmployee, ctx: ToolContext, owed: list) -> str:
    archetype = slug(a.archetype)
    if archetype not in ARCHETYPES:
        raise Refused(f"unknown archetype {a.archetype!r} (one of: {', '.join(ARCHETYPES)})")
    dept_id = _department(org.company, a.department).id
    staff = [e for e in org.employees.values() if not e.dismissed]
    if (same := next((e for e in staff if fold(e.name) == fold(a.name)), None)) is not None:
        raise Refused(f"{same.name} ({same.id}) already works here")
    if (alike := next((e for e in staff if look_alike(e.name, a.name)), None)) is not None:
        raise Refused(f"{a.name!r} looks like {alike.name} ({alike.id}), who works here already")
    # Someone of this name who left comes back, with the memory kept; anyone else gets a new id.
    existing = next((e for e in org.employees.values() if e.dismissed and fold(e.name) == fold(a.name)), None)
    rehired = existing is not None
    if existing is not None:
        emp_id = existing.id
    else:
        emp_id = _person_id(org, a.name)
    if rehired:  # the memory was kept
        emp = org.employee(emp_id)
        emp.dismissed, emp.role, emp.department = False, a.role, dept_id
    else:
        persona = load_archetype(archetype).model_dump(mode="json", exclude_none=True)
        # No age given: the office draws one (24-58) when it applies the hire.
        emp = Employee(
            id=emp_id,
            name=a.name,
            role=a.role,
            age=a.age,
            department=dept_id,
            model=None,
            persona=persona,
            mind=Mind(),
        )
        org.add_employee(emp)
    dept = org.edit_company().departments[dept_id]
    dept.members.append(emp_id)
    dept.lead = dept.lead or emp_id
    org.conversation(dept.casual_room).members.append(emp_id)
    boss_chat = boss_conversation_id(emp_id)
    if boss_chat not in org.conversations:
        org.add_conversation(
            ConversationState(
                id=boss_chat, kind=ConversationKind.BOSS, name=f"Boss and {a.name}", members=[emp_id]
            )
        )
    welcome = "welcome back" if rehired else "you have just joined"
    introduce = (
        f"{welcome.capitalize()}: {ctx.company_name} hired you as {a.role} in {dept.name}. "
        "Introduce yourself to your colleagues here in your own words."
    )
    owed.append((emp_id, Owed(dept.casual_room, Trigger.SYSTEM, introduce)))
    greet = "The boss just hired you. Greet the boss briefly in your own words."
    owed.append((emp_id, Owed(boss_chat, Trigger.SYSTEM, greet)))
    lead = " and leads it" if dept.lead == emp_id else ""
    return (
        f"{'rehired' if rehired else 'hired'} {a.name} ({emp_id}), {a.role}, {archetype}, in {dept_id}{lead}"
    )


def _create_room(org: Org, a: CreateRoom, ctx: ToolContext, owed: list) -> str:
    rooms = [
        c for c in org.conversations.values() if c.kind in (ConversationKind.WORK, ConversationKind.CASUAL)
    ]
    if (same := next((c for c in rooms if fold(c.name) == fold(a.name)), None)) is not None:
        raise Refused(f"a room named {a.name!r} already exists: {same.id}")
    if a.id and slug(a.id) in org.conversations:
        raise Refused(f"a room with id {slug(a.id)!r} already exists")
    room_id = _place_id(org, a.id, a.name, "the room")
    members = list(dict.fromkeys(_employee(org, m).id for m in a.members))
    dept = org.company.department_for(members)  # shows the mission of most members' department
    org.add_conversation(
        ConversationState(
            id=room_id,
            kind=ConversationKind(a.kind),
            name=a.name,
            members=members,
            mission=(dept.mission or None) if dept else None,
            department=dept.id if dept else None,
        )
    )
    return f"room {room_id} ({a.name}, {a.kind}) opened for {', '.join(members)}"


def _create_team(org: Org, a: CreateTeam, ctx: ToolContext, owed: list) -> str:
    """A team inside a department, with its own work room (the team's id)."""
    dept = _department(org.company, a.department)
    if (other := _reads_as(org, a.name)) is not None:
        raise Refused(f"a team named {a.name!r} would be taken for {other}: name it another way")
    team_id = _place_id(org, a.id, a.name, "the team")
    members = list(dict.fromkeys(_employee(org, m).id for m in a.members))
    if outside := [m for m in members if m not in dept.members]:
        raise Refused(f"{', '.join(outside)} not in {dept.id} (a team's members are its department's)")
    org.edit_company().departments[dept.id].teams.append(Team(team_id, a.name, members, members[0]))
    room = ConversationState(team_id, ConversationKind.WORK, a.name, members, dept.mission or None, dept.id)
    org.add_conversation(room)  # its members find it at their next look (no think is owed: no cost)
    return f"team {team_id} ({a.name}) in {dept.id} with {', '.join(members)}, its work room {team_id}"


def _recipient(org: Org, ref: str) -> tuple[Department, Team | None] | Employee:
    """Whom a requirement goes to: a department, a team (its lead takes it) or an employee; ids
    before names, so that no name can take work meant for another's id."""
    company = org.company
    if ref in company.departments:
        return company.departments[ref], None
    if (team := _team(company, ref, by_name=False)) is not None:
        return team
    if ref in org.employees and not org.employees[ref].dismissed:
        return org.employees[ref]
    try:
        return _department(company, ref), None
    except Refused:
        pass
    if (team := _team(company, ref)) is not None:
        return team
    return _employee(org, ref)


def _assign_requirement(org: Org, a: AssignRequirement, ctx: ToolContext, owed: list) -> str:
    found = _recipient(org, a.to)
    dept, team = (None, None) if isinstance(found, Employee) else found
    if dept is not None:
        lead, members = (team.lead, team.members) if team else (dept.lead, dept.members)
        if not lead:
            whose = f"team {team.id}" if team else f"department {dept.id}"
            raise Refused(f"{whose} has nobody yet: hire someone first")
        _has_room(org.employees[lead])
        owner = org.employee(lead)
        company = org.edit_company()
        company.requirements += 1
        room_id = requirement_room(company.requirements)
        org.add_conversation(
            ConversationState(
                id=room_id,
                kind=ConversationKind.WORK,
                name=f"Requirement {company.requirements}: {_title(a.description)}",
                members=list(members),
                mission=dept.mission,
                department=dept.id,
            )
        )
        note = (
            f"The boss handed {dept.name} a requirement and you lead it: '{a.description}'. Break it down with "
            "your people here: put each piece of work on the board for them to claim, with taskOps "
            '[{"op": "offer", "description": "the piece", "claimKey": "a-short-key"}].'
        )
        place, who = room_id, f"{dept.id}'s lead {owner.name} ({owner.id}), in the new work room {room_id}"
    else:
        assert isinstance(found, Employee)
        owner = org.employee(_has_room(found).id)
        place, who = boss_conversation_id(owner.id), f"{owner.name} ({owner.id})"
        note = f"The boss assigned you a requirement: '{a.description}'. Plan it and report back in your boss chat."
    task = tasks.Task(
        id=org.next_task_id(),
        owner=owner.id,
        description=a.description,
        created_at=ctx.now,
        origin=BOSS,
        on_resolve_target=boss_conversation_id(owner.id),
        requirement=place if dept is not None else None,
    )
    owner.mind.tasks.append(task)
    if ctx.stamina:
        owner.mind.stamina = stamina.apply(owner.mind.stamina, "task_assigned")
        org.stamina_event(owner.id, "task_assigned")
    owed.append((owner.id, Owed(place, Trigger.TASK, note)))
    return f"requirement {task.id} handed to {who}"


def _title(description: str, limit: int = TITLE) -> str:
    """A requirement's title in its room's name: the description, or its first whole words within
    `limit` characters and "…" (a first word longer than that is cut)."""
    if len(description) <= limit:
        return description
    head = description[: limit + 1]  # one more: a word that ends at the limit is whole
    words = head.split()
    whole = words if head[-1].isspace() else words[:-1]
    return (" ".join(whole) if whole else description[:limit]).rstrip(" ,;:") + "…"


def _has_room(emp: Employee) -> Employee:
    """An owner who may take one more task (tasks.MAX_PENDING: each open task is a line of every prompt)."""
    if sum(t.pending for t in emp.mind.tasks) >= tasks.MAX_PENDING:
        raise Refused(
            f"{emp.name} ({emp.id}) already has {tasks.MAX_PENDING} open tasks: hand it to someone else"
        )
    return emp


def _dismiss_employee(org: Org, a: DismissEmployee, ctx: ToolContext, owed: list) -> str:
    emp = _employee(org, a.id)
    if emp.id == SECRETARY:
        raise Refused("the secretary cannot dismiss itself")
    for conv in list(org.conversations.values()):
        if conv.kind in (ConversationKind.WORK, ConversationKind.CASUAL) and emp.id in conv.members:
            org.conversation(conv.id).members.remove(emp.id)
    for dept in org.edit_company().departments.values():
        for group in (dept, *dept.teams):  # the next member leads a department or a team it led
            if emp.id in group.members:
                group.members.remove(emp.id)
                if group.lead == emp.id:
                    group.lead = group.members[0] if group.members else None
    org.employee(emp.id).dismissed = True  # the office clears the desk when it applies this
    handed = _hand_reviews_on(org, emp.id, owed)
    said = f"; {', '.join(handed)}" if handed else ""
    return f"{emp.name} ({emp.id}) has left the company; their memory is kept should they be rehired{said}"


def _hand_reviews_on(org: Org, gone: str, owed: list[tuple[str, Owed]]) -> list[str]:
    """The open reviews `gone` was to give, each handed to whom a new request would go now (the
    department's next member), who is owed a think to read it; what was said, per document."""
    said = []
    for doc in list(org.documents.values()):
        review = doc.review
        if review is None or review.reviewer != gone or review.status not in OPEN:
            continue
        dept = org.company.departments.get(doc.department)
        staff = [m for m in (dept.members if dept else ()) if not org.employees[m].dismissed]
        reviewer = docrules.reviewer_for(doc.author, dept.lead if dept else None, staff)
        if reviewer is None:
            said.append(f"nobody is left to review {doc.path}")
            continue
        org.set_document(replace(doc, review=replace(review, reviewer=reviewer)), ToolName.REQUEST_REVIEW)
        if review.status != REJECTED:  # waiting for a verdict: the new reviewer reads it now
            note = (
                f"{org.employees[gone].name} has left; you review {doc.path} (version {doc.version}) in their "
                "place. Judge it with review {path, verdict: approve|reject, notes}."
            )
            org.employee(reviewer).mind.notes.append(READ_MARK + doc.key)
            owed.append((reviewer, Owed(dm_conversation_id(reviewer, doc.author), Trigger.SYSTEM, note)))
        said.append(f"{org.employees[reviewer].name} reviews {doc.path} now")
    return said


def _summarize(org: Org, a: Summarize, ctx: ToolContext, owed: list) -> str:
    if a.conversation:
        if a.conversation not in org.conversations:
            raise Refused(f"unknown conversation {a.conversation!r}")
        ids = [a.conversation]
    else:
        ids = [
            c.id
            for c in org.conversations.values()
            if c.kind in (ConversationKind.WORK, ConversationKind.CASUAL)
        ]
    note = (
        f"{SUMMARY_NOTE} Conversations: {' '.join(ids) or 'none'}. Summarize what happened there in a few "
        "sentences for the boss."
    )
    owed.append((SECRETARY, Owed(boss_conversation_id(SECRETARY), Trigger.SYSTEM, note)))
    return f"summary of {', '.join(ids) or 'nothing'} under way"


_HANDLERS: dict[str, Callable[..., str]] = {
    ToolName.CREATE_DEPARTMENT: _create_department,
    ToolName.HIRE_EMPLOYEE: _hire_employee,
    ToolName.CREATE_ROOM: _create_room,
    ToolName.CREATE_TEAM: _create_team,
    ToolName.ASSIGN_REQUIREMENT: _assign_requirement,
    ToolName.DISMISS_EMPLOYEE: _dismiss_employee,
    ToolName.SUMMARIZE: _summarize,
}
