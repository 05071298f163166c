"""The office: employees waking, reading, thinking and speaking on one clock — and the one owner of its state.

`Office` owns the state (`OfficeState`) and the event flow (spec 2.1): wakes on adaptive timers,
nudges and mentions (as its `WakePolicy` says), the typing pause, one conversation per think,
posting messages. A think (`decide/decision.decide`) only reads the office and returns a `ThinkResult`;
`resolve` — and nothing else — applies it (`resolve/apply.resolve`: its steps in order, the next
look, the thought's record) and takes back its `Effects`: it logs and shows what was posted and
puts the wakes on the clock. A resume resolves the logged records again (`build.catch_up`). Drive it as the CLI does:
`run()` for a duration or `step()` event by event, `post_as_boss()` at any moment.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from ideaco.cycle import LoopRule, Phase, Trigger
from ideaco.ids import BOSS, MESSAGE, THOUGHT, boss_conversation_id
from ideaco.llm.base import LLM
from ideaco.llm.config import DEFAULT_MODELS, Models
from ideaco.office.core.conversation import Message
from ideaco.office.core.directory import Directory, StateReads
from ideaco.office.core.refusal import Refusal
from ideaco.office.core.state import Begin, Employee, OfficeState
from ideaco.office.core.stats import RunStats
from ideaco.office.core.steps import DraftStep, NoticeStep, Step
from ideaco.office.core.think import ThinkContext, ThinkResult
from ideaco.office.decide import commands, decision
from ideaco.office.decide.speech import build_message
from ideaco.office.decide.tools.org import ToolResult
from ideaco.office.engine import calls, persistence, starting
from ideaco.office.engine.agent_work import AgentWork
from ideaco.office.engine.clock import Clock
from ideaco.office.engine.early import EarlyCalls
from ideaco.office.engine.past import Past
from ideaco.office.engine.streams import Streams
from ideaco.office.engine.upcoming import Typing
from ideaco.office.perceive import looks, reading, taskboard
from ideaco.office.perceive.view import Observer, office_read
from ideaco.office.resolve import apply, change_log
from ideaco.office.resolve.journal import Journal
from ideaco.office.resolve.landing import DueWake, Effects, Landing, Wakes
from ideaco.office.resolve.policies import policy_for
from ideaco.office.resolve.waking import WakePolicy
from ideaco.office.rules.config import OfficeConfig


class Office(StateReads):
    """A running office. Build it with `ideaco.office.engine.build`; every part is passed in."""

    def __init__(
        self,
        *,
        company: str,
        language: str,
        state: OfficeState,
        llm: LLM,
        clock: Clock,
        streams: Streams,
        journal: Journal,
        config: OfficeConfig,
        policy: WakePolicy | None = None,
        models: Models = DEFAULT_MODELS,
        meta: dict[str, Any] | None = None,
        stats: RunStats | None = None,
        early_calls: EarlyCalls | None = None,
        past: Past | None = None,
    ) -> None:
        self.company = company
        self.language = language
        self.state = state
        self.llm = llm
        self.clock = clock
        self.streams = streams
        self.journal = journal
        self.config = config
        self.policy: WakePolicy = policy or policy_for(config.switches.wake)
        self.models = models
        self.meta = meta or {}
        self.stats = stats or RunStats()
        self.observers: list[Observer] = []  # a display: told of each message and thought
        self.script: list[dict[str, Any]] = self.meta.pop("script", None) or []
        self.script_next: int = self.meta.pop("script_next", 0)
        self.end_at: datetime | None = None
        self.stop_event = asyncio.Event()
        self.stop_reason: str | None = None
        self.failed = False
        self.wakes = Wakes()  # wake versions, wakes not on the clock yet, message ids posted
        self.calls = calls.Calls()  # model calls in flight
        # calls started before their think's moment (off by default)
        self.early_calls = early_calls or EarlyCalls()
        self.agent_work = AgentWork()  # agent employees' commands: none run unless a session allows them
        self.typing: dict[str, Typing] = {}  # thinks whose typing pause is under way
        self.thinking: dict[str, ThinkContext] = {}  # thinks whose model call is under way
        self._replay_at: datetime | None = None  # set while logged records are applied again
        self._saves = persistence.Saves(journal, self.meta)  # and the thinks begun, not logged yet
        self._directory = Directory(state)
        self.past = past  # a fork's logged past, retraced: its thinks answered by their records (past.py)

    @property
    def rng(self) -> random.Random:
        """The random stream of the event being handled: its employee's, or the office's (`streams.py`)."""
        return self.streams.current

    def now(self) -> datetime:
        return self._replay_at if self._replay_at is not None else self.clock.now()

    def next_id(self, kind: str) -> str:
        return self.state.next_id(kind)

    # ------------------------------------------------------------------ waking

    def schedule_wake(self, emp: Employee, at: datetime, trigger: Trigger | str) -> None:
        """Wake `emp` at `at` unless it is already due earlier; the trigger joins the batch."""
        self.wakes.schedule(self.policy, emp, at, trigger)
        self.schedule_due()

    def schedule_due(self) -> None:
        """Put the wakes this office set since (`resolve/landing.Wakes`) on the clock, in order."""
        self._on_clock(self.wakes.take_due())

    def _on_clock(self, wakes: Iterable[DueWake]) -> None:
        """Put these wakes on the clock, in order (while replaying, they stay on the desks)."""
        for wake in wakes:
            if self._replay_at is None:  # while replaying, wakes stay on the desk: start() schedules them
                self.clock.call_at(wake.at, partial(self._on_wake, wake.employee, wake.version))

    async def _on_wake(self, employee_id: str, version: int) -> None:
        emp = self.state.employees.get(employee_id)
        if emp is None or emp.dismissed or not self.wakes.current(employee_id, version):
            return
        now, desk = self.now(), emp.desk
        triggers, desk.wake_triggers, desk.wake_at = desk.wake_triggers, [], None
        if desk.phase != Phase.IDLE:
            desk.deferred_triggers.extend(t for t in triggers if t not in desk.deferred_triggers)
            return
        considered = self.meta.setdefault("idle_thought_at", {})
        plan = looks.plan_look(self.policy, self, emp, triggers, now, self.streams.of(emp.id), considered)
        if plan is None:  # nothing to read, no think owed: the next look costs no model call
            max_s = self.policy.timers_for(self, emp).max_s
            at = self.policy.next_look(self, emp, now + timedelta(seconds=max_s), now)
            self.schedule_wake(emp, at, Trigger.TIMER)
            return
        desk.take_look(plan.found.alert, plan.found.owed, plan.deferred)
        conv_id, trigger, note = plan.found.conversation, plan.trigger, plan.note
        if plan.found.idle:  # the room's idle time starts again: its members' next looks may change
            considered[conv_id] = now.isoformat()
            self.early_calls.touch(self.state.conversations[conv_id].members)
        self.typing[emp.id] = Typing(now + timedelta(seconds=plan.pause), conv_id, trigger, note)

        async def think() -> None:
            self.begin_think(emp.id, conv_id, trigger, note)

        self.clock.call_at(now + timedelta(seconds=plan.pause), think)

    # ------------------------------------------------------------------ thinking

    def begin_think(
        self, employee_id: str, conv_id: str, trigger: Trigger, note: str = "", rethinks: int = 0
    ) -> None:
        """Start a think: read the conversation, start the model call, finish `think_seconds` later."""
        self.typing.pop(employee_id, None)
        emp = self.state.employees.get(employee_id)
        conv = self.state.conversations.get(conv_id)
        if emp is None or conv is None:
            return
        if self.stop_event.is_set():
            emp.desk.phase = Phase.IDLE
            return
        if not rethinks and emp.desk.held_while_typing():
            return
        now = self.now()
        begun = reading.begin_request(self, emp, conv, trigger, note, now, self.streams.of(emp.id))
        # natural recovery for the idle time; notes read once; the board's open work in this prompt
        emp.begin(Begin(begun.stamina, True, taskboard.shown_alerts(self, emp, now)))
        # A call made early for the very same request is this think's call (early.py); else one now.
        request = begun.request
        if self.past is not None and self.past.holds(emp.id, now):  # its record answers it: no call
            call = self.past.answered()
        else:
            call = self.early_calls.take(emp.id, request, again=lambda: self.calls.start(self.llm, request))
            if call is None:
                call = self.calls.start(self.llm, request)
            else:
                self.calls.track(call)  # a stop cuts it with the rest
        ctx = begun.context(
            emp, conv, Trigger(trigger), now, self.next_id(THOUGHT), call, note=note, rethinks=rethinks
        )
        self.thinking[emp.id] = self._saves.begun[emp.id] = ctx

        self.clock.call_at(now + timedelta(seconds=self.config.think_seconds), partial(self._finish, ctx))

    async def _finish(self, ctx: ThinkContext) -> None:
        logged = self.past.outcome(ctx) if self.past is not None else None
        if logged is not None:  # a think of the retraced past: it does what its record says
            if self.thinking.get(ctx.employee) is ctx:
                del self.thinking[ctx.employee]
            logged.check(self.resolve(logged.result, posts=logged.posts))
            return
        await self.early_calls.while_waiting(self, ctx.call)  # meanwhile, upcoming thinks' calls start
        if ctx.call.cancelled() and not self.stop_event.is_set():
            raise asyncio.CancelledError(f"model call of {ctx.thought_id} cancelled")
        prepared = await self.agent_work.prepare(self, ctx, self.calls)  # an agent's documents; False: cut
        now = self.now()
        result = decision.decide(office_read(self, now), ctx, now) if prepared else None
        if self.thinking.get(ctx.employee) is ctx:
            del self.thinking[ctx.employee]
        if result is not None:  # None: cut by a stop; the employee stays mid-think, a resume re-wakes it
            self.resolve(result)

    def cancel_inflight(self) -> None:
        """Cut every model call in flight (a stop); the thinks they belong to are owed again on resume."""
        self.early_calls.drop_all()
        self.calls.cancel()

    async def drain(self) -> None:
        """Cancel the model calls still in flight and wait for them to end."""
        await self.calls.drain()

    def resolve(self, result: ThinkResult, *, posts: dict[str, Message] | None = None) -> dict[str, Any]:
        """Land what a think did in one call (`apply.resolve`: its steps in order, its next look, its
        record) and do what it hands back (`Effects`: log and show its posts, put its wakes on the
        clock); then log the record, begin a re-think or stop, save if due. Returns the record.

        While replaying (`replaying()`), `posts` holds the logged messages the think posted, and
        nothing is logged again.
        """
        with self.streams.drawing(result.ctx.employee):  # what it sets off draws from its stream
            return self._resolve(result, posts)

    def _resolve(self, result: ThinkResult, posts: dict[str, Message] | None) -> dict[str, Any]:
        ctx, live = result.ctx, self._replay_at is None
        effects = apply.resolve(self.landing(), result, posts)
        self._take(effects)
        self.early_calls.resolved(
            ctx, effects.steps, self._posted_to(effects.steps, posts), bool(result.posted)
        )
        if result.error_kind:
            self.stats.errors[result.error_kind] = self.stats.errors.get(result.error_kind, 0) + 1
        record = effects.record
        assert record is not None
        self.stats.count(record)
        if live:
            self.journal.thought(record)
            self._saves.begun.pop(ctx.employee, None)
            for observer in self.observers:
                observer.on_thought(self, record)
        if result.rethink is not None:
            if live:
                self.begin_think(
                    ctx.employee, ctx.conversation, ctx.trigger, result.rethink, ctx.rethinks + 1
                )
        elif result.stop is not None:
            if live:
                reason, failed = result.stop
                self.stop(reason, failed=failed)
        elif live:
            self.checkpoint_after_thought()
        return record

    def _posted_to(self, steps: Iterable[Step], posts: dict[str, Message] | None) -> list[str]:
        """The members of the conversations a resolved think posted in."""
        members: list[str] = []
        for step in steps:
            if isinstance(step, DraftStep | NoticeStep):
                message = step.message or (posts or {}).get(step.message_id or "")
                conv = self.state.conversations.get(step.conversation) if message is not None else None
                members += conv.members if conv is not None else ()
        return members

    def apply_tool(self, tool: str, args: dict[str, Any]) -> ToolResult:
        """An organization tool called directly (the boss's own command): decided, then applied here."""
        self.early_calls.touch_all()
        outcome, steps = commands.tool(
            self.state, self.company, tool, args, self.now(), self.config.switches.stamina
        )
        land = self.landing()
        apply.apply_command(land, tool, args, steps)
        self._take(land.effects())
        return outcome

    def apply_logged(self, record: dict[str, Any]) -> None:
        """A logged command (changes.jsonl) applied again: a resume's catch-up."""
        land = self.landing()
        apply.apply_logged(land, record)
        self._take(land.effects())

    def landing(self) -> Landing:
        """What a resolve lands on now: the state and the parts it writes, with this moment, the
        stream of the event being handled and whether its records are new."""
        return Landing(
            company=self.company,
            language=self.language,
            config=self.config,
            policy=self.policy,
            models=self.models,
            script=self.script,
            script_next=self.script_next,
            state=self.state,
            _directory=self._directory,
            wakes=self.wakes,
            meta=self.meta,
            at=self.now(),
            rng=self.streams.current,
            live=self._replay_at is None,
        )

    def _take(self, effects: Effects) -> None:
        """What a resolve left to do: its files written, its messages counted (and, if new, logged
        and shown), its changes logged, its wakes put on the clock."""
        live = self._replay_at is None
        for key, content in effects.documents:
            self.journal.document(key, content)
        self.stats.messages += len(effects.posted)
        if live:
            for message in effects.posted:
                self.journal.message(message.to_record())
        for change in effects.changes:
            change_log.log(self.journal, self.meta, change)
        self._on_clock(effects.wakes)
        if live:
            for message in effects.posted:
                for observer in self.observers:
                    observer.on_message(self, message)

    # ------------------------------------------------------------------ posting

    def post(self, message: Message) -> LoopRule | None:
        """Record a message and wake whom it reaches (a known id: nothing); the loop breaker that limited it."""
        approval = commands.approval(self.state, message.text, self.now()) if message.sender == BOSS else None
        land = self.landing()
        rule = apply.post(land, message, approval)
        self._take(land.effects())
        conv = self.state.conversations.get(message.conversation)
        self.early_calls.touch(conv.members if conv is not None else ())  # what its members read changed
        return rule

    def make_message(
        self, conversation: str, sender: str, text: str, *, msg_id: str | None = None
    ) -> Message:
        conv = self.state.conversations[conversation]
        return build_message(conv, sender, text, msg_id or self.next_id(MESSAGE), self.people, self.now())

    def resolve_conversation(self, target: str) -> str:
        """Accept a conversation id, `boss:<id>`, or an employee id (its boss chat)."""
        if target in self.state.conversations:
            return target
        if target in self.state.employees:
            return boss_conversation_id(target)
        raise KeyError(f"no conversation or employee named {target!r}")

    def sign_off(self, requirement: str, verdict: str, notes: str = "") -> Message:
        """The boss approves (`approve`) or reopens (`reopen`, with notes) a requirement waiting for
        it: a `/approve` or `/reopen` line in its lead's boss chat. Raises `ValueError` saying why not."""
        line = commands.sign_off_line(self.state, requirement, verdict, notes)
        if isinstance(line, Refusal):
            raise ValueError(line.reason)
        return self.post_as_boss(*line)

    def post_as_boss(self, conversation: str, text: str, *, msg_id: str | None = None) -> Message:
        """The boss writes in a conversation (room id, `boss:<employee>` or an employee id)."""
        cid = self.resolve_conversation(conversation)
        message = self.make_message(cid, BOSS, text, msg_id=msg_id)
        self.post(message)
        return message

    # ------------------------------------------------------------------ running

    def start(self) -> None:
        """Schedule what is pending: script lines, wakes, owed thinks (also after a resume)."""
        starting.schedule(self)

    def stop(self, reason: str, *, failed: bool = False) -> None:
        """End the run at the next event; `failed` marks a stop the user must act on."""
        if self.stop_reason is None:
            self.stop_reason = reason
            self.failed = failed
        self.stop_event.set()
        # No wait for calls in flight (a slow model takes minutes): cut, re-woken on resume like a kill's.
        self.cancel_inflight()

    async def run(self, duration: timedelta | None = None, *, until: datetime | None = None) -> None:
        """Run until `until` (or now + duration, or the run's end) or until stopped."""
        end = until or (self.now() + duration if duration is not None else self.end_at)
        if end is None:
            raise ValueError("run() needs a duration or an end time")
        self.end_at = end
        stopped = True
        try:
            await self.clock.run_until(end, self.stop_event)
            stopped = self.stop_event.is_set()
        finally:
            # Model calls still in flight at a plain end belong to thinks the next run() or
            # step() finishes; only a stopped (or failed) run cancels them.
            if stopped:
                await self.drain()
            self.checkpoint()

    async def step(self) -> bool:
        """Run the next event (on the simulated clock); False when nothing is scheduled."""
        return await self.clock.step()

    @contextmanager
    def replaying(self, at: datetime) -> Iterator[None]:
        """Apply logged records as of `at`: nothing is logged again, wakes stay on the desks."""
        self._replay_at = at
        try:
            yield
        finally:
            self._replay_at = None

    # ------------------------------------------------------------------ persistence

    def checkpoint(self) -> None:
        """Save the whole office now (state.json)."""
        self._saves.begin()
        self._saves.save(persistence.snapshot(self))

    def checkpoint_after_thought(self) -> None:
        """Save after a thought, unless that would spend more than its share of the run on saves."""
        if self._saves.due():
            self.checkpoint()
