"""One think, from its model call to a `ThinkResult`: what it did, as a value, nothing applied.

A think starts at a moment of simulated time (the office reads the conversation for it and
starts the model call); it finishes `think_seconds` later, in clock order, when `decide` turns
the model's answer into a result against the office as it is then: the thought, its drafts'
verdicts, its changes to minds, conversations and the company, the thinks it leaves owed, and
when to look next. `decide` only reads the office; `Office.resolve` applies the result.
"""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from typing import Any

from ideaco.cycle import ENGINE_TRIGGERS, Gate, Owed
from ideaco.ids import BOSS, SYSTEM, TASK, notice_id
from ideaco.kinds import ConversationKind, MessageKind
from ideaco.llm.base import BudgetExhausted, ChatResult, LLMAuthError, LLMError, ReplayMiss
from ideaco.mind import board, tasks
from ideaco.mind.apply import ThoughtFacts, apply_thought, creates_tasks
from ideaco.mind.board import Offer
from ideaco.mind.thought import Thought
from ideaco.office import rules
from ideaco.office.core.conversation import Message
from ideaco.office.core.state import ConversationState, Employee
from ideaco.office.core.steps import NoticeStep, OweAgainStep, Step
from ideaco.office.core.think import ThinkContext, ThinkResult
from ideaco.office.decide import acts
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.speech import escalates
from ideaco.office.decide.tools import documents
from ideaco.office.perceive import document_tools, reading, taskboard
from ideaco.office.perceive.view import OfficeRead, OfficeView
from ideaco.office.rules import labels, levers, text

SUPERSEDED_NOTE = (
    "While you were thinking, {n} new message(s) arrived from {senders} (marked * above). "
    "Reconsider; do not repeat them."
)


def decide(office: OfficeRead, ctx: ThinkContext, now: datetime) -> ThinkResult | None:
    """The result of a finished model call, read against the office at `now`; None if it was cut by a stop.

    `office` is a frozen read (`perceive.view.office_read`), never the live office: deciding can
    reach no writer of the engine's (issue 38)."""
    if not isinstance(office, OfficeRead):
        raise TypeError(f"decide reads an OfficeRead (view.office_read), not {type(office).__name__}")
    call = ctx.call
    try:
        answer = call.result()
    except asyncio.CancelledError:
        return None
    except BudgetExhausted as exc:  # a resumed run with a higher limit thinks it again
        return _failed(ctx, exc, list(exc.spent), Gate.BUDGET, owe_again=True, stop=(str(exc), False))
    except LLMAuthError as exc:  # a refused key will not get better by retrying: stop, say so
        reason = f"{exc} (check the key: --api-key-env or OPENAI_API_KEY)"
        result = _failed(ctx, exc, list(exc.spent), Gate.ERROR, owe_again=True, stop=(reason, True))
        result.error_kind = exc.kind
        return result
    except ReplayMiss as exc:  # a replay that cannot answer cannot go on: say which request
        return _failed(ctx, exc, None, Gate.ERROR, owe_again=False, stop=(str(exc), True))
    except LLMError as exc:
        result = _retry_later(office, ctx, list(exc.spent), now, error=str(exc))
        result.error_kind = exc.kind
        return result
    corrections = list(answer.corrections)
    thought = answer.value
    if thought is None:
        result = _retry_later(office, ctx, answer.results, now, error=answer.error, corrections=corrections)
        result.error_kind = "invalid_output"
        return result
    conv = office.state.conversations[ctx.conversation]
    arrived = rules.thought_superseded(conv.since(ctx.read_upto), ctx.employee)
    if arrived and thought.shouldSpeak and rules.may_rethink(ctx.rethinks):
        senders = ", ".join(dict.fromkeys(office.name_of(m.sender) for m in arrived))
        # Names only: colleagues' words stay in the chat history (untrusted), never in a system note.
        note = SUPERSEDED_NOTE.format(n=len(arrived), senders=senders)
        return ThinkResult(
            ctx, thought, answer.results, Gate.SUPERSEDED, corrections=corrections, rethink=note
        )
    return _act(office, ctx, conv, thought, answer.results, corrections, now)


def _failed(
    ctx: ThinkContext,
    exc: Exception,
    results: list[ChatResult] | None,
    gate: Gate,
    *,
    owe_again: bool,
    stop: tuple[str, bool],
) -> ThinkResult:
    steps: list[Step] = [_owe_again(ctx)] if owe_again else []
    return ThinkResult(ctx, None, results, gate, steps=steps, error=str(exc), stop=stop)


def _retry_later(
    office: OfficeView,
    ctx: ThinkContext,
    results: list[ChatResult] | None,
    now: datetime,
    *,
    error: str | None,
    corrections: list[str] | None = None,
) -> ThinkResult:
    """A think the model failed: the employee looks again in a while, for the same cause."""
    retry_at = now + timedelta(seconds=office.config.timers.max_s / 2)
    return ThinkResult(
        ctx,
        None,
        results,
        Gate.ERROR,
        steps=[_owe_again(ctx)],
        corrections=corrections or [],
        error=error,
        look_at=retry_at,
    )


