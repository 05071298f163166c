"""The boss's own commands, decided on a scratch copy like a think: an organization tool (`/hire`,
`/dismiss`, ...) and the sign-off a `/approve req-<n>` or `/reopen req-<n> NOTES` line gives. Each returns its outcome and
its steps as values; `resolve/apply.py` lands them and logs them in changes.jsonl.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import regex

from ideaco.ids import boss_chat_owner, boss_conversation_id
from ideaco.kinds import BOSS_VERDICTS, Verdict
from ideaco.office.core.company import UNSIGNED, WAITING, BossVerdict, requirements_of
from ideaco.office.core.refusal import Refusal
from ideaco.office.core.state import OfficeState
from ideaco.office.core.steps import OweStep, Step
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.tools import requirements
from ideaco.office.decide.tools.org import ToolContext, ToolResult, run_tool


def tool(
    state: OfficeState, company: str, name: str, args: dict[str, Any], now: datetime, stamina: bool
) -> tuple[ToolResult, list[Step]]:
    """An organization tool the boss called directly: its outcome and the steps it takes (none if refused)."""
    scratch = Scratch(state)
    outcome = run_tool(scratch, name, args, ToolContext(company, now, stamina))
    steps: list[Step] = scratch.take(now)
    steps += [OweStep(employee, owed) for employee, owed in outcome.owed]
    return outcome, steps


def approval(state: OfficeState, text: str, now: datetime) -> tuple[BossVerdict, list[Step]] | None:
    """The boss's verdict a line `/approve req-<n>` or `/reopen req-<n> NOTES` gives and the steps
    that apply it (none if the requirement is not waiting for the boss); None for any other line.
    Only the boss's own line decides a requirement: a lead's `sign_off` only asks (issue 37)."""
    verdict = requirements.boss_verdict(text)
    if verdict is None:
        return None
    scratch = Scratch(state)
    outcome = requirements.sign_off(scratch, verdict.requirement, verdict.verdict, verdict.notes, now)
    if isinstance(outcome, Refusal):
        return verdict, []
    steps: list[Step] = scratch.take(now)
    steps += [OweStep(employee, owed) for employee, owed in outcome[1]]
    return verdict, steps


def sign_off_line(state: OfficeState, room: str, verdict: str, notes: str = "") -> tuple[str, str] | Refusal:
    """Where the boss's `/approve` or `/reopen` of `room` is written (its lead's boss chat, so the
    lead reads it) and the line, or why it cannot be: the chat's `/approve`, `/reopen` and the
    Python API's `approve`, `reopen` (issue 37)."""
    room = room.strip().lower()
    notes = " ".join(notes.split())
    if verdict not in BOSS_VERDICTS:
        return Refusal(f"a requirement is approved or reopened, not {verdict!r}")
    status = state.company.signoffs.get(room)
    if status not in WAITING:
        known = room in state.company.signoffs or room in state.conversations
        why = f"it is {status or UNSIGNED}" if known else "no such requirement"
        return Refusal(
            f"{room} is not a requirement waiting for your sign-off ({why}; /requirement lists them)"
        )
    if verdict == Verdict.REOPEN and not notes:
        return Refusal(f"say what to rework: /reopen {room} NOTES")
    lead = requirements.lead_of_room(Scratch(state), room)
    if lead is None:
        return Refusal(f"{room} has no lead to tell")
    return boss_conversation_id(lead), f"/{verdict} {room}" + (f" {notes}" if notes else "")


# Words that read like a boss approving, in the languages people run offices in: they never approve
# anything (only `/approve` does), so the chat shows the command when they meet a waiting requirement.
_APPROVING = regex.compile(
    r"(?<!\p{L})(?:approv\w*|lgtm|looks good|ship it|sign(?:ed)? (?:it )?off|accept\w*|good to go|go ahead"
    r"|okay|ok|freigegeben|genehmigt|aprobad[oa]|approuvé|одобр\w*|принят\w*)(?!\p{L})"
    r"|批准|通过|同意|没问题|可以了|承認|承认|了解です|승인|좋습니다|स्वीकृत|मंज़ूर|मंजूर",
    regex.IGNORECASE,
)


def sign_off_hint(state: OfficeState, conversation: str, text: str) -> str | None:
    """The line the chat shows when the boss's own words in a lead's boss chat read like approval
    of a requirement waiting for the boss there: words do not approve it, the command does."""
    lead = boss_chat_owner(conversation)
    if lead is None or requirements.boss_verdict(text) is not None or not _APPROVING.search(text):
        return None
    emp = state.employees.get(lead)
    dept = state.company.departments.get(emp.department or "") if emp is not None else None
    if dept is None or dept.lead != lead:
        return None
    waiting = requirements_of(state.company, state.conversations, dept.id, WAITING)
    if not waiting:
        return None
    room = waiting[0]
    return f"your words do not approve {room}: type /approve {room} (or /reopen {room} NOTES)"
