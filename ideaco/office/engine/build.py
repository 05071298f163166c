"""Building an office: fresh from a scenario, or from a run's saved state caught up with its logs.

Every part (model, clock, journal, wake policy, config) is passed in, and nothing is reassigned
after construction. A resume applies the thoughts logged after the last save with
`Office.resolve` — the same code that applied them the first time.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from ideaco import skills
from ideaco.ids import (
    BOSS,
    MESSAGE,
    SECRETARY,
    TASK,
    THOUGHT,
    boss_conversation_id,
    dm_members,
    script_line_number,
    serial_number,
    thought_of,
)
from ideaco.kinds import ConversationKind, StepKind
from ideaco.llm.base import LLM
from ideaco.llm.config import DEFAULT_MODELS, Models
from ideaco.mind.board import Offer
from ideaco.mind.mind import Mind
from ideaco.mind.tasks import Task, task_id
from ideaco.office.core.company import Company, Department, Team
from ideaco.office.core.conversation import Message
from ideaco.office.core.documents import Document
from ideaco.office.core.state import OFFICE_FORMAT, ConversationState, Employee, OfficeState
from ideaco.office.core.stats import RunStats
from ideaco.office.core.steps import Step, step_from_record
from ideaco.office.decide.tools.org import secretary_employee
from ideaco.office.engine.clock import Clock
from ideaco.office.engine.early import EarlyCalls
from ideaco.office.engine.office import Office
from ideaco.office.engine.past import Past
from ideaco.office.engine.persistence import restore_streams
from ideaco.office.engine.streams import Streams
from ideaco.office.resolve import change_log
from ideaco.office.resolve.journal import Journal
from ideaco.office.resolve.records import result_from_record
from ideaco.office.resolve.waking import WakePolicy
from ideaco.office.rules import logged
from ideaco.office.rules.config import OfficeConfig, config_for
from ideaco.office.rules.documents import FOLDER_CLASH, clashes
from ideaco.scenario import ConversationSpec, Scenario
from ideaco.skills import Skill
from ideaco.store.rundir import CHANGES, MESSAGES, THOUGHTS
from ideaco.store.runlog import applied_at


class ResumeError(ValueError):
    """A saved state this version cannot continue (one line for the user)."""


class ForgedLine(ResumeError):
    """A logged record whose steps the office could not have made (`rules/logged.py`): the log's
    file name, the record's index among its records, and why."""

    def __init__(self, log: str, index: int, why: str) -> None:
        super().__init__(f"{log}: record {index + 1} is not a change the office could make ({why})")
        self.log, self.index, self.why = log, index, why


class ReplayError(ResumeError):
    """A logged record a resume cannot apply again: which log, which of its records, and why."""

    def __init__(self, log: str, index: int, problem: str) -> None:
        super().__init__(f"{log}: record {index + 1} cannot be applied again ({problem})")
        self.log, self.index, self.problem = log, index, problem


LOGS = (THOUGHTS, MESSAGES, CHANGES)  # by the kind of a catch-up's event


def _with_skills(persona: dict[str, Any], listed: list[str], book: dict[str, Skill]) -> dict[str, Any]:
    """The persona an employee keeps: its skills (its persona's and its own) resolved to their files."""
    names = list(dict.fromkeys([*persona.pop("skills", []), *listed]))
    if names:
        persona["skills"] = [book[n].to_dict() for n in names if n in book]
    return persona


