"""Interviews: ask an employee a question, in character, from its mind at the end of a run or at a moment.

Nothing of the run changes: the minds are read from the run directory (state.json at the end of
a run whose state is up to date with its logs; otherwise rebuilt from what each thought applied,
in the order it landed, up to the moment asked about), the answer comes from one model call, and
nothing is written into the run directory. Used by `ideaco interview`, `Simulation.interview` and
a sweep's `--question`.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from ideaco.ids import SECRETARY
from ideaco.kinds import StepKind
from ideaco.llm.base import LLM, ChatRequest
from ideaco.llm.structured import parse_json_lenient
from ideaco.mind import changes as mind_changes
from ideaco.mind.interview import ANSWER_CHARS, SCHEMA, Interviewee, interview_prompt
from ideaco.mind.mind import Mind
from ideaco.mind.prompt import Person
from ideaco.mind.stamina import Stamina
from ideaco.office.perceive.view import OfficeView
from ideaco.office.rules.config import Switches
from ideaco.store.runlog import MOMENT_FORMS, EmployeeRecord, RunLog, parse_moment

MAX_TOKENS = 400


class InterviewError(ValueError):
    """An interview that cannot be held (no such employee, a moment outside the run): one line."""


@dataclass(frozen=True)
class Answer:
    """One answer, and what asking cost."""

    employee: str
    name: str
    question: str
    at: str  # the simulated moment asked about
    answer: str
    prompt_tokens: int = 0
    completion_tokens: int = 0

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def parse_at(text: str, first_day: date) -> datetime:
    """`HH:MM` or `HH:MM:SS` on the run's first day, or a full ISO date-time; InterviewError if neither."""
    try:
        return parse_moment(text, first_day)
    except ValueError:
        raise InterviewError(f"--at {text!r}: give {MOMENT_FORMS}") from None


def minds_at(run: RunLog, at: datetime | None = None) -> dict[str, Mind]:
    """Every employee's mind at `at` (None: the end of the run), from the run directory alone.

    At the end, state.json's minds when the state has caught up with the logs; otherwise (a
    moment inside the run, or a killed run whose logs ran ahead of its last save) the minds are
    rebuilt from the thoughts' `applied` records and the changes between them (changes.jsonl),
    each that landed by `at`, in order.
    """
    saved = (run.office.get("stats") or {}).get("thoughts")
    if at is None and (saved == len(run.thoughts) or not run.has_applied):
        return {e.id: Mind.from_dict(e.mind) for e in run.employees}
    if not run.has_applied:
        raise InterviewError(f"{run.path}: a run of state format 1 logs no applied changes: ask at its end")
    joined = {
        step["id"]
        for rec in (*run.thoughts, *run.changes)
        for step in (rec.get("applied") or rec).get("steps") or ()
        if step.get("step") == StepKind.EMPLOYEE and step.get("joined")
    }
    minds = {e.id: Mind() for e in run.employees if e.id not in joined}
    for landed in run.landed():
        if at is not None and landed.at > at:
            break
        rec = landed.record
        applied = rec["applied"] if landed.thought else rec
        began, mind = applied.get("began") or {}, minds.get(rec.get("employee") or "")
        if mind is not None and began.get("stamina"):
            mind.stamina = Stamina.from_dict(began["stamina"])
        if mind is not None and began.get("notes"):
            mind.notes = []
        for step in applied.get("steps") or ():
            if step.get("step") == StepKind.EMPLOYEE and step.get("joined"):
                minds[step["id"]] = Mind.from_dict(step["joined"].get("mind") or {})
            elif step.get("step") == StepKind.MIND and step["employee"] in minds:
                mind_changes.apply(minds[step["employee"]], mind_changes.MindChanges.from_record(step))
    return minds


