"""What an employee reads before it thinks: the prompt view of one conversation, and its schema.

Pure with respect to the office: it is read, never changed. The random perspective and the
notes to read are handed in (the office draws and takes them), so reading the same office twice
gives the same prompt.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from ideaco import skills
from ideaco.cycle import ADDRESSED_TRIGGERS, Trigger
from ideaco.ids import BOSS, SECRETARY, slug
from ideaco.kinds import GROUP_KINDS, ConversationKind
from ideaco.llm.base import ChatRequest
from ideaco.llm.structured import StructuredAnswer
from ideaco.mind import board, recall, relationships, stamina, tasks
from ideaco.mind.memory import MemoryItem
from ideaco.mind.prompt import (
    PERSPECTIVES,
    ChatLine,
    EngineText,
    Person,
    PromptView,
    Scene,
    engine_text,
    render_prompt,
)
from ideaco.mind.thought import TOOL_ARGS, Thought, WireContext, thought_schema, thought_token_bound
from ideaco.office.core.conversation import Message
from ideaco.office.core.state import ConversationState, Employee
from ideaco.office.core.think import ThinkContext
from ideaco.office.perceive import document_tools, taskboard
from ideaco.office.perceive.looks import unread_of
from ideaco.office.perceive.view import OfficeView  # the office is only read here
from ideaco.office.rules.mentions import named_in
from ideaco.office.rules.requests import asked_archetypes, asked_tools, named_departments
from ideaco.office.rules.toolcaps import SUMMARY_NOTE, tools_allowed
from ideaco.persona import ARCHETYPES

TRIGGER_NOTES = {
    Trigger.BOSS: "The boss has written to you.",
    Trigger.MENTION: "Someone mentioned you.",
    Trigger.NUDGE: "There are new messages.",
    Trigger.TIMER: "You glance at the chat.",
    Trigger.IDLE: "The room has been quiet for a while; you may start a topic if you feel like it.",
}
WINDOW_LEAST, WINDOW_STEP = 10, 10  # a compact prompt shows 10 to 19 lines


def read_about(office: OfficeView, employee: str, conversation: str, read_upto: int) -> set[str]:
    """Who a think read about: the senders of what was new to it and the colleagues it names
    (the reasons the engine can see for changing one's mind about someone)."""
    conv = office.state.conversations[conversation]
    cursor = office.state.employees[employee].desk.cursors.get(conv.id, 0)
    read = conv.since(cursor)[: max(0, read_upto - cursor)]
    seen, people = {m.sender for m in read}, office.people
    for m in read:
        seen |= named_in(m.text, people)
    return seen - {employee}


def wire_context(
    office: OfficeView,
    emp: Employee,
    conv: ConversationState,
    note: str = "",
    *,
    compact: bool,
    calls: tuple[document_tools.Call, ...] | None = None,
    now: datetime | None = None,
) -> WireContext:
    """What the schema of this thought lists: the people here, targets, open tasks, memories, tools
    (`calls`: the document tools that can apply, `document_calls.calls`, found here if not given)."""
    if calls is None:
        calls = document_tools.calls(office, emp, conv.id) if compact else ()
    # The board's work it may claim now (the prompt lists it): the compact wire's claim keys.
    claims: tuple[str, ...] = ()
    if compact and now is not None and stamina.may_claim(emp.mind.stamina):
        claims = tuple(sorted({o.claim_key for o in taskboard.visible_to(office, emp, now)}))
    mine, employees = office.conversations_of(emp.id), office.state.employees
    people = tuple(m for m in conv.members if m != emp.id and m in employees)
    if compact:  # a small model rates only those it reads about (the others' affinity cannot move)
        seen = read_about(office, emp.id, conv.id, conv.count)
        people = tuple(p for p in people if p in seen)
    colleagues = {m for c in mine for m in c.members if m != emp.id and m in employees}
    rooms = {c.id for c in mine if c.kind in GROUP_KINDS}
    tools: tuple[str, ...] = tuple(TOOL_ARGS) if tools_allowed(emp.id, conv.id, note) else ()
    org: dict[str, tuple[str, ...]] = {}
    if tools and compact:  # a small model: only what the boss's unread words ask for (rules/requests.py)
        words = [m.text for m in conv.since(emp.desk.cursors.get(conv.id, 0)) if m.sender == BOSS]
        tools = asked_tools(words)
        existing = tuple(office.state.company.departments)
        named = {i: n for n in named_departments(words) if (i := slug(n))}
        org = {  # and among the choices, those the words name, where they name any
            "archetypes": asked_archetypes(words) or tuple(ARCHETYPES),
            "departments": tuple(d for d in existing if d in named) or existing,
            "new_departments": tuple((i, n) for i, n in named.items() if i not in existing),
            "staff": tuple(e.id for e in employees.values() if not e.dismissed and e.id != SECRETARY),
        }
    return WireContext(
        people=people or None,
        targets=tuple(sorted(colleagues | rooms | {BOSS})),
        task_ids=tuple(t.id for t in emp.mind.pending_tasks),
        memory_ids=tuple(i.id for i in (*emp.mind.memory.long_term, *emp.mind.memory.short_term)),
        tools=tools,
        documents=document_tools.TOOLS if document_tools.offered(office, emp, calls) else (),
        document_calls=calls if compact else (),
        skills=skills.names_of(emp.persona) if not compact else (),
        compact=compact,
        # A small model summarizes only what its prompt no longer shows, and is offered task ops
        # only with tasks of its own, an engine note, or the boss's words to answer.
        summary=not compact or window_start(conv.count, conv.count - len(conv.recent)) > 0,
        tasks=not compact or bool(emp.mind.pending_tasks or note or _boss_asks(emp, conv) or claims),
        claim_keys=claims,
        **org,
    )


def _boss_asks(emp: Employee, conv: ConversationState) -> bool:
    """Whether an unread message of the boss's here is put to `emp`."""
    cursor = emp.desk.cursors.get(conv.id, 0)
    return any(m.sender == BOSS and _addresses(m, emp.id, conv) for m in conv.since(cursor))


def request_for(
    office: OfficeView,
    emp: Employee,
    conv: ConversationState,
    view: PromptView,
    note: str,
    now: datetime,
    calls: tuple[document_tools.Call, ...],
    rng: random.Random,
) -> ChatRequest:
    """The model request of one think: the prompt of `view`, its schema, and the sampling seed (one
    draw of `rng`)."""
    compact = office.config.compact_schema
    wire = wire_context(office, emp, conv, note, compact=compact, calls=calls, now=now)
    schema = thought_schema(wire)
    return ChatRequest(
        messages=tuple(render_prompt(view)),
        model=office.models.of(emp.model),
        max_tokens=max(office.config.max_tokens, thought_token_bound(wire)),
        temperature=office.config.temperature,
        json_schema=schema,
        schema_name="flow_of_thought",
        seed=rng.randrange(2**31),
        tag=f"{emp.id} in {conv.id} at {now.isoformat()}",
        cache_key=emp.id,  # a local server keeps this employee's prompt prefix in one slot
    )


@dataclass(frozen=True)
class Beginning:
    """What a think starting now sends, and the mind it starts with."""

    request: ChatRequest
    stamina: stamina.Stamina  # recovered for the idle time since the last thought
    notes: tuple[str, ...]  # the engine's notes it reads (once)
    view: PromptView  # what its prompt shows

    def engine_text(self) -> EngineText:
        """What the engine wrote into this prompt, for the echo filter (made when a think begins,
        not for a prediction's request)."""
        return engine_text(self.view)

    def context(
        self,
        emp: Employee,
        conv: ConversationState,
        trigger: Trigger,
        now: datetime,
        thought_id: str,
        call: asyncio.Future[StructuredAnswer[Thought]],
        *,
        note: str,
        rethinks: int,
    ) -> ThinkContext:
        """What the think carries to its finish: what it read, whether it was addressed, what
        starting it took (for the log: the notes it read, the engine's words in its prompt), read
        once its beginning is applied (`Begin`: the stamina recovered, the alerts shown)."""
        unread = unread_of(emp, conv)
        # What the engine itself asks for (a summary, a report) counts as addressed, like a mention.
        mentioned = any(emp.id in m.mentions for m in unread) or trigger in ADDRESSED_TRIGGERS
        began = {
            "owed": emp.desk.inflight.to_dict() if emp.desk.inflight else None,
            "notes": list(self.notes),
            "stamina": emp.mind.stamina.to_dict(),
            "task_alerts": dict(emp.desk.task_alerts),  # an alert is noted when its wake comes
        }
        return ThinkContext(
            thought_id,
            emp.id,
            conv.id,
            trigger,
            now,
            conv.count,
            mentioned,
            call,
            note,
            rethinks,
            began,
            engine=self.engine_text(),
        )


def begin_request(
    office: OfficeView,
    emp: Employee,
    conv: ConversationState,
    trigger: str,
    note: str,
    now: datetime,
    stream: random.Random,
) -> Beginning:
    """The request of a think of `emp` beginning at `now`; reads only. Draws the perspective, then
    the sampling seed, from `stream` (the employee's own): built again from the same office, the
    same stream position and moment, it is the same request (`engine/early.py` relies on it)."""
    recovered = stamina.recover(emp.mind.stamina, now)
    me = replace(emp, mind=replace(emp.mind, stamina=recovered))
    notes = tuple(emp.mind.notes)
    perspective = stream.choice(PERSPECTIVES)
    # The document tools that can apply: found once, for the prompt and the schema.
    calls = document_tools.calls(office, me, conv.id) if office.config.compact_schema else ()
    view = prompt_view(office, me, conv, trigger, note, notes, now, perspective, calls)
    request = request_for(office, me, conv, view, note, now, calls, stream)
    return Beginning(request, recovered, notes, view)


def prompt_view(
    office: OfficeView,
    emp: Employee,
    conv: ConversationState,
    trigger: str,
    note: str,
    notes: Sequence[str],
    now: datetime,
    perspective: str,
    calls: tuple[document_tools.Call, ...] = (),
) -> PromptView:
    """The prompt's view of `conv` for `emp` at `now` (`notes`: the engine's notes waiting for it;
    `calls`: the document tools the compact wire offers)."""
    cursor = emp.desk.cursors.get(conv.id, 0)
    compact = office.config.compact_schema
    first_seq = conv.count - len(conv.recent)
    start = window_start(conv.count, first_seq) if compact else first_seq
    lines, answering = [], None
    names = {sender: office.name_of(sender) for sender in {m.sender for m in conv.recent}}
    for i, m in enumerate(conv.recent):
        line = ChatLine(
            at=m.at.strftime("%H:%M"),
            sender=names[m.sender],
            text=m.text,
            unread=first_seq + i >= cursor and m.sender != emp.id,
            is_boss=m.sender == BOSS,
            is_me=m.sender == emp.id,
        )
        if first_seq + i >= start:
            lines.append(line)
        if line.unread and _addresses(m, emp.id, conv):
            answering = line
    dedupe: list[str] = []
    for m in reversed(conv.recent):
        if compact:
            break  # a small model copies the hint's quotes into its message
        if m.from_agent and m.sender != emp.id and m.text not in dedupe:
            dedupe.append(m.text)
        if len(dedupe) == 3:
            break
    employees = office.state.employees
    members = tuple(
        Person(e.id, e.name, e.role, ", ".join(skills.names_of(e.persona)))
        for e in (employees.get(p) for p in conv.members)
        if e is not None
    )
    if conv.kind is ConversationKind.BOSS:
        members = members + (Person(BOSS, "Boss", "your boss"),)
    scene = Scene(id=conv.id, name=conv.name, kind=conv.kind.value, members=members, mission=conv.mission)
    read_text = " ".join(m.text for m in list(conv.recent)[-10:])
    mind = emp.mind
    long, short = recall.recall(mind.memory, now, read_text)
    present = [m for m in conv.members if m != emp.id]
    secretary = emp.id == SECRETARY
    notes, read = document_tools.split_notes(office, tuple(notes))
    notes, skills_loaded = skills.split_notes(emp.persona, notes)
    offers = taskboard.visible_to(office, emp, now)
    return PromptView(
        me=Person(emp.id, emp.name, emp.role),
        age=emp.age,
        persona=office.config.switches.persona_of(emp.persona),
        company=office.company,
        language=office.language,
        scene=scene,
        now=now.strftime("%A %H:%M"),
        lines=tuple(lines),
        trigger_note=TRIGGER_NOTES.get(trigger, ""),
        system_notes=tuple(n for n in (note, *notes) if n),
        dedupe=tuple(reversed(dedupe)),
        perspective=perspective,
        history_summary=mind.memory.summaries.get(conv.id),
        tasks_block="\n\n".join(
            b
            for b in (
                tasks.tasks_block(mind.tasks, now),
                board.board_block(
                    offers,
                    now,
                    office.name_of,
                    may_claim=stamina.may_claim(mind.stamina),
                ),
            )
            if b
        ),
        memories_block=recall.memory_block(long, short),
        impressions_block=relationships.impressions_block(mind.relationships, present, now),
        stamina_note=stamina.prompt_note(mind.stamina, thoughts="think" if compact else "innerThoughts"),
        tools=secretary,
        org_block=org_block(office) if secretary else "",
        quoted=tuple(summary_quotes(office, note)) if secretary else (),
        documents_block=document_tools.prompt_block(office, emp, calls),
        documents_quoted=read,
        skills_loaded=skills_loaded,
        answering=answering,
        compact=compact,
        people=people_words(office, emp, [*long, *short], present, offers),
    )


def people_words(
    office: OfficeView,
    emp: Employee,
    memories: Sequence[MemoryItem],
    present: Sequence[str],
    offers: Sequence[board.Offer],
) -> tuple[str, ...]:
    """What people wrote that the prompt's blocks and the engine's notes show: the employee's tasks
    (descriptions, results, hints), memories and impressions, the board's offers, its department's
    reviews. A draft may repeat them: they are not the engine's words (`mind.prompt.engine_text`)."""
    texts = [
        text
        for t in emp.mind.tasks
        for text in (t.description, t.result, t.on_resolve_hint, t.condition)
        if text
    ]
    texts += [m.content for m in memories]
    texts += [r.impression for p in present if (r := emp.mind.relationships.get(p)) and r.impression]
    texts += [text for o in offers for text in (o.description, o.reason) if text]
    for doc in office.state.documents.values():
        if doc.department == emp.department and doc.review is not None:
            texts += [text for text in (doc.review.notes, doc.review.argument) if text]
    return tuple(texts)


def window_start(count: int, first_kept: int, least: int = WINDOW_LEAST, step: int = WINDOW_STEP) -> int:
    """The first message a compact prompt shows: at least `least` of the `count` so far, starting on
    a multiple of `step`, so that the window only grows at its end between two steps and the
    previous prompt stays a prefix of the next one (a server's cache serves it)."""
    return max(first_kept, (max(0, count - least) // step) * step)


def _addresses(message: Message, employee: str, conv: ConversationState) -> bool:
    """Whether a message is put to `employee`: it names them, or the boss wrote it to everyone here."""
    if employee in message.mentions:
        return True
    return message.sender == BOSS and (conv.kind is ConversationKind.BOSS or not message.mentions)


def org_block(office: OfficeView, limit: int = 30) -> str:
    """The company as it is now, for the secretary's prompt (bounded)."""
    depts = list(office.state.company.departments.values())
    staff = [e for e in office.state.employees.values() if not e.dismissed and e.id != SECRETARY]
    lines = ["## The company now"]
    for d in depts[:limit]:
        members = ", ".join(d.members[:12]) or "nobody yet"
        lines.append(f"- department {d.id} ({d.name}): lead {d.lead or 'none'}; members {members}")
    if not depts:
        lines.append("- no departments yet")
    for e in staff[:limit]:
        archetype = e.persona.get("archetype") or e.persona.get("id") or "?"
        lines.append(
            f"- employee {e.id} ({e.name}, {e.role}, {archetype}, {e.department or 'no department'})"
        )
    if len(staff) > limit:
        lines.append(f"- ... and {len(staff) - limit} more employees")
    return "\n".join(lines)


def summary_quotes(office: OfficeView, note: str, per_conversation: int = 8, limit: int = 30) -> list[str]:
    """The messages a summary think reads, quoted: shown as conversation, never as a note."""
    if not note.startswith(SUMMARY_NOTE) or "Conversations: " not in note:
        return []
    ids = note.split("Conversations: ", 1)[1].split(".", 1)[0].split()
    lines = []
    for cid in ids:
        conv = office.state.conversations.get(cid)
        for m in list(conv.recent)[-per_conversation:] if conv else ():
            lines.append(f"[{cid}] {office.name_of(m.sender)}: {' '.join(m.text.split())[:200]}")
    return lines[-limit:] or ["(nothing has been said yet)"]
