"""The company above the employees (spec 2.9): departments with their casual rooms, teams, leads.

Plain data, persisted in state.json next to the employees; the secretary's tools (`ideaco.office.decide.tools.org`) change it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# A requirement's sign-off (`Company.signoffs`): none yet (open), its lead reported it, its lead
# asked the boss to sign it off (`sign_off`), the boss approved it (`core.documents.APPROVED`, a
# review's word too) or reopened it. Only the boss's own command approves or reopens (issue 37).
UNSIGNED, REPORTED, ASKED, REOPENED = "open", "reported", "asked", "reopened"
WAITING = frozenset((REPORTED, ASKED))  # waiting for the boss's `/approve` or `/reopen`


def requirements_of(
    company: Company, conversations: Mapping[str, Any], department: str, statuses: Iterable[str]
) -> tuple[str, ...]:
    """The requirements (work rooms) of `department` whose sign-off is one of `statuses`, in order."""
    wanted = set(statuses)
    return tuple(
        room
        for room, status in sorted(company.signoffs.items())
        if status in wanted and getattr(conversations.get(room), "department", None) == department
    )


@dataclass(frozen=True)
class BossVerdict:
    """A boss line that approves or reopens a requirement: `/approve req-1`, `/reopen req-1 NOTES`."""

    requirement: str
    verdict: str  # one of kinds.BOSS_VERDICTS
    notes: str = ""


@dataclass
class Team:
    """A team inside a department."""

    id: str
    name: str
    members: list[str] = field(default_factory=list)
    lead: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "members": self.members, "lead": self.lead}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Team:
        return cls(id=d["id"], name=d["name"], members=list(d.get("members") or []), lead=d.get("lead"))


@dataclass
class Department:
    """A department: its people, its lead (default: the first member), its mission and casual room."""

    id: str
    name: str
    mission: str = ""
    members: list[str] = field(default_factory=list)
    lead: str | None = None
    teams: list[Team] = field(default_factory=list)

    @property
    def casual_room(self) -> str:
        return f"{self.id}-casual"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "mission": self.mission,
            "members": self.members,
            "lead": self.lead,
            "teams": [t.to_dict() for t in self.teams],
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Department:
        return cls(
            id=d["id"],
            name=d["name"],
            mission=d.get("mission") or "",
            members=list(d.get("members") or []),
            lead=d.get("lead"),
            teams=[Team.from_dict(t) for t in d.get("teams") or []],
        )


@dataclass
class Company:
    """The company: its name and departments (employees and rooms live in the office)."""

    name: str
    departments: dict[str, Department] = field(default_factory=dict)
    requirements: int = 0  # requirements handed out so far (names their work rooms)
    # A requirement's sign-off (issue 20), by its work room: reported, approved or reopened.
    signoffs: dict[str, str] = field(default_factory=dict)

    def department_for(self, members: Iterable[str]) -> Department | None:
        """The department a room of these members belongs to: the one most of them work in (the
        first listed on a tie), None when none of them is in a department."""
        members = set(members)
        best, most = None, 0
        for dept in self.departments.values():
            count = len(members.intersection(dept.members))
            if count > most:
                best, most = dept, count
        return best

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "departments": [d.to_dict() for d in self.departments.values()],
            "requirements": self.requirements,
        } | ({"signoffs": dict(self.signoffs)} if self.signoffs else {})

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Company:
        departments = [Department.from_dict(x) for x in d.get("departments") or []]
        return cls(
            name=d["name"],
            departments={x.id: x for x in departments},
            requirements=d.get("requirements", 0),
            signoffs=dict(d.get("signoffs") or {}),
        )