def office_from_scenario(
    scenario: Scenario,
    base_dir: str | Path,
    *,
    llm: LLM,
    clock: Clock,
    seed: int,
    journal: Journal,
    models: Models = DEFAULT_MODELS,
    config: OfficeConfig | None = None,
    policy: WakePolicy | None = None,
    meta: dict[str, Any] | None = None,
    early_calls: EarlyCalls | None = None,
    past: Past | None = None,
) -> Office:
    """A new office at the scenario's start; call `start()` then `run()`. `early_calls`: calls made early
    (off); `past`: a fork's logged past, whose thinks its records answer (`past.py`)."""
    personas = scenario.resolve_personas(base_dir)
    book = skills.library(base_dir, scenario.skills)
    employees = {
        e.id: Employee(
            id=e.id,
            name=e.name,
            role=e.role,
            age=e.age,
            department=next((d.id for d in scenario.departments_of(e.id)), None),
            model=e.model,
            persona=_with_skills(personas[e.id].model_dump(mode="json", exclude_none=True), e.skills, book),
            mind=Mind(),
        )
        for e in scenario.employees
    }
    company = Company(
        name=scenario.company,
        departments={
            d.id: Department(
                id=d.id,
                name=d.name,
                mission=d.mission,
                members=list(d.members),
                lead=d.lead,
                teams=[Team(t.id, t.name, list(t.members), t.members[0]) for t in scenario.teams_of(d.id)],
            )
            for d in scenario.departments
        },
    )
    conversations = {spec.id: _conversation(spec, company) for spec in scenario.conversations()}
    if SECRETARY not in employees:  # every company has one, reached in boss:secretary
        employees[SECRETARY] = secretary_employee(scenario.company)
        chat = boss_conversation_id(SECRETARY)
        conversations[chat] = ConversationState(
            id=chat, kind=ConversationKind.BOSS, name="Boss and Secretary", members=[SECRETARY]
        )
    office_meta = {
        **(meta or {}),
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
        state=OfficeState(company, employees, conversations),
        llm=llm,
        clock=clock,
        streams=Streams(seed),
        journal=journal,
        config=config or config_for(scenario),
        policy=policy,
        models=models,
        meta=office_meta,
        early_calls=early_calls,
        past=past,
    )
    _seed_tasks(office, scenario)
    office.end_at = scenario.start + scenario.duration
    return office


def _seed_tasks(office: Office, scenario: Scenario) -> None:
    """The tasks a scenario gives its employees at the start, asked by the boss (a document task's
    path is in the employee's department's workspace); each is reported in the boss chat."""
    counters = office.state.counters
    for spec in scenario.employees:
        emp = office.state.employees[spec.id]
        for seeded in spec.tasks:
            counters[TASK] = counters.get(TASK, 0) + 1
            emp.mind.tasks.append(
                Task(
                    id=task_id(counters[TASK]),
                    owner=emp.id,
                    description=seeded.description,
                    created_at=scenario.start,
                    origin=BOSS,
                    on_resolve_target=boss_conversation_id(emp.id),
                    document=seeded.document,
                )
            )


def _conversation(spec: ConversationSpec, company: Company) -> ConversationState:
    """A scenario's conversation; a room belongs to a department (its casual room, or the one most of
    a work room's members work in) and shows that department's mission."""
    kind = ConversationKind(spec.kind)
    dept = None
    if kind is ConversationKind.CASUAL:
        dept = next((d for d in company.departments.values() if d.casual_room == spec.id), None)
    elif kind is ConversationKind.WORK:
        dept = company.department_for(spec.members)
    return ConversationState(
        id=spec.id,
        kind=kind,
        name=spec.name,
        members=list(spec.members),
        mission=(dept.mission or None) if dept else None,
        department=dept.id if dept else None,
    )


