"""Building an office: fresh from a scenario, or restored from a run's saved state."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ideaco.llm.base import LLM
from ideaco.mind.thought import Thought
from ideaco.office import effects, rules
from ideaco.office.clock import Clock, SimClock
from ideaco.office.company import Company, Department
from ideaco.office.conversation import ConversationKind, Message, boss_conversation_id
from ideaco.office.journal import Journal, MemoryJournal
from ideaco.office.office import STATE_FORMAT, Office, OfficeConfig, restore_rng
from ideaco.office.secretary import SECRETARY, TOOL_ARGS, run_tool, secretary_state
from ideaco.office.state import ConversationState, EmployeeState, Focus
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
            id=boss_conversation_id(SECRETARY),
            kind=ConversationKind.BOSS,
            name="Boss and Secretary",
            members=[SECRETARY],
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
    """The office as it was saved, conversations rebuilt from messages.jsonl, caught up with the logs.

    `thoughts` (thoughts.jsonl) and `messages` hold what happened after the last save when a run
    was killed: `catch_up` applies it, so ids stay unique and no logged think is redone.
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
    catch_up(office, messages, thoughts or [])
    office.end_at = datetime.fromisoformat(end_at) if end_at else None
    return office


# --- a killed run: the logs ran ahead of the last checkpoint ----------------------------------------


def catch_up(office: Office, messages: list[dict[str, Any]], thoughts: list[dict[str, Any]]) -> None:
    """Rebuild conversations from the logs and bring the saved state up to them.

    Records are appended as they happen and the state is saved after them (not after every one,
    see `Office.checkpoint_after_thought`), so a killed run leaves logged messages and thoughts
    the state does not know. The saved counts say where the state stopped; every record after
    them is applied again as the run applied it, in simulated-time order: a message is posted
    (read positions, wakes, loop breakers) without being logged again, a thought changes its
    employee's mind and schedules its next look. So a resume neither redoes a logged think
    (saying the same thing twice) nor forgets what one changed, and no id is handed out twice.
    """
    saved_messages, saved_thoughts = office.stats.messages, office.stats.thoughts
    if saved_messages > len(messages) or saved_thoughts > len(thoughts):  # logs cut by hand: no replay
        saved_messages, saved_thoughts = len(messages), len(thoughts)
    office.load_messages(messages[:saved_messages])
    logged = {t.get("id") for t in thoughts}
    events: list[tuple[datetime, int, int, dict[str, Any]]] = []
    for n, rec in enumerate(thoughts[saved_thoughts:]):
        finished = datetime.fromisoformat(rec["at"]) + timedelta(seconds=office.config.think_seconds)
        events.append((finished, 0, n, rec))  # a thought is applied before the messages it posted
    for n, rec in enumerate(messages[saved_messages:]):
        events.append((datetime.fromisoformat(rec["at"]), 1, n, rec))
    clock, journal = office.clock, office.journal
    office.journal = MemoryJournal()  # replayed records are in the logs already
    try:
        for at, kind, _, rec in sorted(events, key=lambda e: e[:3]):
            office.clock = SimClock(at)  # wakes set meanwhile live on the employees; start() schedules them
            if kind == 0:
                _replay_thought(office, rec)
            else:
                _replay_message(office, rec, logged)
    finally:
        office.clock, office.journal = clock, journal
    for rec in messages[saved_messages:]:
        index = _script_index(rec.get("id"))
        if index is not None:  # a script line posted after the last save is not posted again
            office.script_next = max(office.script_next, index)

    # Ids: the highest one in any log, whatever the last save said.
    thought_ids = [_serial(t.get("id"), "t") for t in thoughts]
    thought_ids += [_serial(str(m.get("id", "")).split("-")[0], "t") for m in messages]
    office.counters["thought"] = max([office.counters.get("thought", 0), *filter(None, thought_ids)])
    message_ids = [_serial(m.get("id"), "m") for m in messages]
    office.counters["message"] = max([office.counters.get("message", 0), *filter(None, message_ids)])
    _recount(office, messages, thoughts)


