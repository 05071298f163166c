"""Scenario files (spec 1.6): load, validate across fields, and derive the office's conversations."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_serializer,
    field_validator,
    model_validator,
)

from ideaco.bounds import (
    LINE_CHARS,
    RESERVED_IDS,
    Name,
    PersonName,
    PlaceId,
    Prose,
    Seconds,
    Start,
)
from ideaco.durations import format_duration, parse_duration, parse_offset
from ideaco.ids import EMPLOYEE_ID_HOLDS, SECRETARY, boss_chat_owner, boss_conversation_id, id_hint, slug
from ideaco.kinds import ConversationKind, RoomKind
from ideaco.llm.config import ScenarioLLM
from ideaco.lookalike import Names, fold
from ideaco.office.core.documents import folder_clash
from ideaco.persona import (
    ARCHETYPES,
    Persona,
    PersonaError,
    load_archetype,
    load_persona_file,
    persona_path,
    read_mapping,
)
from ideaco.scenario_work import AgentSettings, SeededTask, SkillNames, TeamSpec
from ideaco.shipped import missing_hint
from ideaco.skills import SkillError, library
from ideaco.skills import unknown as unknown_skills
from ideaco.typos import did_you_mean, fields_beside, unknown

__all__ = ["AgentSettings", "TeamSpec", "format_duration", "parse_duration", "parse_offset"]

DEFAULT_START = datetime(2026, 1, 5, 9, 0, 0)
DEFAULT_DURATION = timedelta(hours=2)
REVIEW_ROUNDS = 3  # a document's rejections before its department's lead decides (review_rounds)
EMPLOYEE_ID = re.compile(r"^[a-z][a-z0-9_-]*$")


class ScenarioError(ValueError):
    """A scenario that cannot be used; `str()` is one line: `file: field: message`."""

    def __init__(self, path: str | Path, field: str | None, message: str) -> None:
        self.path = str(path)
        self.field = field
        self.message = message
        super().__init__(f"{self.path}: {field}: {message}" if field else f"{self.path}: {message}")


class _Problems(ValueError):
    """Cross-field problems found by `Scenario`'s model validator, each with its field path."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__(f"{problems[0][0]}: {problems[0][1]}")


@dataclass(frozen=True)
class ConversationSpec:
    """A conversation the scenario opens, of a `ConversationKind`."""

    id: str
    kind: str
    name: str
    members: tuple[str, ...]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class DepartmentSpec(_Strict):
    id: PlaceId
    name: Name
    mission: Prose = ""
    members: list[str] = Field(min_length=1)
    lead: str | None = None  # defaults to the first member

    @property
    def casual_room_id(self) -> str:
        return f"{self.id}-casual"


class EmployeeSpec(_Strict):
    id: str
    name: PersonName = Field(min_length=1)
    role: Name = Field(min_length=1)
    archetype: str | None = None
    persona: str | None = None  # a path relative to the scenario file
    age: int | None = Field(None, ge=14, le=120)
    model: str | None = None
    skills: SkillNames = Field(default_factory=list)  # with its persona's: names of skill files
    agent: AgentSettings | None = None
    tasks: list[SeededTask] = Field(default_factory=list, max_length=5)  # asked by the boss at the start

    @field_validator("id")
    @classmethod
    def _check_id(cls, v: str) -> str:
        if not EMPLOYEE_ID.match(v):
            raise ValueError(id_hint(v, EMPLOYEE_ID_HOLDS))
        if v == SECRETARY:
            raise ValueError(f"{v!r} is reserved (every company has its secretary)")
        if v in RESERVED_IDS:
            raise ValueError(f"{v!r} is reserved")
        return v

    @field_validator("archetype")
    @classmethod
    def _check_archetype(cls, v: str | None) -> str | None:
        if v is not None and v not in ARCHETYPES:
            raise ValueError(unknown("archetype", v, ARCHETYPES))
        return v


class Room(_Strict):
    id: PlaceId
    name: Name
    kind: RoomKind = ConversationKind.WORK.value
    members: list[str]

    @field_validator("members")
    @classmethod
    def _non_empty(cls, v: list[str]) -> list[str]:
        if not v:
            raise ValueError("a room needs at least one member")
        return v


