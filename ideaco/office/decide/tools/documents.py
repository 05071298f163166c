"""The document tools of a thought's `actions` (issue 20), on the think's scratch copy.

`write_document`, `revise_document`, `read_document`, `request_review`, `review` and `rebut`
work in the employee's department's workspace by the rules of `rules/documents.py`. Each call is
a `tool` step (done, or refused with the reason the employee reads in its next thought), and what
it changed follows as steps: the document (its whole content, so `applied` rebuilds the
workspace), the minds a review moves (stamina, the reviewer's feeling toward the author, an
impression after a second rejection in a row, the piece's task), and the thinks it owes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from ideaco import skills
from ideaco.agents.command import AgentOutcome
from ideaco.cycle import Owed, Trigger
from ideaco.ids import BOSS, display_name, dm_conversation_id, signoff_id
from ideaco.kinds import ToolName, Verdict
from ideaco.mind import memory, relationships, stamina, tasks
from ideaco.mind.apply import report_note
from ideaco.mind.thought.model import Action, RelationshipOp, TaskOp
from ideaco.office.core.company import REPORTED, Company
from ideaco.office.core.documents import APPROVED, FAILED, Document, find
from ideaco.office.core.refusal import Refusal
from ideaco.office.core.state import Employee
from ideaco.office.core.steps import Step, ToolStep
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.tools import requirements
from ideaco.office.perceive.document_tools import READ_MARK, TOOLS
from ideaco.office.perceive.view import OfficeView
from ideaco.office.rules import documents as rules
from ideaco.office.rules.text import STRICT

FEELING_STEP = 6  # a reviewer's affinity toward the author, per verdict
IMPRESSION = "deliverables repeatedly fail; doubts about {path}"

Owing = list[tuple[str, Owed]]


class Thinking(Protocol):
    """The think a call is made in (thinking.ThinkContext)."""

    employee: str
    thought_id: str
    conversation: str
    read_upto: int  # the conversation's messages this think reads
    at: datetime  # when it began: the documents its prompt showed are the versions of then


@dataclass
class Called:
    """What one document tool call did, as values: its tool step and what it changed (`steps`), the
    notes for the thought's corrections, and the thinks it owes (who, what), for the caller to place."""

    steps: list[Step] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)
    owing: Owing = field(default_factory=list)
    notices: list[Step] = field(default_factory=list)  # lines it posts (a sign-off's request)


def act(
    office: OfficeView,
    scratch: Scratch,
    ctx: Thinking,
    action: Action,
    where: str,
    now: datetime,
    *,
    made: AgentOutcome | None = None,
) -> Called:
    """One document tool call (another tool is dropped, said in the corrections). `made`: what an
    agent employee's command gave for this write (`agent_work.py`), which replaces its content."""
    called = Called()
    if action.tool not in TOOLS:
        called.corrections.append(f"{where}: unknown tool {action.tool!r}, dropped")
        return called
    employee = ctx.employee
    args, by, refused = action.args, "", None
    if made is not None and made.ok:
        args, by = {**args, "content": made.content}, f" (content by the agent command's {made.source})"
    elif made is not None and made.ran:  # the command failed: its reason is the tool's refusal
        refused = Refusal(made.reason)
    elif made is not None:  # not allowed: the chat model's words, and what would have run
        called.corrections.append(f"{where}: {made.reason}")
    # The model's own words people will read are held to the text rules; an agent command's are its own.
    own = made is None or not made.ok
    unfit = rules.unfit_text(action.tool, args, office.config.filters) if own else None
    outcome = (
        refused
        or unfit
        or _call(office, scratch, scratch.employees[employee], action.tool, args, ctx, now, called)
    )
    ok = not isinstance(outcome, Refusal)
    message = f"{outcome}{by}" if ok else f"{action.tool} refused: {outcome.reason}"
    if not ok:  # the employee reads why in its next thought
        scratch.employee(employee).mind.notes.append(str(message))
    called.steps = [ToolStep(action.tool, ok, str(message)), *scratch.take(now), *called.notices]
    return called


