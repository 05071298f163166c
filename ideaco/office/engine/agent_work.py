"""Agent employees' documents (issue 20, item 6), made when their think finishes and before it is decided.

When a thought of an employee with an `agent:` command writes or revises a document, the
command makes the content: `prepare` asks `office.agent_work.llm` (`agents/runner.py`) for each such
action, with the department's files as they are at the think's moment, and keeps the outcome on
the think (`ThinkContext.agent`, by action index). `documents.act` then writes the command's
content, or refuses with its reason. The call is awaited like a model call, so the office's
other calls go on while the command runs; on simulated time nothing else happens in the office
meanwhile, so the run is the same however long the command takes. Without --allow-agent-commands nothing
runs (its `llm` is None): the chat model's content is written and the thought's corrections
say what would have run. A replay's `AgentWork.llm` answers from the recording.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ideaco.agents import runner, scratch
from ideaco.agents.command import MAX_STDIN_DOCS, AgentOutcome, AgentSpec, would_have_run
from ideaco.kinds import ToolName
from ideaco.llm.base import LLM, LLMError, ReplayMiss
from ideaco.office.core.documents import find
from ideaco.office.core.state import Employee
from ideaco.office.core.think import ThinkContext
from ideaco.office.decide.tools.documents import MAKES, makeable, path_of
from ideaco.office.engine.calls import Calls
from ideaco.office.perceive.view import OfficeView
from ideaco.redact import NO_SECRETS, Secrets

if TYPE_CHECKING:
    from ideaco.llm.factory import LLMStack


@dataclass
class AgentWork:
    """What answers an office's agent requests: None (nothing runs), the commands, or a replay."""

    llm: LLM | None = None

    @classmethod
    def for_run(cls, allowed: bool, stack: LLMStack, secrets: Secrets = NO_SECRETS) -> AgentWork:
        """A run's: a replay answers from its recording (running nothing); a live run runs the
        commands if allowed (kept from the run's `secrets`), each outcome recorded beside the
        model's answers with --record."""
        if stack.replayed is not None:
            return cls(stack.replayed)
        if not allowed:
            return cls(None)
        scratch.remove_stale()  # what commands of a killed run left in the temp folder
        commands = runner.CommandLLM(secrets)
        return cls(stack.recorder.beside(commands) if stack.recorder is not None else commands)

    async def prepare(self, office: OfficeView, ctx: ThinkContext, calls: Calls) -> bool:
        """The think's agent work (`prepare`), among the `calls` in flight: a stop cuts it with
        them (its commands killed) and waits for it. False if it was cut: the think is then left
        undecided, owed again on resume like one whose model call a stop cut."""
        if office.config.agents.get(ctx.employee) is None:
            return True
        work = asyncio.ensure_future(prepare(office, ctx, self.llm))
        calls.track(work)
        try:
            await asyncio.wait({work})  # cancelling the work (a stop) is not cancelling this think
        except asyncio.CancelledError:
            work.cancel()
            raise
        if work.cancelled():
            return False
        work.result()  # its own failure, if any, is this think's
        return True


async def prepare(office: OfficeView, ctx: ThinkContext, llm: LLM | None) -> None:
    """Each document write of the finished think's thought, made by the employee's command."""
    spec = office.config.agents.get(ctx.employee)
    call = ctx.call
    if spec is None or not call.done() or call.cancelled() or call.exception() is not None:
        return
    thought = call.result().value
    emp = office.state.employees.get(ctx.employee)
    if thought is None or emp is None or emp.department is None:
        return
    for i, action in enumerate(thought.actions):
        if action.tool not in MAKES:
            continue
        if makeable(office.state.documents, office.state.company, emp, action.tool, action.args):
            continue  # refused whatever the content (a bad path, a stale base): the command is not run
        ctx.agent[i] = await _make(office, emp, spec, action.tool, action.args, ctx, llm)


async def _make(
    office: OfficeView,
    emp: Employee,
    spec: AgentSpec,
    tool: str,
    args: dict[str, Any],
    ctx: ThinkContext,
    llm: LLM | None,
) -> AgentOutcome:
    if llm is None:
        return would_have_run(spec.command)
    path = path_of(args, str(emp.department))
    files = {d.path: d.content for d in office.state.documents.values() if d.department == emp.department}
    piece, documents = brief(office, emp, tool, args, path, ctx.conversation)
    request = runner.request_for(spec, files, piece, path, documents, f"agent {ctx.thought_id} {path}")
    try:
        return runner.outcome_of(await llm.complete(request))
    except ReplayMiss:  # the recorded run did not run it (not allowed then): as then, the chat model's
        return would_have_run(spec.command)
    except LLMError as exc:  # the --record file could not be written
        return AgentOutcome(False, None, f"the agent command's outcome is unknown: {exc}", True)


def brief(
    office: OfficeView, emp: Employee, tool: str, args: dict[str, Any], path: str, conversation: str
) -> tuple[str, dict[str, str]]:
    """What the command reads: the piece (its task, else the last words to it in the think's
    conversation; for a revision the review too), and the department's other documents."""
    named = str(args.get("task") or "").strip()
    task = next(
        (t for t in emp.mind.pending_tasks if t.id == named or (not named and t.document == path)), None
    )
    conv = office.state.conversations.get(conversation)
    asked = next((m for m in reversed(conv.recent) if m.sender != emp.id), None) if conv else None
    if task is not None:
        lines = [task.description]
    else:
        lines = [asked.text if asked is not None else f"{tool.replace('_', ' ')} {path}"]
    doc = find(office.state.documents, emp.department or "", path)
    if tool == ToolName.REVISE_DOCUMENT and doc is not None and doc.review is not None:
        review = doc.review
        lines += [
            "",
            f"Revise it after the review by {office.name_of(review.reviewer)} ({review.status}):",
            review.notes,
        ]
        if review.argument:
            lines += ["Your rebuttal:", review.argument]
    others = [d for d in office.state.documents.values() if d.department == emp.department and d.path != path]
    return "\n".join(lines), {d.path: d.content for d in others[-MAX_STDIN_DOCS:]}
