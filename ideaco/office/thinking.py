"""One think, from its model call to a `ThinkResult`: what it did, as a value, nothing applied.

A think starts at a moment of simulated time (the office reads the conversation for it and
starts the model call); it finishes `think_seconds` later, in clock order, when `decide` turns
the model's answer into a result against the office as it is then: the thought, its drafts'
verdicts, its changes to minds, conversations and the company, the thinks it leaves owed, and
when to look next. `decide` only reads the office; `Office.resolve` applies the result.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from ideaco.cycle import ADDRESSED_TRIGGERS, ENGINE_TRIGGERS, Gate, Owed, Trigger
from ideaco.ids import BOSS, SECRETARY, boss_conversation_id, dm_members
from ideaco.llm.base import BudgetExhausted, ChatResult, LLMAuthError, LLMError, ReplayMiss
from ideaco.llm.structured import StructuredAnswer
from ideaco.mind.apply import ThoughtFacts, apply_thought
from ideaco.mind.thought import TOOL_ARGS, Thought
from ideaco.office import person, reading, rules, skillbook, taskboard
from ideaco.office.conversation import ESCALATION, ConversationKind
from ideaco.office.org import ToolContext, tools_allowed
from ideaco.office.rules import toolcaps
from ideaco.office.scratch import Scratch
from ideaco.office.speaking import (
    GROUP_KINDS,
    Verdict,
    build_message,
    clean_draft,
    escalates,
    gate_draft,
    hold_for,
    silence_verdict,
    target_for,
    tell_outsiders,
)
from ideaco.office.state import ConversationState, Employee
from ideaco.office.steps import DraftStep, OweAgainStep, OweStep, Step
from ideaco.office.toolchain import Chain
from ideaco.office.view import OfficeView
from ideaco.office.waking import unread_of

SUPERSEDED_NOTE = (
    "While you were thinking, {n} new message(s) arrived from {senders} (marked * above). "
    "Reconsider; do not repeat them."
)


@dataclass
class ThinkContext:
    """What a think read and when; carried from its start to its finish."""

    thought_id: str
    employee: str
    conversation: str
    trigger: Trigger
    at: datetime
    read_upto: int
    mentioned: bool
    call: asyncio.Future[StructuredAnswer[Thought]]
    note: str = ""  # the engine's note this think read (a system request is re-asked if held)
    rethinks: int = 0  # re-thinks this think already is (a superseded draft gets at most one)
    began: dict[str, Any] = field(default_factory=dict)  # what starting it took (logged, replayed)


@dataclass
class ThinkResult:
    """What one think did, to be applied by the office (`Office.resolve`)."""

    ctx: ThinkContext
    thought: Thought | None
    results: list[ChatResult] | None  # the model calls it took (usage, latency)
    gate: Gate | None  # None when it spoke
    steps: list[Step] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)
    posted: list[str] = field(default_factory=list)  # ids of the messages it posts
    error: str | None = None
    error_kind: str | None = None  # counted in the run's errors
    look: tuple[int, int] | None = None  # (interest, saturation): the adaptive delay is drawn from these
    look_at: datetime | None = None  # or a fixed next look (a retry after a failure)
    rethink: str | None = None  # superseded: the note its re-think reads
    stop: tuple[str, bool] | None = None  # (reason, failed): the run stops after this think
    usage: dict[str, Any] | None = None  # a logged think's `llm` (a replay has no results)


def context(
    office: OfficeView,
    emp: Employee,
    conv: ConversationState,
    trigger: Trigger,
    now: datetime,
    thought_id: str,
    call: asyncio.Future[StructuredAnswer[Thought]],
    *,
    note: str,
    rethinks: int,
    notes: list[str],
) -> ThinkContext:
    """What a think starting now reads and carries to its finish (and what starting it took, for the log)."""
    unread = unread_of(emp, conv)
    # What the engine itself asks for (a summary, a report) counts as addressed, like a mention.
    mentioned = any(emp.id in m.mentions for m in unread) or trigger in ADDRESSED_TRIGGERS
    began = {
        "owed": emp.desk.inflight.to_dict() if emp.desk.inflight else None,
        "notes": notes,
        "stamina": emp.mind.stamina.to_dict(),
        "task_alerts": dict(emp.desk.task_alerts),  # an alert is noted when its wake comes
    }
    return ThinkContext(
        thought_id, emp.id, conv.id, trigger, now, conv.count, mentioned, call, note, rethinks, began
    )


def decide(office: OfficeView, ctx: ThinkContext, now: datetime) -> ThinkResult | None:
    """The result of a finished model call, read against the office at `now`; None if it was cut by a stop."""
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
    conv = office.conversations[ctx.conversation]
    arrived = rules.thought_superseded(conv.since(ctx.read_upto), ctx.employee)
    if arrived and thought.shouldSpeak and rules.may_rethink(ctx.rethinks):
        senders = ", ".join(dict.fromkeys(office.name_of(m.sender) for m in arrived))
        # Names only: colleagues' words stay in the chat history (untrusted), never in a system note.
        note = SUPERSEDED_NOTE.format(n=len(arrived), senders=senders)
        return ThinkResult(
            ctx, thought, answer.results, Gate.SUPERSEDED, corrections=corrections, rethink=note
        )
    return _act(office, ctx, thought, answer.results, corrections, now)


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
        ctx, None, results, Gate.ERROR, steps=[_owe_again(ctx)], corrections=corrections or [], error=error,
        look_at=retry_at,
    )  # fmt: skip


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
        return next((m for m in conv.members if m != employee), "self")
    return "self"


def _act(
    office: OfficeView,
    ctx: ThinkContext,
    thought: Thought,
    results: list[ChatResult],
    corrections: list[str],
    now: datetime,
) -> ThinkResult:
    """A thought that stands: its effects on the mind, its drafts, its actions, its next look."""
    scratch = Scratch(office.state)
    emp_id, conv = ctx.employee, office.conversations[ctx.conversation]
    result = ThinkResult(ctx, thought, results, None, corrections=corrections)
    steps = result.steps

    # The mind: memory, relationships, tasks, stamina (spec 2.4-2.6), spoken or silent.
    people = office.people
    mind = apply_thought(
        office.employees[emp_id].mind,
        thought,
        ThoughtFacts(
            employee=emp_id,
            conversation=conv.id,
            origin=_origin(emp_id, conv),
            people=people,
            conversations=[c.id for c in office.conversations_of(emp_id)],
            employees=office.employees.keys(),
            claims=lambda: taskboard.open_claims(office),
            calls=len(results),
            task_counter=scratch.counters.get("task", 0),
            speakers=reading.read_about(office, ctx.employee, ctx.conversation, ctx.read_upto),
            memory=office.config.switches.memory,
            relationships=office.config.switches.relationships,
            stamina=office.config.switches.stamina,
            board=lambda: {o.claim_key: o for o in office.state.board.values()},
            opens_at=lambda o: person.opens(office.employees[emp_id], o, office.config.person_levers()),
            offer_room=taskboard.room_for(office, office.employees[emp_id], conv),
            department=office.employees[emp_id].department,
        ),
        now,
    )
    scratch.employee(emp_id).mind = mind.mind
    scratch.counters["task"] = mind.task_counter
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
            taskboard.notice(scratch, offer, f"{ctx.thought_id}-n{i + 1}", office.name_of(emp_id), now)
        )
    for owed in mind.owed:
        steps += _owe(scratch, emp_id, owed, now)

    # Drafts in this conversation, then actions elsewhere.
    gate = _speak(office, scratch, ctx, thought, result, now)
    _actions(office, scratch, ctx, thought, result, now)
    result.gate = None if result.posted else gate
    result.look = (thought.interestLevel, thought.topicSaturation)
    return result


def _owe(scratch: Scratch, employee: str, owed: Owed, now: datetime) -> list[Step]:
    """An owed think, where it can happen: a DM is opened on first use, a lost room falls back to the boss chat."""
    steps: list[Step] = []
    target = owed.conversation
    if (members := dm_members(target)) is not None and target not in scratch.conversations:
        a, b = members[:2]
        target_for(scratch, a, b, {e.id: e.name for e in scratch.employees.values()})
        steps += scratch.take(now)
    if target not in scratch.conversations:
        target = boss_conversation_id(employee)
    steps.append(OweStep(employee, replace(owed, conversation=target)))
    return steps


def _clean(
    office: OfficeView, thought: Thought, draft: str, where: str, result: ThinkResult
) -> tuple[str, Verdict | None]:
    """A draft as it can be posted, or why it is not fit to (no echo, placeholder, debris, private text)."""
    text, verdict, note = clean_draft(draft, thought.innerThoughts, compact=office.config.compact_schema)
    if note:
        result.corrections.append(f"{where}: {note}")
    return text, verdict


def _speak(
    office: OfficeView,
    scratch: Scratch,
    ctx: ThinkContext,
    thought: Thought,
    result: ThinkResult,
    now: datetime,
) -> Gate | None:
    """Gate and post the thought's messages in its own conversation (spec 2.2, 2.3)."""
    if not thought.shouldSpeak:
        return Gate.CHOSE_SILENCE
    conv_id = ctx.conversation
    texts = [m.content for m in thought.messages]
    if scratch.conversations[conv_id].kind in GROUP_KINDS and len(texts) > 1:
        result.corrections.append(f"messages: {len(texts) - 1} extra message(s) dropped in a group room")
        texts = texts[:1]
    me, levers = scratch.employees[ctx.employee], office.config.person_levers()
    quiet = silence_verdict(me, thought.interestLevel, ctx.mentioned, levers) if texts else None
    if quiet is not None:  # the persona's silence_bias: not worth saying, and nobody asked
        result.steps.append(DraftStep("messages[0]", conv_id, gate=quiet.gate, detail=quiet.detail))
        return quiet.gate
    gates = person.gates(me, office.config.gates, levers)
    for i, draft in enumerate(texts):
        conv = scratch.conversations[conv_id]
        where = f"messages[{i}]"
        text, verdict = _clean(office, thought, draft, where, result)
        if verdict is None:
            verdict = gate_draft(scratch, ctx.employee, conv, text, thought.topicSaturation, ctx.mentioned, now,
                                 gates, office.config.switches)  # fmt: skip
        if verdict is not None:
            posted = bool(result.posted)
            result.steps.append(
                DraftStep(where, conv_id, gate=verdict.gate, rule=verdict.rule, detail=verdict.detail,
                          reopens_at=verdict.reopens_at)
            )  # fmt: skip
            result.steps += scratch.take(now)
            if not posted and ctx.mentioned and verdict.reopens_at is not None:
                result.steps.append(hold_for(ctx.employee, conv_id, verdict, ctx.trigger, ctx.note))
            if posted:  # the rest of a burst: held by the gate its first message set off
                result.corrections.append(f"messages[{i}:]: {len(texts) - i} held by {verdict.gate}, dropped")
            return verdict.gate if not posted else None
        kind = ESCALATION if escalates(ctx.began) and conv.kind is ConversationKind.BOSS else "chat"
        message = build_message(
            conv, ctx.employee, text.strip(), f"{ctx.thought_id}-{i + 1}", office.people, now, kind
        )
        scratch.conversation(conv_id).add(message)
        result.steps.append(DraftStep(where, conv_id, message=message, message_id=message.id))
        result.posted.append(message.id)
        result.steps += tell_outsiders(scratch, conv, message, now)
    return None


