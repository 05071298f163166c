"""What a step read back from a log must be to land again: the id and name rules of a live one.

A resume applies the records logged after the last save (`engine/build.py::catch_up`). Those
lines are files anyone can edit, and their steps are applied as they say, not decided again: a
forged `employee` step could hire someone with id `boss`, whose "@Alice stop" the office would
then obey. So each step is held to the rules its live twin passed (ids and names by
`ideaco.bounds` and `lookalike`, workspace paths by `rules/documents.py`), against the office as
the steps before it leave it; `forged` says why one could not have been made, or None.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ideaco.bounds import PLACE_ID, check_name, check_new_id, check_person_name, check_place_id
from ideaco.ids import ID_HOLDS, REQUIREMENT_ROOM, boss_chat_owner, dm_members
from ideaco.kinds import ConversationKind
from ideaco.lookalike import look_alike
from ideaco.office.core.company import Company
from ideaco.office.core.documents import check_path
from ideaco.office.core.refusal import Refusal
from ideaco.office.core.state import CONVERSATION_FIELDS, IDENTITY, OfficeState
from ideaco.office.core.steps import (
    CompanyStep,
    ConversationStep,
    DocumentStep,
    EmployeeStep,
    GateHoldStep,
    MindStep,
    OweAgainStep,
    OweStep,
    Step,
)

# The ids the office gives a person: a scenario's (`scenario.EMPLOYEE_ID`) or a hire's (its name in
# any script transliterated to ASCII, `ids.slug`, with a suffix when taken: `zhangwei-2`). ASCII
# always: an id is typed in commands and read in conversation ids and paths (`ids.ID_HOLDS`).
EMPLOYEE_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,79}$")
PERSON_ID_HOLDS = "lowercase ASCII letters, digits, '-' and '_'"


class _Office:
    """Who and what there is as the steps land: ids, names, who has left."""

    def __init__(self, state: OfficeState) -> None:
        self.people = {e.id: e.name for e in state.employees.values()}
        self.gone = {e.id for e in state.employees.values() if e.dismissed}
        self.conversations = set(state.conversations)
        self.departments = set(state.company.departments)

    def taken(self) -> set[str]:
        return {*self.people, *self.conversations, *self.departments}

    def name_problem(self, name: Any, who: str) -> str | None:
        """A person's name as the gate and a hire check it: its own rules, and none looks like another's."""
        if not isinstance(name, str):
            return "an employee with no name"
        try:
            check_person_name(name)
        except ValueError as exc:
            return str(exc)
        other = next(
            (i for i, n in self.people.items() if i != who and i not in self.gone and look_alike(n, name)),
            None,
        )
        return f"{name!r} is the name of {other!r} already" if other is not None else None

    def members_problem(self, members: Iterable[Any]) -> str | None:
        stranger = next((m for m in members if m not in self.people), None)
        return f"{stranger!r} is no employee" if stranger is not None else None


def forged(state: OfficeState, steps: Sequence[Step]) -> str | None:
    """Why these logged steps are no change the office could have made from `state` (which they
    leave untouched); None when each passes its live rules in turn."""
    office = _Office(state)
    for i, step in enumerate(steps):
        why = _problem(office, step)
        if why is not None:
            return f"steps[{i}] ({step.to_record().get('step')}): {why}"
        _land(office, step)
    return None


def _problem(office: _Office, step: Step) -> str | None:
    if isinstance(step, EmployeeStep):
        return _employee(office, step)
    if isinstance(step, ConversationStep):
        return _conversation(office, step)
    if isinstance(step, CompanyStep):
        return _company(office, step.company)
    if isinstance(step, (MindStep, OweStep, OweAgainStep, GateHoldStep)):
        return None if step.employee in office.people else f"{step.employee!r} is no employee"
    if isinstance(step, DocumentStep):
        path = check_path(step.path)
        if isinstance(path, Refusal) or path != step.path:
            return f"document path {step.path!r}: {path.reason if isinstance(path, Refusal) else 'not as stored'}"
        if step.department not in office.departments:
            return f"{step.department!r} is no department"
        return None if step.author in office.people else f"{step.author!r} is no employee"
    return None


def _employee(office: _Office, step: EmployeeStep) -> str | None:
    if step.joined is not None:
        joined = step.joined
        if joined.get("id") != step.id:
            return f"the employee joining is {joined.get('id')!r}, not {step.id!r}"
        if not EMPLOYEE_ID.match(step.id):
            return f"{step.id!r} is not an id the office gives a person ({PERSON_ID_HOLDS})"
        try:
            check_new_id(step.id, office.taken(), "the employee")
        except ValueError as exc:
            return str(exc)
        return office.name_problem(joined.get("name"), step.id) or _label(joined.get("role"), "role")
    if step.id not in office.people:
        return f"{step.id!r} is no employee"
    return _employee_fields(office, step.id, step.fields)


def _employee_fields(office: _Office, who: str, fields: Mapping[str, Any]) -> str | None:
    for name, value in fields.items():
        if name not in IDENTITY:
            return f"{name!r} is no field of an employee"
        if name == "name" and (why := office.name_problem(value, who)):
            return why
        if name == "role" and (why := _label(value, "role")):
            return why
        if name == "department" and value is not None and value not in office.departments:
            return f"{value!r} is no department"
        if name == "dismissed" and not isinstance(value, bool):
            return "dismissed is true or false"
    return None


def _label(value: Any, what: str) -> str | None:
    if not isinstance(value, str):
        return f"a {what} that is no text"
    try:
        check_name(value)
    except ValueError as exc:
        return f"{what} {exc}"
    return None


def _conversation(office: _Office, step: ConversationStep) -> str | None:
    if step.opened is not None:
        opened = step.opened
        if opened.get("id") != step.id:
            return f"the conversation opened is {opened.get('id')!r}, not {step.id!r}"
        kind = opened.get("kind")
        members = opened.get("members")
        if not isinstance(members, list):
            return "a conversation with no member list"
        why = _conversation_id(office, step.id, kind, members) or office.members_problem(members)
        if why is not None:
            return why
        name = _label(opened.get("name"), "name")
        if name is not None:
            return name
    elif step.id not in office.conversations:
        return f"{step.id!r} is no conversation"
    unknown = next((k for k in step.fields if k not in CONVERSATION_FIELDS), None)
    if unknown is not None:
        return f"{unknown!r} is no field of a conversation"
    if "members" in step.fields:
        return office.members_problem(step.fields["members"] or ())
    return _label(step.fields["name"], "name") if "name" in step.fields else None


def _conversation_id(office: _Office, ident: str, kind: Any, members: list[Any]) -> str | None:
    """A new conversation's id as the office makes them: a boss chat, a DM, or a room's own id."""
    owner, pair = boss_chat_owner(ident), dm_members(ident)
    if owner is not None:
        good = kind == ConversationKind.BOSS.value and members == [owner] and owner in office.people
        taken = ident in office.conversations
        return None if good and not taken else f"{ident!r} is no new boss chat of an employee"
    if pair is not None:  # a DM the catch-up may have opened already from a message of it
        good = kind == ConversationKind.DM.value and len(pair) == 2 and sorted(members) == sorted(pair)
        return None if good else f"{ident!r} is no DM of its two employees"
    if kind not in (ConversationKind.WORK.value, ConversationKind.CASUAL.value):
        return f"a room of kind {kind!r}"
    if ident in office.taken():
        return f"the room id {ident!r} is already taken"
    if REQUIREMENT_ROOM.fullmatch(ident):  # the engine's own work rooms
        return None
    return _place_id(ident, "room")


def _place_id(ident: Any, what: str) -> str | None:
    if not isinstance(ident, str) or not PLACE_ID.match(ident):
        return f"{ident!r} is no {what} id ({ID_HOLDS})"
    try:
        check_place_id(ident)
    except ValueError as exc:
        return f"{what} id {exc}"
    return None


def _company(office: _Office, data: Any) -> str | None:
    try:
        company = Company.from_dict(data)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return f"not a company ({exc.__class__.__name__})"
    for dept in company.departments.values():
        groups = [("department", dept), *(("team", t) for t in dept.teams)]
        for what, group in groups:
            why = (
                _place_id(group.id, what)
                or _label(group.name, f"{what} name")
                or office.members_problem([*group.members, *([group.lead] if group.lead else [])])
            )
            if why is not None:
                return why
        new = dept.id not in office.departments
        if new and {dept.id, dept.casual_room} & {*office.people, *office.conversations}:
            return f"the department id {dept.id!r} is already taken"
    return None


def _land(office: _Office, step: Step) -> None:
    """What a step that passed leaves for the next: a new person, name, conversation, department."""
    if isinstance(step, EmployeeStep):
        if step.joined is not None:
            office.people[step.id] = step.joined["name"]
            office.gone.discard(step.id)
        if "name" in step.fields:
            office.people[step.id] = step.fields["name"]
        if "dismissed" in step.fields:
            (office.gone.add if step.fields["dismissed"] else office.gone.discard)(step.id)
    elif isinstance(step, ConversationStep) and step.opened is not None:
        office.conversations.add(step.id)
    elif isinstance(step, CompanyStep):
        office.departments = set(Company.from_dict(step.company).departments)