class ScriptEntry(_Strict):
    """A boss message posted `at` this offset from the start."""

    at: timedelta
    to: str
    text: str = Field(min_length=1, max_length=LINE_CHARS)

    @field_validator("at", mode="before")
    @classmethod
    def _parse_at(cls, v: Any) -> timedelta:
        return parse_offset(v)

    @field_serializer("at")
    def _dump_at(self, v: timedelta) -> str:
        return format_duration(v)


class Posting(_Strict):
    """What the text rules hold people's texts to (docs/posting.md): `filters: strict` (the
    guarantees and small-model hygiene) or `standard` (the guarantees only); unset, the model
    decides: strict for the embedded model, standard for an endpoint. `--filters` overrides it."""

    filters: str | None = None

    @field_validator("filters")
    @classmethod
    def _known(cls, v: str | None) -> str | None:
        if v is not None and v not in ("strict", "standard"):
            raise ValueError(f"{v!r}: expected strict or standard")
        return v


class Scenario(_Strict):
    """A validated scenario; `to_dict()` and `Scenario.model_validate(d)` round-trip."""

    name: str = "scenario"  # the file stem, used for the default run directory
    company: Name = Field(min_length=1)
    language: str = Field("en", max_length=40)
    duration: timedelta = DEFAULT_DURATION
    start: Start = DEFAULT_START
    llm: ScenarioLLM | None = None  # defined and validated in ideaco.llm.config (spec 1.2)
    departments: list[DepartmentSpec] = Field(default_factory=list)
    employees: list[EmployeeSpec] = Field(default_factory=list)  # the secretary is always added
    rooms: list[Room] = Field(default_factory=list)
    teams: list[TeamSpec] = Field(default_factory=list)
    skills: str | None = Field(None, max_length=400)  # a folder of skill files, relative to the scenario
    script: list[ScriptEntry] = Field(default_factory=list)
    timers: dict[str, Seconds] = Field(default_factory=dict)
    gates: dict[str, Seconds] = Field(default_factory=dict)
    review_rounds: int = Field(REVIEW_ROUNDS, ge=1, le=10)  # rejections of a document before its lead decides
    posting: Posting | None = None  # the text rules' setting (`filters`), docs/posting.md

    @field_validator("script")
    @classmethod
    def _in_time_order(cls, v: list[ScriptEntry]) -> list[ScriptEntry]:
        # Lines listed out of order are posted in time order (ties keep the file's order), never dropped.
        return sorted(v, key=lambda entry: entry.at)

    @field_validator("duration", mode="before")
    @classmethod
    def _parse_duration(cls, v: Any) -> timedelta:
        td = parse_duration(v)
        if td <= timedelta(0):
            raise ValueError(f"{v!r} must be longer than zero")
        return td

    @field_validator("start", mode="before")
    @classmethod
    def _date_is_midnight(cls, v: Any) -> Any:
        if isinstance(v, date) and not isinstance(v, datetime):
            return datetime(v.year, v.month, v.day)
        return v

    @field_serializer("duration")
    def _dump_duration(self, v: timedelta) -> str:
        return format_duration(v)

    @model_validator(mode="after")
    def _cross_check(self) -> Scenario:
        problems: list[tuple[str, str]] = []
        employees = {e.id for e in self.employees}
        seen: dict[str, str] = {}

        def claim(ident: str, where: str) -> None:
            if ident in seen:
                problems.append((where, f"duplicate id {ident!r} (already used by {seen[ident]})"))
            else:
                seen[ident] = where

        names = Names()  # whose each name is, to tell a name from one it would be taken for
        ids = {e.id: i for i, e in reversed(list(enumerate(self.employees)))}  # each id's first index
        for i, e in enumerate(self.employees):
            claim(e.id, f"employees[{i}].id")
            key = e.name.strip().lower()  # reserved names and role words: PersonName
            # Mentions use @Name, so names must tell employees apart, to the eye too (lookalike.py).
            if (other := names.alike(e.name)) is not None:
                problems.append((f"employees[{i}].name", f"duplicate name {e.name!r} (also {other})"))
            elif key in ids and key != e.id:  # @key would name two people: one by id, one by name
                problems.append((f"employees[{i}].name", f"{e.name!r} is the id of employees[{ids[key]}]"))
            names.add(e.name, e.id)
            if e.archetype is None and e.persona is None:
                problems.append((f"employees[{i}]", "needs an archetype or a persona file"))

        def check_members(members: list[str], where: str) -> None:
            for j, m in enumerate(members):
                if m not in employees:
                    problems.append((f"{where}.members", f"{m!r} is not an employee"))
                elif m in members[:j]:
                    problems.append((f"{where}.members", f"{m!r} is listed twice"))

        for i, d in enumerate(self.departments):
            claim(d.id, f"departments[{i}].id")
            claim(d.casual_room_id, f"departments[{i}] (its casual room)")
            check_members(d.members, f"departments[{i}]")
            if d.lead is None:
                d.lead = d.members[0]
            elif d.lead not in d.members:
                problems.append((f"departments[{i}].lead", f"{d.lead!r} is not a member of {d.id!r}"))
        for i, r in enumerate(self.rooms):
            claim(r.id, f"rooms[{i}].id")
            check_members(r.members, f"rooms[{i}]")
        departments = {d.id: d for d in self.departments}
        for i, t in enumerate(self.teams):
            claim(t.id, f"teams[{i}].id")
            check_members(t.members, f"teams[{i}]")
            if t.department not in departments:
                problems.append((f"teams[{i}].department", f"{t.department!r} is not a department"))
                continue
            for m in t.members:
                if m in employees and m not in departments[t.department].members:
                    problems.append((f"teams[{i}].members", f"{m!r} is not a member of {t.department!r}"))
            named = {slug(t.name), fold(t.name)}
            other = next(
                (d.id for d in self.departments if named & {d.id, slug(d.name), fold(d.name)}), None
            ) or next((e.id for e in self.employees if named & {e.id, fold(e.name)}), None)
            if other is not None:
                problems.append(
                    (f"teams[{i}].name", f"{t.name!r} reads as {other!r}: name the team another way")
                )

        in_department = {m for d in self.departments for m in d.members}
        named_documents: dict[str, dict[str, str]] = {}  # department -> path -> the field naming it
        for i, e in enumerate(self.employees):
            for j, task in enumerate(e.tasks):
                if task.document is not None and e.id not in in_department:
                    problems.append(
                        (f"employees[{i}].tasks[{j}].document", f"{e.id!r} is in no department to keep it")
                    )
                elif task.document is not None:
                    dept = next(d.id for d in self.departments if e.id in d.members)
                    named_documents.setdefault(dept, {})[task.document] = (
                        f"employees[{i}].tasks[{j}].document"
                    )
        for paths in named_documents.values():  # issue 37, item 4: one of the two could never be written
            clash = folder_clash(paths)
            if clash is not None:
                folder, path = clash
                problems.append(
                    (
                        paths[path],
                        f"{path!r} is inside {folder!r}, which {paths[folder]} names as a document: "
                        "a path cannot be both a document and a folder",
                    )
                )
        targets = (
            {r.id for r in self.rooms}
            | {t.id for t in self.teams}
            | {d.casual_room_id for d in self.departments}
        )
        for i, s in enumerate(self.script):
            # The secretary is in every company (spec 2.9): the boss reaches it in boss:secretary.
            if (owner := boss_chat_owner(s.to)) is not None:
                if owner not in employees | {SECRETARY}:
                    problems.append((f"script[{i}].to", f"{s.to!r}: {owner!r} is not an employee"))
            elif s.to not in targets:
                problems.append((f"script[{i}].to", f"{s.to!r} is not a room (nor boss:<employee>)"))
        if problems:
            raise _Problems(problems)
        return self

    # --- derived views ------------------------------------------------------------------------------

    def employee(self, employee_id: str) -> EmployeeSpec:
        """The employee with this id (KeyError if none)."""
        for e in self.employees:
            if e.id == employee_id:
                return e
        raise KeyError(employee_id)

    def departments_of(self, employee_id: str) -> list[DepartmentSpec]:
        """The departments an employee belongs to (for the department mission in the prompt)."""
        return [d for d in self.departments if employee_id in d.members]

    def teams_of(self, department_id: str) -> list[TeamSpec]:
        return [t for t in self.teams if t.department == department_id]

    def conversations(self) -> list[ConversationSpec]:
        """Every room, each department's casual room, and the boss's 1-on-1 with every employee."""
        convs = [ConversationSpec(r.id, r.kind, r.name, tuple(r.members)) for r in self.rooms]
        convs += [ConversationSpec(t.id, ConversationKind.WORK, t.name, tuple(t.members)) for t in self.teams]
        convs += [
            ConversationSpec(d.casual_room_id, ConversationKind.CASUAL, f"{d.name} casual", tuple(d.members))
            for d in self.departments
        ]
        boss_chats = [(boss_conversation_id(e.id), f"Boss and {e.name}", e.id) for e in self.employees]
        return convs + [
            ConversationSpec(cid, ConversationKind.BOSS, name, (e,)) for cid, name, e in boss_chats
        ]

    def resolve_personas(
        self, base_dir: str | Path, personas_dir: str | Path | None = None
    ) -> dict[str, Persona]:
        """Each employee's persona: its archetype, overridden by its persona file (relative to base_dir);
        `PersonaError` (naming the persona file) for a missing or bad file."""
        out: dict[str, Persona] = {}
        for e in self.employees:
            if e.persona is not None:
                out[e.id] = load_persona_file(persona_path(base_dir, e.persona), e.archetype, personas_dir)
            else:
                assert e.archetype is not None  # checked by the validator
                out[e.id] = load_archetype(e.archetype, personas_dir)
        return out

    def to_dict(self) -> dict:
        """Plain JSON types only, so it can be stored in the run state and validated back."""
        return self.model_dump(mode="json")