def _call(
    office: OfficeView,
    scratch: Scratch,
    emp: Employee,
    tool: str,
    args: dict[str, Any],
    ctx: Thinking,
    now: datetime,
    called: Called,
) -> str | Refusal:
    department, thought, owing = emp.department, ctx.thought_id, called.owing
    if department is None or department not in scratch.company.departments:
        return Refusal("you belong to no department, so you have no workspace")
    if tool == ToolName.SIGN_OFF:
        return _sign_off(scratch, emp, ctx, args, now, called.notices)
    path = path_of(args, department)
    if tool in MAKES and (refused := makeable(scratch.documents, scratch.company, emp, tool, args)):
        return refused
    if tool == ToolName.WRITE_DOCUMENT:
        task = str(args.get("task") or "").strip() or _delivering(emp, path)
        doc = rules.write(
            scratch.documents, department, path, args.get("content"), emp.id, now, thought, task
        )
        return _set(scratch, doc, tool, lambda d: f"wrote {d.path} (version {d.version})")
    doc = find(scratch.documents, department, path)  # the same document, case aside
    if doc is None:
        return Refusal(f"no document {path!r} in your department's workspace")
    key = doc.key
    if tool == ToolName.READ_DOCUMENT:
        scratch.employee(emp.id).mind.notes.append(READ_MARK + key)
        return f"{doc.path} (version {doc.version}) is quoted in your next thought"
    if tool == ToolName.REVISE_DOCUMENT:
        new = rules.revise(doc, args.get("content"), str(args.get("base") or ""), emp.id, now, thought)
        return _set(scratch, new, tool, lambda d: f"revised {d.path} (version {d.version})")
    if tool == ToolName.REQUEST_REVIEW:
        return _request(scratch, doc, emp, owing)
    if tool == ToolName.REVIEW:
        return _review(office, scratch, doc, emp, args, ctx.at, now, owing)
    new = rules.rebut(doc, emp.id, str(args.get("argument") or ""))
    if not isinstance(new, Refusal) and new.review is not None:
        note = (
            f"{emp.name} rebuts your rejection of {doc.path}; the argument is quoted in Documents. Read it, "
            "then give your verdict again with review."
        )
        _owe_read(scratch, new.review.reviewer, emp.id, new, note, owing)
    return _set(scratch, new, tool, lambda d: f"rebutted the review of {d.path}")


MAKES = (
    ToolName.WRITE_DOCUMENT,
    ToolName.REVISE_DOCUMENT,
)  # the calls whose content an agent's command makes


def written_by(
    documents: Mapping[str, Document],
    company: Company,
    emp: Employee,
    actions: list[Action],
    made: Mapping[int, AgentOutcome],
    filters: str = STRICT,
) -> set[str]:
    """The paths a thought's `write_document` calls write: each call no check refuses whose content
    (an agent command's, when one made it: `made`, by action index) is fit to be a document (the
    model's own content also by the text rules under the run's `filters`)."""
    out: set[str] = set()
    for i, action in enumerate(actions):
        outcome = made.get(i)
        if (
            action.tool != ToolName.WRITE_DOCUMENT
            or emp.department is None
            or (outcome and outcome.ran and not outcome.ok)
        ):
            continue
        content = outcome.content if outcome and outcome.ok else action.args.get("content")
        own = not (outcome and outcome.ok)  # the model's words, not an agent command's
        if (
            makeable(documents, company, emp, action.tool, action.args) is None
            and isinstance(rules.check_content(content), str)
            and not (own and rules.unfit_text(action.tool, action.args, filters))
        ):
            out.add(path_of(action.args, emp.department))
    return out


def path_of(args: dict[str, Any], department: str) -> str:
    """The path a document call names, inside its department's workspace."""
    return str(args.get("path") or "").strip().removeprefix(f"{department}/")


def makeable(
    documents: Mapping[str, Document], company: Company, emp: Employee, tool: str, args: dict[str, Any]
) -> Refusal | None:
    """Why a write or revise call would be refused whatever its content (None: some content would
    do): every check but the content's, so an agent's command runs only for a call that can
    succeed (`engine/agent_work.py`), and the call itself is refused for the same reason."""
    department = emp.department
    if department is None or department not in company.departments:
        return Refusal("you belong to no department, so you have no workspace")
    path = path_of(args, department)
    if tool == ToolName.WRITE_DOCUMENT:
        task = str(args.get("task") or "").strip() or _delivering(emp, path)
        if task is not None and task not in {t.id for t in emp.mind.pending_tasks}:
            return Refusal(f"{task!r} is not one of your open tasks")
        checked = rules.writable(dict(documents), department, path)
        return checked if isinstance(checked, Refusal) else None
    doc = find(documents, department, path)
    if doc is None:
        return Refusal(f"no document {path!r} in your department's workspace")
    return rules.revisable(doc, str(args.get("base") or ""), emp.id)


def _delivering(emp: Employee, path: str) -> str | None:
    """The open task of `emp` that names this document, if one does."""
    return next((t.id for t in emp.mind.pending_tasks if t.document == path), None)