def _owe_again(ctx: ThinkContext) -> OweAgainStep:
    """A think that did not happen stays owed: the engine's note (a report, a summary) is not lost.

    What it read stays unread (the cursor did not move), so a plain look finds that again; an
    engine request lives only in its note. A re-think's note is only the "new messages" hint.
    """
    owed = None
    if ctx.trigger in ENGINE_TRIGGERS and ctx.note and not ctx.rethinks:
        owed = Owed(ctx.conversation, ctx.trigger, ctx.note, escalates(ctx.began))
    return OweAgainStep(ctx.employee, ctx.trigger, owed)


def _origin(employee: str, conv: Any) -> str:
    """Who asked for a task created in this conversation: the boss, a colleague, or the employee."""
    if conv.kind is ConversationKind.BOSS:
        return BOSS
    if conv.kind is ConversationKind.DM:
        return next((m for m in conv.members if m != employee), tasks.SELF)
    return tasks.SELF


def _act(
    office: OfficeView,
    ctx: ThinkContext,
    conv: ConversationState,
    thought: Thought,
    results: list[ChatResult],
    corrections: list[str],
    now: datetime,
) -> ThinkResult:
    """A thought that stands in `conv`, where it was thought: its effects on the mind, its drafts,
    its actions, its next look."""
    scratch = Scratch(office.state)
    emp_id = ctx.employee
    result = ThinkResult(ctx, thought, results, None, corrections=corrections)
    steps = result.steps

    # The mind: memory, relationships, tasks, stamina (spec 2.4-2.6), spoken or silent.
    people, employees = office.people, office.state.employees
    thinker = employees[emp_id]
    creating = creates_tasks(thought)  # only then do its ops read the claims and the board
    offers = {o.claim_key: o for o in office.state.board.values()} if creating else {}
    mind = apply_thought(
        thinker.mind,
        thought,
        ThoughtFacts(
            employee=emp_id,
            conversation=conv.id,
            origin=_origin(emp_id, conv),
            people=people,
            conversations=[c.id for c in office.conversations_of(emp_id)],
            employees=employees.keys(),
            claims=taskboard.open_claims(office) if creating else {},
            calls=len(results),
            task_counter=scratch.counters.get(TASK, 0),
            speakers=reading.read_about(office, ctx.employee, ctx.conversation, ctx.read_upto),
            memory=office.config.switches.memory,
            relationships=office.config.switches.relationships,
            stamina=office.config.switches.stamina,
            board=offers,
            opens={k: levers.opens(thinker, o, office.config.person_levers()) for k, o in offers.items()},
            offer_room=taskboard.room_for(office, thinker, conv),
            department=thinker.department,
            name_documents=office.config.compact_schema,
            claim_key_problem=labels.claim_key_problem,
            text_problem=text.problem_for(office.config.filters),
            unwritten=_unwritten(office, thinker, thought, ctx),
        ),
        now,
    )
    scratch.employee(emp_id).mind = mind.mind
    scratch.counters[TASK] = mind.task_counter
    for event in mind.events:
        scratch.stamina_event(emp_id, event)
    corrections.extend(mind.corrections)
    if mind.tasks_touched:  # a task op resets the pair streak and the unanswered ceiling
        scratch.conversation(conv.id).reset_at = now
    for taken in mind.claimed:  # the task board (issue 13): claimed work leaves it, offered work joins
        scratch.board.pop(taken, None)
    for offer in mind.offers:
        scratch.board[offer.id] = offer
    steps += scratch.take(now, read={emp_id: (conv.id, ctx.read_upto)})
    for i, offer in enumerate(o for o in mind.offers if o.room is not None):
        steps.append(
            board_notice(scratch, offer, notice_id(ctx.thought_id, i + 1), office.name_of(emp_id), now)
        )
    for owed in mind.owed:
        steps += acts.owe(scratch, emp_id, owed, now)

    # Drafts in this conversation, then actions elsewhere.
    gate = acts.speak(office, scratch, ctx, thought, result, now)
    acts.actions(office, scratch, ctx, thought, result, now)
    result.gate = None if result.posted else gate
    result.look = (thought.interestLevel, thought.topicSaturation)
    return result


def _unwritten(office: OfficeView, thinker: Employee, thought: Thought, ctx: ThinkContext) -> tuple[str, ...]:
    """The documents the thinker's tasks deliver that are not written, nor by this thought's own
    `write_document` calls: such a task stays open."""
    if not any(op.op == "resolve" for op in thought.taskOps):
        return ()
    state = office.state
    writes = documents.written_by(
        state.documents, state.company, thinker, thought.actions, ctx.agent, office.config.filters
    )
    return tuple(p for p in document_tools.unwritten(office, thinker) if p not in writes)


def board_notice(scratch: Scratch, offer: Offer, msg_id: str, by: str, now: datetime) -> NoticeStep:
    """The room is told of work put on the board (a `claimable` system line); its members wake to it."""
    assert offer.room is not None
    message = Message(msg_id, now, offer.room, SYSTEM, board.notice(offer, by), kind=MessageKind.CLAIMABLE)
    scratch.conversation(offer.room).add(message)
    return NoticeStep(offer.room, msg_id, message)