# --- loading --------------------------------------------------------------------------------------


def _field_path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not str(part).startswith("function-"):  # pydantic's names for validator steps
            out += f".{part}" if out else str(part)
    return out


def scenario_problems(exc: ValidationError) -> list[tuple[str, str]]:
    """Turn a pydantic error into (field path, message) pairs, cross-field problems unpacked."""
    out: list[tuple[str, str]] = []
    for err in exc.errors():
        cause = (err.get("ctx") or {}).get("error")
        if isinstance(cause, _Problems):
            out.extend(cause.problems)
            continue
        field = _field_path(err["loc"])
        if err["type"] == "missing":
            msg = "required"
        elif err["type"] == "extra_forbidden":
            msg = "unknown field" + did_you_mean(str(err["loc"][-1]), fields_beside(Scenario, err["loc"]))
        elif err["type"] == "model_type":  # pydantic would name the class (EmployeeSpec)
            msg = f"should be a mapping of fields, not {type(err['input']).__name__} {err['input']!r:.40}"
        elif err["type"] == "string_pattern_mismatch":
            msg = id_hint(err["input"])
        elif isinstance(cause, Exception):
            msg = str(cause)
        else:
            msg = err["msg"]
        out.append((field, msg))
    return out


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file, persona files included; raises `ScenarioError` (one line)."""
    path_str = str(path)
    try:
        data = read_mapping(path)
    except PersonaError as exc:
        message = exc.message
        if message == "file not found":  # a typo, or a shipped scenario looked for in the wrong place
            message += missing_hint(path)
        raise ScenarioError(path_str, None, message) from None
    data.setdefault("name", Path(path).stem)
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        (field, msg), *others = scenario_problems(exc)
        more = f" (+{len(others)} more)" if others else ""
        raise ScenarioError(path_str, field or None, msg + more) from None
    base_dir = Path(path).parent
    for i, e in enumerate(scenario.employees):
        try:
            if e.persona is not None:
                load_persona_file(persona_path(base_dir, e.persona), e.archetype)
        except PersonaError as exc:
            where = f" ({exc.field})" if exc.field else ""
            raise ScenarioError(
                path_str, f"employees[{i}].persona", f"{exc.path}{where}: {exc.message}"
            ) from None
    check_skills(scenario, base_dir, path_str)
    return scenario


def check_skills(scenario: Scenario, base_dir: str | Path, path: str = "scenario") -> None:
    """Every skill an employee (or its persona) lists names a skill file; `ScenarioError` if not."""
    try:
        known = library(base_dir, scenario.skills)
    except SkillError as exc:
        raise ScenarioError(path, "skills", str(exc)) from None
    personas = scenario.resolve_personas(base_dir)
    for i, e in enumerate(scenario.employees):
        problem = unknown_skills([*personas[e.id].skills, *e.skills], known)
        if problem:
            raise ScenarioError(path, f"employees[{i}].skills", problem)
