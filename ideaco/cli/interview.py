"""`ideaco interview RUNDIR EMPLOYEE "question"` (or `--all "question"`): an answer in character.

The run is only read: the minds come from the run directory as they were at its end (or `--at`),
the answer from one model call each, and nothing is written into the run directory.
"""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ideaco.cli.display import cli_console, safe_text
from ideaco.cli.errors import UserError, warn
from ideaco.errors import IdeacoError
from ideaco.ids import resolve_id
from ideaco.interview import (
    Answer,
    InterviewError,
    ask_everyone,
    employee_model,
    interviewees,
    parse_at,
    staff,
)
from ideaco.llm.base import LLMError
from ideaco.llm.config import model_for
from ideaco.office.rules.config import config_for
from ideaco.scenario import Scenario
from ideaco.session import ModelOptions, open_llm, resolve_model_settings
from ideaco.store.runlog import RunLog, RunLogError


@dataclass
class InterviewOptions:
    rundir: Path
    words: list[str]  # [EMPLOYEE, QUESTION], or [QUESTION] with --all
    everyone: bool
    at: str | None
    as_json: bool
    model: ModelOptions


def interview_command(options: InterviewOptions, console: Console | None = None) -> int:
    if options.everyone and len(options.words) != 1:
        raise UserError('with --all give one QUESTION: ideaco interview RUNDIR --all "question"')
    if not options.everyone and len(options.words) != 2:
        raise UserError('give an EMPLOYEE and a QUESTION: ideaco interview RUNDIR dan "question"')
    question = options.words[-1].strip()
    if not question:
        raise UserError("the question is empty")
    try:
        run = RunLog.open(options.rundir)
    except RunLogError as exc:
        raise UserError(str(exc)) from None
    warn(run.warnings)
    try:
        at = parse_at(options.at, run.start.date()) if options.at else None
    except InterviewError as exc:
        raise UserError(str(exc)) from None
    if at is not None and not run.start <= at <= run.end:
        raise UserError(f"--at {options.at!r}: the run covers {run.start:%Y-%m-%d %H:%M} to {run.end:%H:%M}")
    try:
        people = interviewees(run, at)
        scenario = Scenario.model_validate(run.office["scenario"])
    except InterviewError as exc:
        raise UserError(str(exc)) from None
    except (KeyError, ValueError) as exc:
        raise UserError(f"{options.rundir}: no scenario in its state ({exc})") from None
    if options.everyone:
        people = staff(people)
    else:
        who = _resolve(options.words[0], {e: p.me.name for e, p in people.items()})
        people = {who: people[who]}
    settings = resolve_model_settings(options.model, scenario)
    stack = open_llm(
        options.model, settings, lambda line: Console(stderr=True).print(Text(line, style="dim"))
    )

    async def go() -> list[Answer]:
        try:
            return await ask_everyone(
                stack.llm,
                people,
                [question],
                at or run.end,
                company=run.company,
                language=str(run.office.get("language") or "en"),
                model_for=lambda e: model_for(settings, employee_model(run, e), options.model.model),
                temperature=config_for(scenario).temperature,
            )
        finally:
            await stack.llm.aclose()

    try:
        answers = asyncio.run(go())
    except (LLMError, IdeacoError) as exc:
        raise UserError(str(exc).splitlines()[0]) from None
    finally:
        stack.close()
    if options.as_json:
        sys.stdout.write(json.dumps([a.to_dict() for a in answers], ensure_ascii=False, indent=2) + "\n")
        return 0
    console = console or cli_console()
    when = f"at {at:%H:%M}" if at else "at the end of the run"
    console.print(Text(f"Q ({when}): {safe_text(question)}", style="bold"))
    for a in answers:
        console.print(Text.assemble((f"{safe_text(a.name)}: ", "bold"), safe_text(a.answer)))
    return 0


def _resolve(text: str, known: dict[str, str]) -> str:
    """An employee by id, or by id or name in any case (`ids.resolve_id`)."""
    found = resolve_id(text, known)
    if isinstance(found, str):
        return found
    if found:
        raise UserError(f"{text!r} could be any of {', '.join(sorted(found))}")
    listed = ", ".join(f"{i} ({n})" for i, n in sorted(known.items()))
    raise UserError(f"no employee {text!r} in this run (employees: {listed})")
