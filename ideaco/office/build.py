"""Building an office: fresh from a scenario, or restored from a run's saved state."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from ideaco.llm.base import LLM
from ideaco.office import rules
from ideaco.office.clock import Clock
from ideaco.office.company import Company, Department
from ideaco.office.conversation import ConversationKind, boss_conversation_id
from ideaco.office.journal import Journal
from ideaco.office.office import STATE_FORMAT, Office, OfficeConfig, restore_rng
from ideaco.office.secretary import SECRETARY, secretary_state
from ideaco.office.state import ConversationState, EmployeeState
from ideaco.scenario import Scenario


class StateError(ValueError):
    """A saved state this version cannot continue (one line for the user)."""


def gate_config(overrides: dict[str, float]) -> rules.GateConfig:
    """Speech gates with a scenario's `gates:` overrides: `work.cooldown_s: 30`,
    `casual.max_posts: 6`, `dm.window_s: 120`, `saturation_silence_at: 8`."""
    gates = rules.GateConfig()
    kinds = {f.name for f in dataclasses.fields(rules.GateConfig) if f.name != "saturation_silence_at"}
    fields = {f.name for f in dataclasses.fields(rules.KindGates)}
    for key, value in overrides.items():
        if key == "saturation_silence_at":
            gates = dataclasses.replace(gates, saturation_silence_at=int(value))
            continue
        kind, _, name = key.partition(".")
        if kind not in kinds or name not in fields:
            known = ", ".join(f"{k}.{n}" for k in sorted(kinds) for n in sorted(fields))
            raise ValueError(f"gates.{key}: unknown gate setting (known: saturation_silence_at, {known})")
        value = int(value) if name == "max_posts" else float(value)
        gates = dataclasses.replace(
            gates, **{kind: dataclasses.replace(getattr(gates, kind), **{name: value})}
        )
    return gates


def config_for(scenario: Scenario) -> OfficeConfig:
    """The engine's numbers, with the scenario's `timers:` and `gates:` overrides applied."""
    known = {f.name for f in dataclasses.fields(rules.TimerConfig)}
    unknown = sorted(set(scenario.timers) - known)
    if unknown:
        raise ValueError(f"timers.{unknown[0]}: unknown timer (known: {', '.join(sorted(known))})")
    timers = dataclasses.replace(rules.TimerConfig(), **scenario.timers)
    config = OfficeConfig(timers=timers, gates=gate_config(scenario.gates))
    if scenario.llm and scenario.llm.temperature is not None:
        config.temperature = scenario.llm.temperature
    if scenario.llm and scenario.llm.max_tokens:
        config.max_tokens = scenario.llm.max_tokens
    return config


def office_from_scenario(
    scenario: Scenario,
    base_dir: str | Path,
    *,
    llm: LLM,
    clock: Clock,
    seed: int,
    journal: Journal | None = None,
    model_for: Callable[[str | None], str] = lambda m: m or "default",
    config: OfficeConfig | None = None,
) -> Office:
    """A new office at the scenario's start; call `start()` then `run()`."""
    personas = scenario.resolve_personas(base_dir)
    missions = {}
    departments_of = {}
    for dept in scenario.departments:
        missions[dept.casual_room_id] = dept.mission or None
        for member in dept.members:
            departments_of.setdefault(member, dept.id)
    employees = {
        e.id: EmployeeState(
            id=e.id,
            name=e.name,
            role=e.role,
            age=e.age,
            department=departments_of.get(e.id),
            model=e.model,
            persona=personas[e.id].model_dump(mode="json", exclude_none=True),
        )
        for e in scenario.employees
    }
    conversations = {
        spec.id: ConversationState(
            id=spec.id,
            kind=ConversationKind(spec.kind),
            name=spec.name,
            members=list(spec.members),
            mission=missions.get(spec.id),
        )
        for spec in scenario.conversations()
    }
    if SECRETARY not in employees:  # every company has one, reached in boss:secretary
        employees[SECRETARY] = secretary_state(scenario.company)
        conversations[boss_conversation_id(SECRETARY)] = ConversationState(
            id=boss_conversation_id(SECRETARY), kind=ConversationKind.BOSS, name="Boss and Secretary", members=[SECRETARY]
        )
    company = Company(
        name=scenario.company,
        departments={
            d.id: Department(id=d.id, name=d.name, mission=d.mission, members=list(d.members), lead=d.lead)
            for d in scenario.departments
        },
    )
    meta = {
        "organization": company.to_dict(),
        "scenario": scenario.to_dict(),
        "scenario_dir": str(Path(base_dir).resolve()),
        "seed": seed,
        "start": scenario.start.isoformat(),
        "script": [{"offset_s": s.at.total_seconds(), "to": s.to, "text": s.text} for s in scenario.script],
        "script_next": 0,
    }
    office = Office(
        company=scenario.company,
        language=scenario.language,
        employees=employees,
        conversations=conversations,
        llm=llm,
        clock=clock,
        rng=random.Random(seed),
        journal=journal,
        config=config or config_for(scenario),
        model_for=model_for,
        meta=meta,
    )
    office.end_at = scenario.start + scenario.duration
    return office


def _documents(table: list[dict[str, Any]] | dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """A table saved as a list of documents (or, from older snapshots, a mapping id -> document)."""
    return list(table.values()) if isinstance(table, dict) else list(table)


def office_from_state(
    state: dict[str, Any],
    messages: list[dict[str, Any]],
    *,
    llm: LLM,
    clock: Clock,
    thoughts: list[dict[str, Any]] | None = None,
    journal: Journal | None = None,
    model_for: Callable[[str | None], str] = lambda m: m or "default",
) -> Office:
    """The office as it was saved; conversations are rebuilt from messages.jsonl.

    `thoughts` (thoughts.jsonl) and `messages` keep ids unique when the logs ran ahead of the last save.
    """
    meta = dict(state["office"])
    version = meta.get("format_version")
    if version != STATE_FORMAT:
        raise StateError(f"state format {version} is not supported (this ideaco reads format {STATE_FORMAT})")
    scenario = Scenario.model_validate(meta["scenario"])
    employees = {d["id"]: EmployeeState.from_dict(d) for d in _documents(state["employees"])}
    conversations = {d["id"]: ConversationState.from_dict(d) for d in _documents(state["conversations"])}
    rng = restore_rng(meta.pop("rng"))
    for key in ("format_version", "company", "language", "now", "stop_reason"):
        meta.pop(key, None)
    end_at = meta.pop("end_at", None)
    office = Office(
        company=scenario.company,
        language=scenario.language,
        employees=employees,
        conversations=conversations,
        llm=llm,
        clock=clock,
        rng=rng,
        journal=journal,
        config=config_for(scenario),
        model_for=model_for,
        meta=meta,
    )
    office.load_messages(messages)
    # The logs may have run ahead of the last save (a killed run): never hand out an id twice.
    logged = [_serial(t.get("id"), "t") for t in thoughts or ()]
    office.counters["thought"] = max([office.counters.get("thought", 0), *filter(None, logged)])
    posted = [_serial(m.get("id"), "m") for m in messages]
    office.counters["message"] = max([office.counters.get("message", 0), *filter(None, posted)])

    office.end_at = datetime.fromisoformat(end_at) if end_at else None
    return office


def _serial(ident: object, prefix: str) -> int | None:
    """The number in an engine id like `t000012` or `m000003` (None for other ids)."""
    text = str(ident or "")
    digits = text[len(prefix) :]
    return int(digits) if text.startswith(prefix) and digits.isdigit() else None