def _replay_message(office: Office, rec: dict[str, Any], logged_thoughts: set[Any]) -> None:
    message = Message.from_record(rec)
    conv_id = message.conversation
    if conv_id not in office.conversations and conv_id.startswith("dm:"):
        office.dm(*conv_id.split(":")[1:3])
    conv = office.conversations.get(conv_id)
    if conv is None:
        return
    emp = office.employees.get(message.sender)
    if emp is not None and message.id.split("-")[0] not in logged_thoughts:
        # Killed between its post and its thought's record: the sender had read up to here.
        emp.cursors[conv_id] = max(emp.cursors.get(conv_id, 0), conv.count)
    office.post(message)


def _replay_thought(office: Office, rec: dict[str, Any]) -> None:
    """Apply a logged thought the saved state missed (the office's clock is at its finish)."""
    emp = office.employees.get(rec.get("employee", ""))
    conv = office.conversations.get(rec.get("conversation", ""))
    if emp is None or conv is None or rec.get("gate") == "superseded":  # a re-think follows it
        return
    at = datetime.fromisoformat(rec["at"])
    if emp.phase == "idle":  # the wake that led to this think came after the save: it is spent
        if emp.wake_at is not None and emp.wake_at <= at:
            emp.wake_at, emp.wake_triggers = None, []
        owed = next(
            (f for f in emp.focus if (f.conversation, f.trigger) == (conv.id, rec.get("trigger"))), None
        )
        if owed is not None:
            emp.focus.remove(owed)
    if rec.get("thought") and rec.get("gate") not in ("error", "budget"):
        thought = Thought.model_validate(rec["thought"])
        read_upto = conv.count - sum(1 for m in conv.recent if m.at > at)  # what was there when it began
        emp.cursors[conv.id] = max(emp.cursors.get(conv.id, 0), read_upto)
        emp.interest, emp.saturation = thought.interestLevel, thought.topicSaturation
        effects.apply_effects(office, emp, conv, thought, calls=(rec.get("llm") or {}).get("calls", 1))
        _replay_tools(office, emp, conv, thought)
    if rec.get("next_look_at"):
        office.after_think(emp, datetime.fromisoformat(rec["next_look_at"]))
    else:
        emp.phase = "idle"


def _replay_tools(office: Office, emp: EmployeeState, conv: ConversationState, thought: Thought) -> None:
    """The secretary's organization tools, as `Thinker._actions` ran them (hires, rooms, requirements).

    The replay posts its messages right after; a tool refused then is refused again now.
    """
    if emp.id != SECRETARY or conv.id != boss_conversation_id(emp.id):
        return
    results = []
    for action in thought.actions:
        if action.tool in TOOL_ARGS:
            outcome = run_tool(office, action.tool, action.args)
            office.invalidate_index()
            results.append(("Done: " if outcome.ok else "Refused: ") + outcome.message)
    if results:
        note = " ".join(results) + " Tell the boss what was done, and what was not and why."
        effects.owe(office, emp, Focus(boss_conversation_id(emp.id), "system", note))


def _recount(office: Office, messages: list[dict[str, Any]], thoughts: list[dict[str, Any]]) -> None:
    """The run's counts as the logs hold them (what summary.json reports)."""
    stats = office.stats
    stats.thoughts, stats.messages = len(thoughts), len(messages)
    gates: dict[str, int] = {}
    calls = prompt = completion = cached = 0
    for t in thoughts:
        if t.get("gate"):
            gates[t["gate"]] = gates.get(t["gate"], 0) + 1
        usage = t.get("llm")
        if usage:
            calls += usage.get("calls", 1)
            prompt += usage.get("prompt_tokens", 0)
            completion += usage.get("completion_tokens", 0)
            cached += usage.get("cached_tokens", 0)
    stats.gates = gates
    stats.llm_calls, stats.prompt_tokens = calls, prompt
    stats.completion_tokens, stats.cached_tokens = completion, cached


def _script_index(ident: object) -> int | None:
    """`script-3` -> 3: the number of script lines posted up to and including this one."""
    text = str(ident or "")
    digits = text.removeprefix("script-")
    return int(digits) if text.startswith("script-") and digits.isdigit() else None


def _serial(ident: object, prefix: str) -> int | None:
    """The number in an engine id like `t000012` or `m000003` (None for other ids)."""
    text = str(ident or "")
    digits = text[len(prefix) :]
    return int(digits) if text.startswith(prefix) and digits.isdigit() else None
