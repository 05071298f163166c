"""One think: read a conversation, ask the model once, gate what it wants to say, post, schedule.

A think starts at a moment of simulated time with a snapshot of what the employee reads; its
model call runs as an asyncio task (so thoughts due close together run concurrently, up to the
LLM layer's cap); it finishes `think_seconds` later in simulated time, when its result is
applied. Results are applied in clock order, not in the order calls return, so a run is
deterministic for the same seed and the same answers.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from ideaco.llm.base import BudgetExhausted, ChatRequest, ChatResult, LLMAuthError, LLMError, ReplayMiss
from ideaco.llm.structured import StructuredAnswer, ask_structured
from ideaco.mind import memory as memories
from ideaco.mind import relationships, stamina, tasks
from ideaco.mind.prompt import PERSPECTIVES, ChatLine, Person, PromptView, Scene, render_prompt
from ideaco.mind.thought import Thought, validate_thought, wire_schema, wire_token_bound
from ideaco.office import effects, rules
from ideaco.office.conversation import BOSS, ConversationKind, boss_conversation_id
from ideaco.office.secretary import SECRETARY, TOOL_ARGS, org_block, run_tool, summary_quotes, tools_allowed
from ideaco.office.state import ConversationState, EmployeeState, Focus

if TYPE_CHECKING:
    from ideaco.office.office import Office

TRIGGER_NOTES = {
    "boss": "The boss has written to you.",
    "mention": "Someone mentioned you.",
    "nudge": "There are new messages.",
    "timer": "You glance at the chat.",
    "idle": "The room has been quiet for a while; you may start a topic if you feel like it.",
    "system": "",
    "on_resolve": "",
    "task": "",
}
GROUP_KINDS = (ConversationKind.WORK, ConversationKind.CASUAL)
# Thinks that answer someone (or that the engine owes): a gate delays them, never drops them.
ENGINE_TRIGGERS = ("system", "on_resolve", "task")
ADDRESSED_TRIGGERS = ("mention", "boss", *ENGINE_TRIGGERS)


@dataclass
class ThinkContext:
    """What a think read and when; carried from its start to its finish."""

    thought_id: str
    employee: str
    conversation: str
    trigger: str
    at: datetime
    read_upto: int
    mentioned: bool
    task: asyncio.Task
    rethink: bool = False
    corrections: list[str] = field(default_factory=list)
    note: str = ""  # the engine's note this think read (a system request is re-asked if held)


class Thinker:
    """The think half of an employee's cycle, for one office."""

    def __init__(self, office: Office) -> None:
        self.office = office
        self._tasks: set[asyncio.Task] = set()

    # ------------------------------------------------------------------ start

    async def start(
        self, employee_id: str, conv_id: str, trigger: str, note: str = "", *, rethink: bool = False
    ) -> None:
        office = self.office
        emp = office.employees.get(employee_id)
        conv = office.conversations.get(conv_id)
        if emp is None or conv is None:
            return
        if office.stop_event.is_set():
            emp.phase = "idle"
            return
        emp.phase = "thinking"
        now = office.clock.now()
        effects.before_think(emp, now)
        unread = office.unread(emp, conv)
        # What the engine itself asks for (a summary, a report) counts as addressed, like a mention.
        mentioned = any(emp.id in m.mentions for m in unread) or trigger in ADDRESSED_TRIGGERS
        view = self.view(emp, conv, trigger, note, now)
        schema = self.schema_for(emp, conv, note)
        request = ChatRequest(
            messages=tuple(render_prompt(view)),
            model=office.model_for(emp.model),
            max_tokens=max(office.config.max_tokens, wire_token_bound(schema)),
            temperature=office.config.temperature,
            json_schema=schema,
            schema_name="flow_of_thought",
            seed=office.rng.randrange(2**31),
            tag=f"{emp.id} in {conv.id} at {now.isoformat()}",
        )
        task = asyncio.ensure_future(ask_structured(office.llm, request, validate_thought))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        ctx = ThinkContext(
            thought_id=office.next_id("thought"),
            employee=emp.id,
            conversation=conv.id,
            trigger=trigger,
            at=now,
            read_upto=conv.count,
            mentioned=mentioned,
            task=task,
            rethink=rethink,
            note=note,
        )
        office.clock.call_at(now + timedelta(seconds=office.config.think_seconds), lambda: self.finish(ctx))

    def schema_for(self, emp: EmployeeState, conv: ConversationState, note: str = "") -> dict[str, Any]:
        """The thought schema with this employee's real ids as the only choices."""
        office = self.office
        mine = office.conversations_of(emp.id)
        people = tuple(m for m in conv.members if m != emp.id and m in office.employees)
        colleagues = {m for c in mine for m in c.members if m != emp.id and m in office.employees}
        rooms = {c.id for c in mine if c.kind in GROUP_KINDS}
        return wire_schema(
            people or None,
            tuple(sorted(colleagues | rooms | {"boss"})),
            task_ids=tuple(t.id for t in emp.pending_tasks),
            memory_ids=tuple(i.id for i in (*emp.memory.long_term, *emp.memory.short_term)),
            tools=tuple(TOOL_ARGS) if tools_allowed(emp.id, conv.id, note) else (),
            compact=office.config.compact_schema,
        )

    def view(
        self, emp: EmployeeState, conv: ConversationState, trigger: str, note: str, now: datetime
    ) -> PromptView:
        office = self.office
        cursor = emp.cursors.get(conv.id, 0)
        first_seq = conv.count - len(conv.recent)
        lines = []
        for i, m in enumerate(conv.recent):
            lines.append(
                ChatLine(
                    at=m.at.strftime("%H:%M"),
                    sender=office.name_of(m.sender),
                    text=m.text,
                    unread=first_seq + i >= cursor and m.sender != emp.id,
                    is_boss=m.sender == BOSS,
                    is_me=m.sender == emp.id,
                )
            )
        dedupe = []
        for m in reversed(conv.recent):
            if m.from_agent and m.sender != emp.id and m.text not in dedupe:
                dedupe.append(m.text)
            if len(dedupe) == 3:
                break
        members = tuple(
            Person(e.id, e.name, e.role)
            for e in (office.employees.get(p) for p in conv.members)
            if e is not None
        )
        if conv.kind is ConversationKind.BOSS:
            members = members + (Person(BOSS, "Boss", "your boss"),)
        scene = Scene(id=conv.id, name=conv.name, kind=conv.kind.value, members=members, mission=conv.mission)
        notes = tuple(n for n in (note, *emp.notes) if n)
        emp.notes.clear()  # read once
        read_text = " ".join(m.text for m in list(conv.recent)[-10:])
        long, short = memories.recall(emp.memory, now, read_text)
        present = [m for m in conv.members if m != emp.id]
        return PromptView(
            me=Person(emp.id, emp.name, emp.role),
            age=emp.age,
            persona=emp.persona,
            company=office.company,
            language=office.language,
            scene=scene,
            now=now.strftime("%A %H:%M"),
            lines=tuple(lines),
            trigger_note=TRIGGER_NOTES.get(trigger, ""),
            system_notes=notes,
            dedupe=tuple(reversed(dedupe)),
            perspective=office.rng.choice(PERSPECTIVES),
            history_summary=emp.memory.summaries.get(conv.id),
            tasks_block=tasks.tasks_block(emp.tasks, now),
            memories_block=memories.memory_block(long, short),
            impressions_block=relationships.impressions_block(emp.relationships, present, now),
            stamina_note=stamina.prompt_note(emp.stamina),
            tools=emp.id == SECRETARY,
            org_block=org_block(office) if emp.id == SECRETARY else "",
            quoted=tuple(summary_quotes(office, note)) if emp.id == SECRETARY else (),
        )

    # ------------------------------------------------------------------ finish

    async def finish(self, ctx: ThinkContext) -> None:
        office = self.office
        emp = office.employees[ctx.employee]
        conv = office.conversations[ctx.conversation]
        now = office.clock.now()
        try:
            answer: StructuredAnswer[Thought] = await ctx.task
        except asyncio.CancelledError:
            if ctx.task.cancelled() and office.stop_event.is_set():
                return  # cut by a stop: the employee stays mid-think, so a resume re-wakes it
            raise
        except BudgetExhausted as exc:
            self._record(ctx, None, list(exc.spent), gate="budget", error=str(exc))
            emp.phase = "idle"
            self._owe_again(emp, ctx)  # a resumed run with a higher limit thinks it again
            office.stop(str(exc))
            return
        except LLMAuthError as exc:  # a refused key will not get better by retrying: stop, say so
            office.stats.errors[exc.kind] = office.stats.errors.get(exc.kind, 0) + 1
            self._record(ctx, None, list(exc.spent), gate="error", error=str(exc))
            self._owe_again(emp, ctx)
            emp.phase = "idle"
            office.stop(f"{exc} (check the key: --api-key-env or OPENAI_API_KEY)", failed=True)
            return
        except ReplayMiss as exc:  # a replay that cannot answer cannot go on: say which request
            self._record(ctx, None, None, gate="error", error=str(exc))
            emp.phase = "idle"
            office.stop(str(exc), failed=True)
            return
        except LLMError as exc:
            office.stats.errors[exc.kind] = office.stats.errors.get(exc.kind, 0) + 1
            retry_at = now + timedelta(seconds=office.config.timers.max_s / 2)
            self._record(ctx, None, list(exc.spent), gate="error", error=str(exc), next_look_at=retry_at)
            self._retry_later(emp, ctx, retry_at)
            return
        results = answer.results
        corrections = ctx.corrections + answer.corrections
        thought = answer.value
        if thought is None:
            office.stats.errors["invalid_output"] = office.stats.errors.get("invalid_output", 0) + 1
            retry_at = now + timedelta(seconds=office.config.timers.max_s / 2)
            self._record(
                ctx,
                None,
                results,
                gate="error",
                error=answer.error,
                corrections=corrections,
                next_look_at=retry_at,
            )
            self._retry_later(emp, ctx, retry_at)
            return
        arrived = [m for m in conv.since(ctx.read_upto) if m.sender != emp.id]
        if arrived and thought.shouldSpeak and not ctx.rethink:
            self._record(ctx, thought, results, gate="superseded", corrections=corrections)
            # Names only: colleagues' words stay in the chat history (untrusted), never in a system note.
            senders = ", ".join(dict.fromkeys(office.name_of(m.sender) for m in arrived))
            note = (
                f"While you were thinking, {len(arrived)} new message(s) arrived from {senders} (marked * above). "
                "Reconsider; do not repeat them."
            )
            await self.start(emp.id, conv.id, ctx.trigger, note, rethink=True)
            return
        self._apply(emp, conv, ctx, thought, corrections, len(results))
        posted, gate = self._speak(emp, conv, ctx, thought, corrections)
        posted += self._actions(emp, conv, ctx, thought, corrections)
        delay = rules.adaptive_delay(
            thought.interestLevel, thought.topicSaturation, office.rng, office.config.timers
        )
        next_look_at = ctx.at + timedelta(seconds=delay)
        if next_look_at <= now:
            next_look_at = now + timedelta(seconds=office.config.timers.min_s)
        self._record(
            ctx,
            thought,
            results,
            gate=None if posted else gate,
            corrections=corrections,
            next_look_at=next_look_at,
            posted=posted,
        )
        office.after_think(emp, next_look_at, read=conv.id)
        office.checkpoint_after_thought()

    def _retry_later(self, emp: EmployeeState, ctx: ThinkContext, at: datetime) -> None:
        """A think the model failed: the employee looks again at `at`, for the same cause."""
        self._owe_again(emp, ctx)
        self.office.after_think(emp, at, read=ctx.conversation)

    def _owe_again(self, emp: EmployeeState, ctx: ThinkContext) -> None:
        """A think that did not happen stays owed: the engine's note (a report, a summary) is not lost.

        What it read stays unread (the cursor did not move), so a plain look finds that again; an
        engine request lives only in its note. A re-think's note is only the "new messages" hint.
        """
        if ctx.trigger in ENGINE_TRIGGERS and ctx.note and not ctx.rethink:
            if not any(f.conversation == ctx.conversation and f.note == ctx.note for f in emp.focus):
                emp.focus.append(Focus(ctx.conversation, ctx.trigger, ctx.note))
        if ctx.trigger not in emp.wake_triggers and ctx.trigger not in ("timer", "idle"):
            emp.wake_triggers.append(ctx.trigger)  # the next look (or a resume) keeps the trigger

    def _apply(
        self,
        emp: EmployeeState,
        conv: ConversationState,
        ctx: ThinkContext,
        thought: Thought,
        corrections: list[str],
        calls: int,
    ) -> None:
        """What a thought changes in the mind even when silent: read cursor, memory, people, tasks, stamina."""
        emp.cursors[conv.id] = max(emp.cursors.get(conv.id, 0), ctx.read_upto)
        emp.interest, emp.saturation = thought.interestLevel, thought.topicSaturation
        corrections.extend(effects.apply_effects(self.office, emp, conv, thought, calls=calls))

    def _speak(
        self,
        emp: EmployeeState,
        conv: ConversationState,
        ctx: ThinkContext,
        thought: Thought,
        corrections: list[str],
    ) -> tuple[list[str], str | None]:
        """Gate and post the thought's messages in its own conversation."""
        if not thought.shouldSpeak:
            return [], "chose_silence"
        office = self.office
        texts = [m.content for m in thought.messages]
        if conv.kind in GROUP_KINDS and len(texts) > 1:
            corrections.append(f"messages: {len(texts) - 1} extra message(s) dropped in a group room")
            texts = texts[:1]
        posted: list[str] = []
        for i, text in enumerate(texts):
            gate, reopens = self._gate(emp, conv, text, thought.topicSaturation, ctx.mentioned)
            if gate is not None:
                if not posted and ctx.mentioned and reopens is not None:
                    self._hold(emp, conv, gate, reopens, ctx)
                if posted:  # the rest of a burst: held by the gate its first message set off
                    corrections.append(f"messages[{i}:]: {len(texts) - i} held by {gate}, dropped")
                return posted, gate if not posted else None
            message = office.make_message(conv.id, emp.id, text.strip(), msg_id=f"{ctx.thought_id}-{i + 1}")
            office.post(message)
            posted.append(message.id)
        return posted, None

    def _gate(
        self, emp: EmployeeState, conv: ConversationState, text: str, saturation: int, mentioned: bool
    ) -> tuple[str | None, datetime | None]:
        """Speech gates (2.2), then loop breakers (2.3). Returns (gate name, reopens_at)."""
        office = self.office
        now = office.clock.now()
        own = [m.at for m in conv.recent if m.sender == emp.id]
        verdict = rules.check_speech(conv.kind, own, saturation, mentioned, now, office.config.gates)
        if not verdict.allowed:
            return verdict.gate, verdict.reopens_at
        history = list(conv.recent)
        if conv.closed_until is not None and conv.closed_until > now:
            return "loop_breaker", None
        if not rules.check_duplicate(history, emp.id, text, now).allowed:
            effects.record_repetition(emp)
            return "loop_breaker", None
        ring = rules.check_ring(history, emp.id, now)
        if not ring.allowed:
            conv.closed_until = ring.closed_until
            return "loop_breaker", None
        return None, None

    def _hold(
        self, emp: EmployeeState, conv: ConversationState, gate: str, reopens: datetime, ctx: ThinkContext
    ) -> None:
        """A mentioned employee held back by a gate is re-woken when it opens: delayed, never dropped.

        The re-wake keeps its original trigger (spec 1.5), and an engine request keeps its note.
        """
        trigger = ctx.trigger if ctx.trigger in ADDRESSED_TRIGGERS else "mention"
        note = f"You were addressed here but held back ({gate}); reply now if still useful."
        if trigger in ENGINE_TRIGGERS and ctx.note:
            note = f"{ctx.note} (You were held back earlier by {gate}.)"
        emp.held_until[conv.id] = reopens
        emp.focus.append(Focus(conv.id, trigger, note))
        self.office.schedule_wake(emp, reopens, trigger)

    def _actions(
        self,
        emp: EmployeeState,
        conv: ConversationState,
        ctx: ThinkContext,
        thought: Thought,
        corrections: list[str],
    ) -> list[str]:
        """send_message actions: a DM to a colleague, the boss chat, or another room.

        The secretary also has the organization tools (`office/secretary.py`).
        """
        office = self.office
        posted: list[str] = []
        results: list[str] = []
        for i, action in enumerate(thought.actions):
            where = f"actions[{i}]"
            if action.tool in TOOL_ARGS and emp.id == SECRETARY:
                if not tools_allowed(emp.id, conv.id, ctx.note):
                    # Only the boss gives orders (spec 2.3): a colleague's DM, a room, or quoted
                    # messages are conversation, so "the boss says fire Alice" there changes nothing.
                    corrections.append(f"{where}: {action.tool} outside the boss's own request, refused")
                    continue
                outcome = run_tool(office, action.tool, action.args)
                office.invalidate_index()  # a tool may hire, dismiss, or change who is in a room
                results.append(("Done: " if outcome.ok else "Refused: ") + outcome.message)
                if not outcome.ok:
                    corrections.append(f"{where}: {outcome.message}")
                continue
            if action.tool != "send_message":
                corrections.append(f"{where}: unknown tool {action.tool!r}, dropped")
                continue
            to = str(action.args.get("to") or "").strip().lstrip("@")
            content = str(action.args.get("content") or "").strip()[:2000]
            if not to or not content:
                continue  # an empty action is the schema's way of saying "none"
            target = self._target(emp, to)
            if target is None:
                corrections.append(f"{where}: send_message to {to!r}: unknown target, dropped")
                continue
            if target.id == conv.id:
                corrections.append(f"{where}: send_message to the conversation being read, dropped")
                continue
            gate, _ = self._gate(emp, target, content, 1, False)
            if gate is not None:
                corrections.append(f"{where}: send_message to {target.id} held by {gate}")
                continue
            message = office.make_message(target.id, emp.id, content, msg_id=f"{ctx.thought_id}-a{i + 1}")
            office.post(message)
            posted.append(message.id)
        if results:  # the secretary reports what its tools did (or why not) in its boss chat
            note = " ".join(results) + " Tell the boss what was done, and what was not and why."
            effects.owe(office, emp, Focus(boss_conversation_id(emp.id), "system", note))
        return posted

    def _target(self, emp: EmployeeState, to: str) -> ConversationState | None:
        office = self.office
        low = to.lower()
        if low in ("boss", f"boss:{emp.id}"):
            return office.conversations.get(boss_conversation_id(emp.id))
        for other in office.employees.values():
            if other.id != emp.id and low in (other.id.lower(), other.name.lower()):
                return office.dm(emp.id, other.id)
        room = office.conversations.get(to) or office.conversations.get(to.removeprefix("group-chat-"))
        if room is not None and room.kind in GROUP_KINDS and emp.id in room.members:
            return room
        return None

    # ------------------------------------------------------------------ logging

    def _record(
        self,
        ctx: ThinkContext,
        thought: Thought | None,
        results: list[ChatResult] | None,
        *,
        gate: str | None,
        error: str | None = None,
        corrections: list[str] | None = None,
        next_look_at: datetime | None = None,
        posted: list[str] | None = None,
    ) -> None:
        office = self.office
        llm = _llm_record(results)
        if llm is not None:
            office.stats.llm_calls += len(results or [])
            office.stats.prompt_tokens += llm["prompt_tokens"]
            office.stats.completion_tokens += llm["completion_tokens"]
            office.stats.cached_tokens += llm["cached_tokens"]
        office.stats.thoughts += 1
        if gate is not None:
            office.stats.gates[gate] = office.stats.gates.get(gate, 0) + 1
        record: dict[str, Any] = {
            "id": ctx.thought_id,
            "at": ctx.at.isoformat(),
            "employee": ctx.employee,
            "conversation": ctx.conversation,
            "trigger": ctx.trigger,
            "thought": thought.to_record() if thought else None,
            "spoke": bool(posted),
            "gate": gate,
            "llm": llm,
            "corrections": corrections or [],
            "next_look_at": next_look_at.isoformat() if next_look_at else None,
            "messages": posted or [],
            "rethink": ctx.rethink,
        }
        if error:
            record["error"] = error
        office.journal.thought(record)
        for observer in office.observers:
            observer.on_thought(office, record)

    def cancel_inflight(self) -> None:
        """Cut every model call in flight (a stop); the thinks they belong to are owed again."""
        for task in list(self._tasks):
            task.cancel()

    async def drain(self) -> None:
        """Cancel model calls still in flight when a run stops (their thinks are re-woken on resume)."""
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)


def _llm_record(results: list[ChatResult] | None) -> dict[str, Any] | None:
    if not results:
        return None
    return {
        "model": results[0].model,
        "prompt_tokens": sum(r.usage.prompt_tokens for r in results),
        "completion_tokens": sum(r.usage.completion_tokens for r in results),
        "cached_tokens": sum(r.usage.cached_tokens for r in results),
        "latency_ms": round(sum(r.latency_ms for r in results), 1),
        "calls": len(results),
    }
