"""What a thought says, on the think's scratch copy: its drafts in its own conversation, its
`send_message` actions elsewhere and the secretary's tool calls, each cleaned, gated (spec 2.2,
2.3) and posted or held, as steps of its `ThinkResult`; and an owed think placed where it can happen.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from ideaco.cycle import Gate, Owed
from ideaco.ids import SECRETARY, boss_conversation_id, dm_members, notice_id, post_id, sent_id
from ideaco.kinds import ConversationKind, MessageKind, ToolName
from ideaco.mind.memory import MEMORY_PREFIX
from ideaco.mind.tasks import TASK_PREFIX
from ideaco.mind.thought import TOOL_ARGS, Thought
from ideaco.office.core.state import Employee
from ideaco.office.core.steps import OweStep, Step
from ideaco.office.core.think import ThinkContext, ThinkResult
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.speech import (
    GROUP_KINDS,
    DraftVerdict,
    clean_draft,
    escalates,
    gate_draft,
    hold_for,
    post,
    silence_verdict,
    target_for,
)
from ideaco.office.decide.tools import documents, skillbook
from ideaco.office.decide.tools.chain import Chain
from ideaco.office.decide.tools.org import ToolContext
from ideaco.office.perceive.view import OfficeView
from ideaco.office.rules import levers, text, toolcaps
from ideaco.office.rules.toolcaps import tools_allowed


def owe(scratch: Scratch, employee: str, owed: Owed, now: datetime) -> list[Step]:
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
    office: OfficeView, thought: Thought, draft: str, where: str, result: ThinkResult, me: Employee
) -> tuple[str, DraftVerdict | None]:
    """A draft as it can be posted, or why it is not fit to (the text rules under the run's
    `filters`: no echo, private text, and under `strict` no placeholder or debris); the engine's ids
    it shows read as what they name."""
    shows_ids = any(prefix in draft.lower() for prefix in (TASK_PREFIX, MEMORY_PREFIX))
    named = text.name_ids(draft, {t.id: t.description[:60] for t in me.mind.tasks}) if shows_ids else draft
    if named != draft:
        result.corrections.append(f"{where}: ids named as what they name")
    draft = named
    cleaned, verdict, note = clean_draft(
        draft,
        thought.innerThoughts,
        compact=office.config.compact_schema,
        prompt=result.ctx.engine,
        filters=office.config.filters,
    )
    if note:
        result.corrections.append(f"{where}: {note}")
    return cleaned, verdict


def speak(
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
    me, cfg = scratch.employees[ctx.employee], office.config.person_levers()
    quiet = silence_verdict(me, thought.interestLevel, ctx.mentioned, cfg) if texts else None
    if quiet is not None:  # the persona's silence_bias: not worth saying, and nobody asked
        result.steps.append(quiet.step("messages[0]", conv_id))
        return quiet.gate
    gates = levers.gates_of(me, office.config.gates, cfg)
    for i, draft in enumerate(texts):
        conv = scratch.conversations[conv_id]
        where = f"messages[{i}]"
        text, verdict = _clean(office, thought, draft, where, result, me)
        if verdict is None:
            verdict = gate_draft(
                scratch,
                ctx.employee,
                conv,
                text,
                thought.topicSaturation,
                ctx.mentioned,
                now,
                gates,
                office.config.switches,
            )
        if verdict is not None:
            posted = bool(result.posted)
            result.steps += [verdict.step(where, conv_id), *scratch.take(now)]
            if not posted and ctx.mentioned and verdict.reopens_at is not None:
                result.steps.append(hold_for(ctx.employee, conv_id, verdict, ctx.trigger, ctx.note))
            if posted:  # the rest of a burst: held by the gate its first message set off
                result.corrections.append(f"messages[{i}:]: {len(texts) - i} held by {verdict.gate}, dropped")
            return verdict.gate if not posted else None
        kind = (
            MessageKind.ESCALATION
            if escalates(ctx.began) and conv.kind is ConversationKind.BOSS
            else MessageKind.CHAT
        )
        message, steps = post(
            scratch,
            conv,
            where,
            ctx.employee,
            text.strip(),
            post_id(ctx.thought_id, i + 1),
            office.people,
            now,
            kind,
        )
        result.steps += steps
        result.posted.append(message.id)
    return None


def actions(
    office: OfficeView,
    scratch: Scratch,
    ctx: ThinkContext,
    thought: Thought,
    result: ThinkResult,
    now: datetime,
) -> None:
    """send_message actions (a DM, the boss chat, another room), and the secretary's organization tools."""
    emp_id, changed_staff = ctx.employee, False
    if not thought.actions and emp_id != SECRETARY:
        return  # (most thoughts: nothing to do, and no reading of the whole company for it)
    names = {e.id: e.name for e in office.state.employees.values()}
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
                result.steps += owe(scratch, employee, owed, now)
            if not step.ok:
                result.corrections.append(f"{where}: {step.message}")
            names, changed_staff = {e.id: e.name for e in scratch.employees.values()}, True
            continue
        if action.tool == ToolName.LOAD_SKILL:  # a skill's text for the next thought (issue 20)
            result.steps += skillbook.act(scratch, emp_id, action, now)
            continue
        if action.tool != ToolName.SEND_MESSAGE:  # a document tool (issue 20), or an unknown one: dropped
            called = documents.act(office, scratch, ctx, action, where, now, made=ctx.agent.get(i))
            result.corrections += called.corrections
            result.steps += called.steps
            for employee, owed in called.owing:
                result.steps += owe(scratch, employee, owed, now)
            continue
        to = str(action.args.get("to") or "").strip().lstrip("@")
        content = str(action.args.get("content") or "").strip()[:2000]
        if not to or not content:
            continue  # an empty action is the schema's way of saying "none"
        content, filtered = _clean(office, thought, content, where, result, scratch.employees[emp_id])
        target = target_for(scratch, emp_id, to, names)
        result.steps += scratch.take(now)
        if target is None:
            result.corrections.append(f"{where}: send_message to {to!r}: unknown target, dropped")
            continue
        if target.id == ctx.conversation:
            result.corrections.append(f"{where}: send_message to the conversation being read, dropped")
            continue
        gates = levers.gates_of(scratch.employees[emp_id], office.config.gates, office.config.person_levers())
        verdict = filtered or gate_draft(
            scratch, emp_id, target, content, 1, False, now, gates, office.config.switches
        )
        if verdict is not None:
            result.steps += [verdict.step(where, target.id), *scratch.take(now)]
            result.corrections.append(f"{where}: send_message to {target.id} held by {verdict.gate}")
            continue
        people = scratch.people() if changed_staff else office.people
        message, steps = post(
            scratch, target, where, emp_id, content, sent_id(ctx.thought_id, i + 1), people, now
        )
        result.steps += steps
        result.posted.append(message.id)
    if chain is not None:  # the secretary reports what its tools did (or why not) in its boss chat
        report = chain.report()
        result.steps += owe(scratch, emp_id, report, now) if report else []
        result.steps += chain.notice(
            scratch, notice_id(ctx.thought_id, 0), now
        )  # calls stopped past the last round