def _sign_off(
    scratch: Scratch, emp: Employee, ctx: Thinking, args: dict[str, Any], now: datetime, notices: list[Step]
) -> str | Refusal:
    """The lead asks the boss to sign off a requirement of its department that it reported done:
    a line in its boss chat of what was delivered and the boss's two commands. It never approves
    or reopens anything: only the boss's `/approve` or `/reopen` does (issue 37)."""
    room = str(args.get("requirement") or "").strip()
    dept = scratch.company.departments.get(emp.department or "")
    if dept is None or lead_of(scratch, dept.id) != emp.id:
        return Refusal("only a department's lead asks the boss to sign off its requirements")
    conv = scratch.conversations.get(room)
    if room in scratch.company.signoffs and (conv is None or conv.department != dept.id):
        return Refusal(f"{room!r} is not a requirement of your department ({dept.id}); its own lead asks")
    outcome = requirements.request(scratch, emp.id, room, signoff_id(ctx.thought_id), now)
    if isinstance(outcome, Refusal):
        return outcome
    message, notice = outcome
    notices.append(notice)
    return message


def _set(scratch: Scratch, doc: Document | Refusal, tool: str, done: Any) -> str | Refusal:
    if isinstance(doc, Refusal):
        return doc
    scratch.set_document(doc, tool)
    return done(doc)


def lead_of(scratch: Scratch, department: str) -> str | None:
    dept = scratch.company.departments.get(department)
    if dept is None:
        return None
    return dept.lead or next(iter(dept.members), None)


def _request(scratch: Scratch, doc: Document, emp: Employee, owing: Owing) -> str | Refusal:
    dept = scratch.company.departments[doc.department]
    staff = [m for m in dept.members if m in scratch.employees and not scratch.employees[m].dismissed]
    task = next((t.description for t in emp.mind.tasks if t.id == doc.task), "")
    piece = f"review {doc.path} {task}"  # a member whose skills fit it ("code-review") is named
    skilled = [m for m in staff if skills.fits(skills.names_of(scratch.employees[m].persona), piece)]
    lead = lead_of(scratch, doc.department)
    reviewer = doc.review.reviewer if doc.review else None
    if reviewer not in staff:  # none yet, or one who has left: whom a first request would name
        reviewer = rules.reviewer_for(emp.id, lead, staff, skilled)
    new = rules.request_review(doc, emp.id, reviewer)
    if isinstance(new, Refusal) or new.review is None:
        return new
    note = (
        f"{emp.name} asks you to review {doc.path} (version {new.version}); it is quoted below. Judge it "
        "with review {path, verdict: approve|reject, notes}."
    )
    _owe_read(scratch, new.review.reviewer, emp.id, new, note, owing)
    scratch.set_document(new, ToolName.REQUEST_REVIEW)
    return f"asked {scratch.employees[new.review.reviewer].name} to review {doc.path}"


def _owe_read(scratch: Scratch, who: str, other: str, doc: Document, note: str, owing: Owing) -> None:
    """`who` thinks soon in its DM with `other`, the document quoted in its prompt."""
    scratch.employee(who).mind.notes.append(READ_MARK + doc.key)
    owing.append((who, Owed(dm_conversation_id(who, other), Trigger.SYSTEM, note)))


