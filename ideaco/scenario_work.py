"""The parts of a scenario that organize work (issue 20): teams, an employee's skills and agent."""

from __future__ import annotations

from datetime import timedelta
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_serializer, field_validator

from ideaco.bounds import Name, PlaceId
from ideaco.durations import format_duration, parse_duration
from ideaco.skills import MAX_EMPLOYEE_SKILLS, SKILL_NAME


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _skill_names(names: list[str]) -> list[str]:
    for name in names:
        if not SKILL_NAME.match(name):
            raise ValueError(f"{name!r} is not a skill name (lowercase letters, digits, '-' and '_')")
    if len(set(names)) != len(names):
        raise ValueError("a skill is listed twice")
    return names


SkillNames = Annotated[list[str], Field(max_length=MAX_EMPLOYEE_SKILLS), AfterValidator(_skill_names)]
MAX_AGENT_TIMEOUT = timedelta(hours=2)


class AgentSettings(_Strict):
    """An employee's work backend other than its chat model (issue 20, item 6): a command that
    writes its documents, run by `ideaco.agents.command` only with --allow-agent-commands."""

    command: list[Annotated[str, Field(min_length=1, max_length=4096)]] = Field(min_length=1, max_length=64)
    timeout: timedelta = timedelta(minutes=10)
    # The user's environment variables the command may see, by name (issue 37, item 2): nothing else
    # of the user's environment reaches it but PATH, LANG, LC_* and TERM (agents/command.py).
    env: list[Annotated[str, Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,127}$")]] = Field(
        default_factory=list, max_length=64
    )

    @field_validator("timeout", mode="before")
    @classmethod
    def _parse_timeout(cls, v: Any) -> timedelta:
        td = parse_duration(v)
        if not timedelta(0) < td <= MAX_AGENT_TIMEOUT:
            raise ValueError(
                f"{v!r} must be longer than zero and at most {format_duration(MAX_AGENT_TIMEOUT)}"
            )
        return td

    @field_serializer("timeout")
    def _dump_timeout(self, v: timedelta) -> str:
        return format_duration(v)

    @property
    def timeout_s(self) -> float:
        return self.timeout.total_seconds()


class SeededTask(_Strict):
    """A task an employee has when the run starts, asked by the boss (issue 29, item 1): with a
    `document` (a path in its department's workspace), the document the task delivers, so a small
    model's grammar offers `write_document` for it."""

    description: Name = Field(min_length=1)
    document: str | None = None

    @field_validator("document")
    @classmethod
    def _check_document(cls, v: str | None) -> str | None:
        if v is None:
            return v
        from ideaco.office.core.documents import check_path
        from ideaco.office.core.refusal import Refusal

        checked = check_path(v)
        if isinstance(checked, Refusal):
            raise ValueError(checked.reason)
        return checked


class TeamSpec(_Strict):
    """A team inside a department, with its own work room (the team's id)."""

    id: PlaceId
    name: Name
    department: str
    members: list[str] = Field(min_length=1)