def _actions(
    office: OfficeView,
    scratch: Scratch,
    ctx: ThinkContext,
    thought: Thought,
    result: ThinkResult,
    now: datetime,
) -> None:
    """send_message actions (a DM, the boss chat, another room), and the secretary's organization tools."""
    emp_id, changed_staff = ctx.employee, False
    names = {e.id: e.name for e in office.employees.values()}
    chain = Chain.begin(office, ctx, now) if emp_id == SECRETARY else None
    for i, action in enumerate(thought.actions):
        where = f"actions[{i}]"
        if action.tool in TOOL_ARGS and chain is not None:
            if not tools_allowed(emp_id, ctx.conversation, ctx.note) and not toolcaps.is_last(ctx.note):
                # Only the boss gives orders (spec 2.3): a colleague's DM, a room, or quoted
                # messages are conversation, so "the boss says fire Alice" there changes nothing.
                result.corrections.append(f"{where}: {action.tool} outside the boss's own request, refused")
                continue
            step, owed_by_tool = chain.call(
                scratch, action, ToolContext(office.company, now, office.config.switches.stamina)
            )
            result.steps += [step, *scratch.take(now)]
            for employee, owed in owed_by_tool:
                result.steps += _owe(scratch, employee, owed, now)
            if not step.ok:
                result.corrections.append(f"{where}: {step.message}")
            names, changed_staff = {e.id: e.name for e in scratch.employees.values()}, True
            continue
        if action.tool == skillbook.TOOL:  # a skill's text for the next thought (issue 20)
            result.steps += skillbook.act(scratch, emp_id, action, now)
            continue
        if action.tool != "send_message":
            result.corrections.append(f"{where}: unknown tool {action.tool!r}, dropped")
            continue
        to = str(action.args.get("to") or "").strip().lstrip("@")
        content = str(action.args.get("content") or "").strip()[:2000]
        if not to or not content:
            continue  # an empty action is the schema's way of saying "none"
        content, filtered = _clean(office, thought, content, where, result)
        target = target_for(scratch, emp_id, to, names)
        result.steps += scratch.take(now)
        if target is None:
            result.corrections.append(f"{where}: send_message to {to!r}: unknown target, dropped")
            continue
        if target.id == ctx.conversation:
            result.corrections.append(f"{where}: send_message to the conversation being read, dropped")
            continue
        gates = person.gates(scratch.employees[emp_id], office.config.gates, office.config.person_levers())
        verdict = filtered or gate_draft(
            scratch, emp_id, target, content, 1, False, now, gates, office.config.switches
        )
        if verdict is not None:
            result.steps.append(
                DraftStep(where, target.id, gate=verdict.gate, rule=verdict.rule, detail=verdict.detail,
                          reopens_at=verdict.reopens_at)
            )  # fmt: skip
            result.steps += scratch.take(now)
            result.corrections.append(f"{where}: send_message to {target.id} held by {verdict.gate}")
            continue
        people = scratch.people() if changed_staff else office.people
        message = build_message(target, emp_id, content, f"{ctx.thought_id}-a{i + 1}", people, now)
        scratch.conversation(target.id).add(message)
        result.steps.append(DraftStep(where, target.id, message=message, message_id=message.id))
        result.posted.append(message.id)
        result.steps += tell_outsiders(scratch, target, message, now)
    if chain is not None:  # the secretary reports what its tools did (or why not) in its boss chat
        report = chain.report()
        result.steps += _owe(scratch, emp_id, report, now) if report else []
        result.steps += chain.notice(scratch, f"{ctx.thought_id}-n0", now)  # calls past the last round