def _documents(table: list[dict[str, Any]] | dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """A table saved as a list of documents (or, from older snapshots, a mapping id -> document)."""
    return list(table.values()) if isinstance(table, dict) else list(table)


def check_resumable(state: dict[str, Any]) -> None:
    """ResumeError unless this version can continue `state` (older formats are read, not continued)."""
    version = (state.get("office") or {}).get("format_version")
    if version != OFFICE_FORMAT:
        raise ResumeError(
            f"state format {version!r} is not supported for resuming (this ideaco continues format "
            f"{OFFICE_FORMAT!r}; `ideaco inspect` and `ideaco report` still read it)"
        )


def office_from_state(
    state: dict[str, Any],
    messages: list[dict[str, Any]],
    *,
    llm: LLM,
    clock: Clock,
    journal: Journal,
    thoughts: list[dict[str, Any]] | None = None,
    changes: list[dict[str, Any]] | None = None,
    models: Models = DEFAULT_MODELS,
    config: OfficeConfig | None = None,
    policy: WakePolicy | None = None,
    early_calls: EarlyCalls | None = None,
) -> Office:
    """The office as it was saved, conversations rebuilt from messages.jsonl, caught up with the logs.

    `thoughts` (thoughts.jsonl) and `messages` hold what happened after the last save when a run
    was killed: `catch_up` applies it, so ids stay unique and no logged think is redone.
    """
    check_resumable(state)
    meta = dict(state["office"])
    scenario = Scenario.model_validate(meta["scenario"])
    employees = {d["id"]: Employee.from_dict(d) for d in _documents(state["employees"])}
    conversations = {d["id"]: ConversationState.from_dict(d) for d in _documents(state["conversations"])}
    streams = restore_streams(meta)
    for key in ("format_version", "company", "language", "now", "stop_reason"):
        meta.pop(key, None)
    end_at = meta.pop("end_at", None)
    counters = meta.pop("counters", None) or {THOUGHT: 0, MESSAGE: 0}
    company_data = meta.pop("organization", None)
    company = Company.from_dict(company_data) if company_data else Company(scenario.company)
    board = {o["id"]: Offer.from_dict(o) for o in meta.pop("board", None) or ()}
    documents = [Document.from_dict(d) for d in meta.pop("documents", None) or ()]
    office = Office(
        company=scenario.company,
        language=scenario.language,
        state=OfficeState(company, employees, conversations, counters, board, {d.key: d for d in documents}),
        llm=llm,
        clock=clock,
        streams=streams,
        journal=journal,
        config=config or config_for(scenario),
        policy=policy,
        models=models,
        meta=meta,
        stats=RunStats.from_dict(meta.pop("stats", None)),
        early_calls=early_calls,
    )
    catch_up(office, messages, thoughts or [], changes or [])
    clash = clashes(office.state.documents)  # written by an ideaco that did not refuse them yet
    if clash:
        folder, key = clash[0]
        raise ResumeError(f"documents {folder} and {key} cannot both be files: {FOLDER_CLASH}")
    journal.workspace({k: d.content for k, d in office.state.documents.items()})  # as applied says
    office.end_at = datetime.fromisoformat(end_at) if end_at else None
    return office


# --- a killed run: the logs ran ahead of the last checkpoint ----------------------------------------


def catch_up(
    office: Office,
    messages: list[dict[str, Any]],
    thoughts: list[dict[str, Any]],
    changes: Sequence[dict[str, Any]] = (),
) -> None:
    """Rebuild conversations from the logs and bring the saved state up to them.

    Records are appended as they happen and the state is saved after them (not after every one,
    see `Office.checkpoint_after_thought`), so a killed run leaves logged messages and thoughts
    the state does not know. The saved counts say where the state stopped; every record after
    them is resolved again, in simulated-time order, from what it logged under `applied`: a
    thought's steps (its posts among them) and next look, the boss's messages at their times.
    So a resume neither redoes a logged think nor forgets what one changed, and no id is
    handed out twice. The boss's commands logged after the save (changes.jsonl) are applied
    again at their times too.
    """
    stats = office.stats
    saved_messages, saved_thoughts = stats.messages, stats.thoughts
    if saved_messages > len(messages) or saved_thoughts > len(thoughts):  # logs cut by hand: no replay
        saved_messages, saved_thoughts = len(messages), len(thoughts)
    load_messages(office, messages[:saved_messages])
    later = {m["id"]: Message.from_record(m) for m in messages[saved_messages:]}
    posted_by = {mid for t in thoughts[saved_thoughts:] for mid in _posted(t)}
    logged = {t.get("id") for t in thoughts}
    events: list[tuple[datetime, int, int, dict[str, Any]]] = []
    for n, rec in enumerate(thoughts[saved_thoughts:], start=saved_thoughts):
        events.append((applied_at(rec, office.config.think_seconds), 0, n, rec))
    for n, rec in enumerate(messages[saved_messages:], start=saved_messages):
        if rec["id"] not in posted_by:  # a thought's own posts are posted when it is resolved again
            events.append((datetime.fromisoformat(rec["at"]), 1, n, rec))
    saved_changes = min(int(office.meta.get("changes") or 0), len(changes))
    for n, rec in enumerate(changes[saved_changes:], start=saved_changes):
        if change_log.replayed_by_catch_up(rec):
            events.append((datetime.fromisoformat(rec["at"]), 2, n, rec))
    office.meta["changes"] = len(changes)
    for at, kind, n, rec in sorted(events, key=lambda e: e[:3]):
        try:
            with office.replaying(at):
                if kind == 0:
                    _replay_thought(office, rec, later, n)
                elif kind == 2:
                    steps = [step_from_record(s) for s in rec.get("steps") or ()]
                    _held_to_the_rules(office, steps, CHANGES, n)
                    office.apply_logged(rec)
                else:
                    _replay_message(office, later[rec["id"]], logged)
        except (
            KeyError,
            TypeError,
            ValueError,
            AttributeError,
            IndexError,
        ) as exc:  # the line's, not the state's
            if isinstance(exc, ResumeError):  # already says which line, and why
                raise
            raise ReplayError(LOGS[kind], n, _problem(exc)) from None
    for rec in messages[saved_messages:]:
        index = _script_index(rec.get("id"))
        if index is not None:  # a script line posted after the last save is not posted again
            office.script_next = max(office.script_next, index)

    # Ids: the highest one in any log, whatever the last save said.
    thought_ids = [serial_number(t.get("id"), THOUGHT) for t in thoughts]
    thought_ids += [serial_number(thought_of(m.get("id")), THOUGHT) for m in messages]
    office.state.counters[THOUGHT] = max([office.state.counters.get(THOUGHT, 0), *filter(None, thought_ids)])
    message_ids = [serial_number(m.get("id"), MESSAGE) for m in messages]
    office.state.counters[MESSAGE] = max([office.state.counters.get(MESSAGE, 0), *filter(None, message_ids)])
    _recount(office, messages, thoughts)


def _problem(exc: Exception) -> str:
    if isinstance(exc, KeyError):
        return f"{exc.args[0]!r} is not known" if exc.args else "a missing part"
    text = str(exc).strip().splitlines()
    return text[0] if text else exc.__class__.__name__


def _posted(record: dict[str, Any]) -> list[str]:
    """The messages a logged thought posted: its drafts, and the engine's notices for it."""
    steps = (record.get("applied") or {}).get("steps") or ()
    notices = [s["posted"] for s in steps if s.get("step") == StepKind.NOTICE]
    return [*(record.get("messages") or ()), *notices]


def load_messages(office: Office, records: list[dict[str, Any]]) -> None:
    """Rebuild conversations' recent windows from messages.jsonl (on resume): posted already, not again."""
    for rec in records:
        message = Message.from_record(rec)
        if not office.wakes.remember(message.id):
            continue
        _open_dm_of(office, message.conversation)
        conv = office.state.conversations.get(message.conversation)
        if conv is not None:
            conv.add(message)


def _open_dm_of(office: Office, conv_id: str) -> None:
    """A DM the saved state missed (opened after the last save): opened as the office opens one."""
    members = dm_members(conv_id)
    if conv_id in office.state.conversations or members is None:
        return
    pair = sorted(members[:2])
    office.state.conversations[conv_id] = ConversationState(
        id=conv_id, kind=ConversationKind.DM, name=" & ".join(office.name_of(p) for p in pair), members=pair
    )


def _replay_message(office: Office, message: Message, logged_thoughts: set[Any]) -> None:
    conv_id = message.conversation
    _open_dm_of(office, conv_id)
    conv = office.state.conversations.get(conv_id)
    if conv is None:
        return
    emp = office.state.employees.get(message.sender)
    if emp is not None and thought_of(message.id) not in logged_thoughts:
        # Killed between its post and its thought's record: the sender had read up to here.
        emp.desk.cursors[conv_id] = max(emp.desk.cursors.get(conv_id, 0), conv.count)
    office.post(message)


def _replay_thought(office: Office, rec: dict[str, Any], posts: dict[str, Message], index: int) -> None:
    """Resolve a logged thought again (the office is replaying at its finish)."""
    if (
        rec.get("employee") not in office.state.employees
        or rec.get("conversation") not in office.state.conversations
    ):
        return
    if "applied" not in rec:
        raise ResumeError(
            f"thought {rec.get('id')} has no `applied` record: it was logged by an older ideaco"
        )
    result = result_from_record(rec)
    _held_to_the_rules(office, result.steps, THOUGHTS, index)
    office.resolve(result, posts=posts)


def _held_to_the_rules(office: Office, steps: list[Step], log: str, index: int) -> None:
    """A caught-up record's steps pass the rules their live twins did, or the resume is refused."""
    why = logged.forged(office.state, steps)
    if why is not None:
        raise ForgedLine(log, index, why)


def _recount(office: Office, messages: list[dict[str, Any]], thoughts: list[dict[str, Any]]) -> None:
    """The run's counts as the logs hold them (what summary.json reports)."""
    errors = office.stats.errors
    office.stats = RunStats(errors=errors)
    office.stats.messages = len(messages)
    for t in thoughts:
        office.stats.count(t)


def _script_index(ident: object) -> int | None:
    """`script-3` -> 3: the number of script lines posted up to and including this one."""
    return script_line_number(ident)