def interviewees(run: RunLog, at: datetime | None = None) -> dict[str, Interviewee]:
    """Who can be asked at `at`: everyone working there then (dismissed ones too: they remember)."""
    switches = Switches.from_dict(run.office.get("switches"))
    names = run.names
    people: dict[str, EmployeeRecord] = {e.id: e for e in run.employees}
    out = {}
    for eid, mind in minds_at(run, at).items():
        emp = people.get(eid)
        if emp is None:
            continue
        out[eid] = Interviewee(
            me=Person(emp.id, emp.name, emp.role),
            age=_age(run, eid),
            persona=switches.persona_of(emp.persona),
            mind=mind,
            names=names,
        )
    return out


def staff(people: dict[str, Interviewee]) -> dict[str, Interviewee]:
    """Whom "everyone" means (`--all`, `interview_all`): the employees, not the secretary, the
    boss's assistant (asked by its id alone)."""
    return {eid: person for eid, person in people.items() if eid != SECRETARY}


def interviewees_now(office: OfficeView) -> dict[str, Interviewee]:
    """Who a running office's interview asks: everyone working there, with a copy of their mind as it is now."""
    names = {e.id: e.name for e in office.state.employees.values()}
    persona_of = office.config.switches.persona_of
    return {
        e.id: Interviewee(Person(e.id, e.name, e.role), e.age, persona_of(e.persona), e.mind.copy(), names)
        for e in office.state.employees.values()
        if not e.dismissed
    }


def _age(run: RunLog, employee: str) -> int | None:
    return _identity(run, employee).get("age")


def employee_model(run: RunLog, employee: str) -> str | None:
    """The employee's own `model:` (None: the run's)."""
    return _identity(run, employee).get("model")


def _identity(run: RunLog, employee: str) -> dict[str, Any]:
    docs = run.state.get("employees") or ()
    for doc in docs.values() if isinstance(docs, dict) else docs:
        if isinstance(doc, dict) and doc.get("id") == employee:
            return doc
    return {}


def request_for(
    who: Interviewee,
    question: str,
    now: datetime,
    *,
    company: str,
    language: str,
    model: str,
    temperature: float,
) -> ChatRequest:
    """The model request of one question; its seed comes from who, what and when (a replay finds it)."""
    seed = zlib.crc32(f"{who.me.id}|{question}|{now.isoformat()}".encode())
    return ChatRequest(
        messages=tuple(interview_prompt(who, question, now, company=company, language=language)),
        model=model,
        max_tokens=MAX_TOKENS,
        temperature=temperature,
        json_schema=SCHEMA,
        schema_name="interview",
        seed=seed,
        tag=f"interview {who.me.id} at {now.isoformat()}",
    )


def answer_text(content: str) -> str:
    """The answer in a model's reply: its `answer` field, or the reply itself when it is not that JSON."""
    try:
        data = parse_json_lenient(content)
    except ValueError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("answer"), str):
        text = data["answer"]
    else:
        text = content
    return " ".join(text.split())[:ANSWER_CHARS]


async def ask(
    llm: LLM,
    who: Interviewee,
    question: str,
    now: datetime,
    *,
    company: str,
    language: str = "en",
    model: str,
    temperature: float = 0.8,
) -> Answer:
    """One question to one employee: one model call (LLMError goes up as it is)."""
    request = request_for(
        who, question, now, company=company, language=language, model=model, temperature=temperature
    )
    result = await llm.complete(request)
    return Answer(
        employee=who.me.id,
        name=who.me.name,
        question=question,
        at=now.isoformat(),
        answer=answer_text(result.content),
        prompt_tokens=result.usage.prompt_tokens,
        completion_tokens=result.usage.completion_tokens,
    )


async def ask_everyone(
    llm: LLM,
    people: dict[str, Interviewee],
    questions: Iterable[str],
    now: datetime,
    *,
    company: str,
    language: str,
    model_for: Callable[[str], str],
    temperature: float,
) -> list[Answer]:
    """Every question to every one of `people`, one after another (in the order given)."""
    answers = []
    for question in questions:
        for eid, who in people.items():
            answers.append(
                await ask(
                    llm,
                    who,
                    question,
                    now,
                    company=company,
                    language=language,
                    model=model_for(eid),
                    temperature=temperature,
                )
            )
    return answers