def _review(
    office: OfficeView,
    scratch: Scratch,
    doc: Document,
    emp: Employee,
    args: dict[str, Any],
    began: datetime,
    now: datetime,
    owing: Owing,
) -> str | Refusal:
    decision = str(args.get("verdict") or "").strip().lower()
    lead = lead_of(scratch, doc.department)
    read = rules.version_at(doc, began) or ""  # the version this think's prompt showed
    notes, rounds = str(args.get("notes") or ""), office.config.review_rounds
    new = rules.verdict(doc, emp.id, decision, notes, rounds, lead, read)
    if isinstance(new, Refusal) and read != doc.version and doc.review and doc.review.reviewer == emp.id:
        scratch.employee(emp.id).mind.notes.append(READ_MARK + doc.key)  # the version now, quoted next
    if isinstance(new, Refusal) or new.review is None:
        return new
    scratch.set_document(new, ToolName.REVIEW)
    review, author = new.review, doc.author
    feelings, memories = office.config.switches.relationships, office.config.switches.memory  # an ablation's
    if feelings:
        _feel(
            scratch, emp.id, author, +FEELING_STEP if decision == Verdict.APPROVE else -FEELING_STEP, now, ""
        )
    if review.status == APPROVED:
        _stamina(office, scratch, author, "review_passed")
        _task(office, scratch, author, doc.task, "resolve", f"{doc.path} approved by {emp.name}", now, owing)
        note = f"{emp.name} approved {doc.path}. Tell whoever waits for it."
        owing.append((author, Owed(dm_conversation_id(author, emp.id), Trigger.SYSTEM, note)))
        return f"approved {doc.path}"
    if review.status == FAILED:  # the lead's final word, or the last of the rounds
        _task(office, scratch, author, doc.task, "fail", f"{doc.path} rejected by {emp.name}", now, owing)
        note = f"{emp.name} rejected {doc.path} for good: its reviews are spent. Tell whoever waits for it."
        owing.append((author, Owed(dm_conversation_id(author, emp.id), Trigger.SYSTEM, note)))
        return f"rejected {doc.path} for good"
    _stamina(office, scratch, author, stamina.review_rejected(review.round))
    if (
        review.streak >= 2 and feelings
    ):  # a second rejection in a row: the reviewer's view of the author sours
        _feel(scratch, emp.id, author, 0, now, IMPRESSION.format(path=doc.path))
    if review.streak >= 2 and memories:
        mine = scratch.employee(emp.id).mind
        memory.add(
            mine.memory,
            kind="long_term",
            content=f"{_name(scratch, author)}'s {doc.path} failed review again",
            category="experience",
            importance=6,
            now=now,
        )
    note = (
        f"{emp.name} rejected {doc.path} (rejection {review.round} of {office.config.review_rounds}); the "
        f"notes are quoted in Documents. Revise it (revise_document with base {doc.version}) or rebut it."
    )
    _owe_read(scratch, author, emp.id, new, note, owing)
    if review.final:
        lead_note = f"The reviews of {doc.path} are spent: as its lead you decide, with review."
        _owe_read(scratch, review.reviewer, author, new, lead_note, owing)
    return f"rejected {doc.path}"


def _name(scratch: Scratch, who: str) -> str:
    emp = scratch.employees.get(who)
    return display_name(who, emp.name if emp else None)


def _stamina(office: OfficeView, scratch: Scratch, who: str, event: str) -> None:
    if office.config.switches.stamina and who in scratch.employees:
        mind = scratch.employee(who).mind
        mind.stamina = stamina.apply(mind.stamina, event)
        scratch.stamina_event(who, event)


def _feel(scratch: Scratch, who: str, toward: str, step: int, now: datetime, impression: str) -> None:
    """`who`'s affinity toward `toward` moves `step` (within the usual bounds); an impression if given."""
    mind = scratch.employee(who).mind
    current = relationships.affinity_of(mind.relationships, toward, now)
    op = RelationshipOp(employeeId=toward, affinity=round(current) + step, impression=impression)
    old = mind.relationships.get(toward)
    if not impression and old is not None:
        op = op.model_copy(update={"impression": old.impression})
    relationships.apply_ops(mind.relationships, [op], now, self_id=who, people=scratch.people())


def _task(
    office: OfficeView,
    scratch: Scratch,
    who: str,
    task_id: str | None,
    op: str,
    result: str,
    now: datetime,
    owing: Owing,
) -> None:
    """The piece's task resolved (or failed) with the review's outcome; a resolve owes its report."""
    emp = scratch.employees.get(who)
    if task_id is None or emp is None or task_id not in {t.id for t in emp.mind.pending_tasks}:
        return
    mind = scratch.employee(who).mind
    done = tasks.apply_ops(
        mind.tasks,
        [TaskOp(op=op, taskId=task_id, result=result)],
        now,
        owner=who,
        origin=tasks.SELF,
        new_id=lambda: "",
        claims={},
        conversations=(),
        employees=scratch.employees.keys(),
        people=scratch.people(),
    )
    for task in done.resolved:
        _stamina(office, scratch, who, "task_complete")
        owing.append((who, Owed(tasks.report_target(task), Trigger.ON_RESOLVE, report_note(task))))
        room = task.requirement
        if room and task.origin != BOSS and requirements.pieces_done(scratch, room):
            whole = requirements.requirement_task(scratch, room)
            if whole is not None:  # every piece approved: the requirement is done, the lead reports it
                scratch.edit_company().signoffs[room] = REPORTED
                result = requirements.done_result(scratch, room)
                _task(office, scratch, whole.owner, whole.id, "resolve", result, now, owing)
    for _ in done.failed:
        _stamina(office, scratch, who, "task_fail")
