"""The office: employees waking, reading, thinking and speaking on one clock.

`Office` owns the state and the event flow (spec 2.1): wakes on adaptive timers, nudges and
mentions; the typing pause; one conversation per think; posting messages and waking who they
reach. The think itself (prompt, model call, gates, actions) lives in `thinking.py`.
Use it from Python as the CLI does: build, `run()` for a duration, or `step()` event by event,
`post_as_boss()` at any moment.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Protocol

from ideaco.llm.base import LLM
from ideaco.mind import tasks
from ideaco.office import effects, rules
from ideaco.office.clock import Clock
from ideaco.office.company import Company
from ideaco.office.conversation import (
    BOSS,
    ConversationKind,
    Message,
    boss_conversation_id,
    dm_conversation_id,
)
from ideaco.office.journal import Journal, MemoryJournal
from ideaco.office.state import ConversationState, EmployeeState, Focus

TRIGGER_ORDER = ("boss", "mention", "on_resolve", "task", "system", "nudge", "timer", "idle")
STATE_FORMAT = 1
# At most this share of a run's wall time goes to saving state.json after thoughts (see
# `checkpoint_after_thought`); a save costs time in proportion to the whole office.
CHECKPOINT_SHARE = 0.05


def first_trigger(triggers: list[str]) -> str:
    """The trigger recorded for a batch of causes (spec 1.5 order)."""
    present = set(triggers)
    for name in TRIGGER_ORDER:
        if name in present:
            return name
    return "timer"


class Observer(Protocol):
    """What a display (the CLI's transcript, a notebook) is told as the office runs."""

    def on_message(self, office: Office, message: Message) -> None: ...

    def on_thought(self, office: Office, record: dict[str, Any]) -> None: ...


@dataclass
class OfficeConfig:
    """Tunables of the engine; defaults are the spec's numbers."""

    timers: rules.TimerConfig = field(default_factory=rules.TimerConfig)
    gates: rules.GateConfig = field(default_factory=rules.GateConfig)
    think_seconds: float = 5.0  # simulated time one think takes
    compact_schema: bool = False  # shorter string bounds for small local models
    max_tokens: int = 700
    temperature: float = 0.8


@dataclass
class RunStats:
    thoughts: int = 0
    messages: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    gates: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Office:
    """A running office. Construct with `ideaco.office.build` helpers or directly."""

    def __init__(
        self,
        *,
        company: str,
        language: str,
        employees: dict[str, EmployeeState],
        conversations: dict[str, ConversationState],
        llm: LLM,
        clock: Clock,
        rng: random.Random,
        journal: Journal | None = None,
        config: OfficeConfig | None = None,
        model_for: Callable[[str | None], str] = lambda m: m or "default",
        meta: dict[str, Any] | None = None,
    ) -> None:
        self.company = company
        self.language = language
        self.employees = employees
        self.conversations = conversations
        self.llm = llm
        self.clock = clock
        self.rng = rng
        self.journal = journal or MemoryJournal()
        self.config = config or OfficeConfig()
        self.model_for = model_for
        self.meta = meta or {}
        self.observers: list[Observer] = []
        self.stats = RunStats(**(self.meta.pop("stats", None) or {}))
        self.counters: dict[str, int] = self.meta.pop("counters", None) or {"thought": 0, "message": 0}
        self.script: list[dict[str, Any]] = self.meta.pop("script", None) or []
        self.script_next: int = self.meta.pop("script_next", 0)
        self.end_at: datetime | None = None
        company_data = self.meta.pop("organization", None)
        self.company_model = Company.from_dict(company_data) if company_data else Company(company)
        self.stop_event = asyncio.Event()
        self.stop_reason: str | None = None
        self.failed = False
        self._seen_message_ids: set[str] = set()
        self._wake_versions: dict[str, int] = {}
        self._inflight: set[asyncio.Task] = set()
        self._saved_at = float("-inf")  # perf_counter() at the end of the last checkpoint
        self._save_seconds = 0.0  # how long it took
        # Who works here and who is in which conversation, asked several times per look: kept
        # until the company changes (see `invalidate_index`), so a look costs the same at any size.
        self._people: dict[str, str] | None = None
        self._memberships: dict[str, list[str]] | None = None
        self._indexed: tuple[int, int] = (-1, -1)  # (employees, conversations) when indexed
        from ideaco.office.thinking import Thinker  # the think half of the cycle

        self.thinker = Thinker(self)

    # ------------------------------------------------------------------ people and places

    @property
    def people(self) -> dict[str, str]:
        """Who works here now: id -> name (the dismissed are gone from mentions and ops). Read only."""
        self._check_index()
        if self._people is None:
            self._people = {e.id: e.name for e in self.employees.values() if not e.dismissed}
        return self._people

    def invalidate_index(self) -> None:
        """Forget who works here and who is in which conversation: call after changing either.

        Hiring, dismissing and room changes go through the secretary's tools (`run_tool`) and
        `dismiss`, which call this; an employee or conversation added to the office is noticed
        by itself (the counts change).
        """
        self._people = None
        self._memberships = None

    def _check_index(self) -> None:
        counts = (len(self.employees), len(self.conversations))
        if counts != self._indexed:
            self._indexed = counts
            self.invalidate_index()

    def add_conversation(self, conv: ConversationState) -> None:
        self.conversations[conv.id] = conv

    def dismiss(self, employee_id: str) -> None:
        """The employee leaves: no more wakes or owed thinks; memory and state are kept."""
        emp = self.employees[employee_id]
        emp.dismissed = True
        self.invalidate_index()
        emp.focus.clear()
        emp.wake_at, emp.wake_triggers, emp.deferred_triggers = None, [], []
        self._wake_versions[employee_id] = self._wake_versions.get(employee_id, 0) + 1

    def name_of(self, who: str) -> str:
        if who == BOSS:
            return "Boss"
        emp = self.employees.get(who)
        return emp.name if emp else who

    def dm(self, a: str, b: str) -> ConversationState:
        """The DM between two employees, opened on first use."""
        cid = dm_conversation_id(a, b)
        if cid not in self.conversations:
            pair = sorted((a, b))
            self.conversations[cid] = ConversationState(
                id=cid,
                kind=ConversationKind.DM,
                name=" & ".join(self.name_of(p) for p in pair),
                members=pair,
            )
        return self.conversations[cid]

    def conversations_of(self, employee: str) -> list[ConversationState]:
        """The conversations `employee` is a member of, in the office's order."""
        self._check_index()
        if self._memberships is None:
            index: dict[str, list[str]] = {}
            for conv in self.conversations.values():
                for member in dict.fromkeys(conv.members):
                    index.setdefault(member, []).append(conv.id)
            self._memberships = index
        return [self.conversations[cid] for cid in self._memberships.get(employee, ())]

    def unread(self, emp: EmployeeState, conv: ConversationState) -> list[Message]:
        return [m for m in conv.since(emp.cursors.get(conv.id, 0)) if m.sender != emp.id]

    # ------------------------------------------------------------------ ids

    def next_id(self, kind: str) -> str:
        self.counters[kind] = self.counters.get(kind, 0) + 1
        if kind == "task":
            return f"task-{self.counters[kind]}"
        prefix = {"thought": "t", "message": "m"}.get(kind, kind)
        return f"{prefix}{self.counters[kind]:06d}"

    def open_claims(self) -> dict[str, tuple[str, str]]:
        """Claim keys of open tasks company-wide: key -> (owner, task id)."""
        return tasks.open_claims(t for e in self.employees.values() for t in e.tasks)

    # ------------------------------------------------------------------ waking

    def schedule_wake(self, emp: EmployeeState, at: datetime, trigger: str) -> None:
        """Wake `emp` at `at` unless it is already due earlier; the trigger joins the batch."""
        if emp.dismissed:
            return
        if trigger not in emp.wake_triggers:
            emp.wake_triggers.append(trigger)
        if emp.wake_at is not None and emp.wake_at <= at:
            return
        emp.wake_at = at
        version = self._wake_versions.get(emp.id, 0) + 1
        self._wake_versions[emp.id] = version
        self.clock.call_at(at, lambda: self._on_wake(emp.id, version))

    async def _on_wake(self, employee_id: str, version: int) -> None:
        emp = self.employees.get(employee_id)
        if emp is None or emp.dismissed or self._wake_versions.get(employee_id) != version:
            return
        now = self.clock.now()
        triggers, emp.wake_triggers, emp.wake_at = emp.wake_triggers, [], None
        if emp.phase != "idle":
            emp.deferred_triggers.extend(t for t in triggers if t not in emp.deferred_triggers)
            return
        choice = self._choose_conversation(emp, now)
        if choice is None:
            due = effects.task_focus(emp, now, self.conversations)
            if due is not None:  # an overdue or critical task wakes its owner with nothing unread
                emp.focus.append(due)
                choice = (due.conversation, due)
                triggers = []
        if choice is None:
            idle_room = self._idle_room(emp, now)
            if idle_room is None:
                self.schedule_wake(
                    emp, self._next_look(emp, now + timedelta(seconds=self.config.timers.max_s)), "timer"
                )
                return
            choice = (idle_room, Focus(idle_room, "idle"))
            # The look itself found nothing: the think exists only because the room is idle.
            triggers = []
        conv_id, focus = choice
        emp.inflight = focus if focus is not None and focus.trigger != "idle" else None
        if focus is not None:
            emp.focus = [f for f in emp.focus if f is not focus]
            # An owed think is labelled by its own cause; the wake's other causes (a mention
            # elsewhere, say) are kept for the look right after it.
            emp.deferred_triggers.extend(
                t for t in triggers if t not in ("timer", "idle") and t not in emp.deferred_triggers
            )
            triggers = [focus.trigger]
        emp.phase = "typing"
        pause = rules.typing_pause(self.rng, self.config.timers)
        trigger = first_trigger(triggers)
        note = focus.note if focus else ""
        self.clock.call_at(
            now + timedelta(seconds=pause), lambda: self.thinker.start(emp.id, conv_id, trigger, note)
        )

    def _choose_conversation(self, emp: EmployeeState, now: datetime) -> tuple[str, Focus | None] | None:
        """One conversation at a time: owed thinks first, then mentions/boss, then most unread."""

        def open_(cid: str) -> bool:
            held = emp.held_until.get(cid)
            return held is None or held <= now

        for focus in emp.focus:
            if open_(focus.conversation) and focus.conversation in self.conversations:
                return focus.conversation, focus
        best: tuple[tuple[int, int], str] | None = None
        for conv in self.conversations_of(emp.id):
            if emp.cursors.get(conv.id, 0) >= conv.count or not open_(conv.id):
                continue  # read to the end (checked first: an empty look is the common case)
            unread = self.unread(emp, conv)
            if not unread:
                continue
            addressed = any(emp.id in m.mentions for m in unread)
            key = (1 if addressed else 0, len(unread))
            if best is None or key > best[0]:
                best = (key, conv.id)
        return (best[1], None) if best else None

    def _idle_room(self, emp: EmployeeState, now: datetime) -> str | None:
        """A casual room idle for 10 min may get a think anyway, so someone starts a topic.

        The chance is 15% for an average talker, scaled by the persona's talkativeness (a
        chatterbox starts topics, a shy introvert rarely does).
        """
        timers = self.config.timers
        talk = (emp.persona.get("tendencies") or {}).get("talkativeness", 0.5)
        if talk != 0.5:
            timers = self._talker_timers(timers, talk)
        # An idle think restarts its room's idle time like a message would: the room needs
        # someone to consider starting a topic every 10 min, not every member on every look.
        considered = self.meta.setdefault("idle_thought_at", {})
        for conv in self.conversations_of(emp.id):
            if conv.kind is not ConversationKind.CASUAL:
                continue
            quiet_since = conv.last_message_at
            if conv.id in considered:
                thought_at = datetime.fromisoformat(considered[conv.id])
                quiet_since = thought_at if quiet_since is None else max(quiet_since, thought_at)
            if rules.should_think_idle(conv.kind, quiet_since, now, self.rng, timers):
                considered[conv.id] = now.isoformat()
                return conv.id
        return None

    @staticmethod
    @functools.lru_cache(maxsize=64)
    def _talker_timers(timers: rules.TimerConfig, talk: float) -> rules.TimerConfig:
        # Cached: every empty look of every employee asks, and dataclasses.replace is slow.
        return dataclasses.replace(timers, idle_think_chance=min(1.0, timers.idle_think_chance * 2 * talk))

    def _next_look(self, emp: EmployeeState, at: datetime) -> datetime:
        """`at`, or earlier when a gate holding an owed reply opens, or a task turns overdue or critical.

        An employee has one pending wake, kept in its state (so it survives a resume); a sooner
        look replaces the one set for such a moment, so every reschedule must keep that moment.
        """
        now = self.clock.now()
        for focus in emp.focus:
            held = emp.held_until.get(focus.conversation)
            if held is not None and now < held < at:
                at = held
        due = tasks.next_urgency_change(emp.tasks, now)  # a task turning overdue or critical
        if due is not None and now < due < at:
            at = due
        return at

    def after_think(self, emp: EmployeeState, next_look_at: datetime, read: str | None = None) -> None:
        """Back to idle: schedule the next look, and any wake that arrived while busy.

        `read` is the conversation just thought about: its next look is `next_look_at`.
        """
        emp.phase = "idle"
        emp.inflight = None
        self.schedule_wake(emp, self._next_look(emp, next_look_at), "timer")
        deferred, emp.deferred_triggers = emp.deferred_triggers, []
        waiting = self._addressed_unread(emp, skip=read)
        if waiting and waiting not in deferred:
            # The boss or a colleague addressed me elsewhere while I thought about this
            # conversation: that answer is owed in 1-5 s, not at the next timed look.
            deferred.append(waiting)
        if deferred:
            soon = self.clock.now() + timedelta(seconds=rules.mention_delay(self.rng, self.config.timers))
            for trigger in deferred:
                self.schedule_wake(emp, soon, trigger)

    def _addressed_unread(self, emp: EmployeeState, skip: str | None = None) -> str | None:
        """'boss' or 'mention' when an open conversation holds an unread message addressing `emp`."""
        now = self.clock.now()
        found: str | None = None
        for conv in self.conversations_of(emp.id):
            if conv.id == skip:
                continue
            held = emp.held_until.get(conv.id)
            if held is not None and held > now:
                continue
            for message in self.unread(emp, conv):
                if emp.id in message.mentions:
                    if message.sender == BOSS:
                        return "boss"
                    found = "mention"
        return found

    # ------------------------------------------------------------------ posting

    def post(self, message: Message) -> bool:
        """Record a message and wake whom it reaches. Re-posting a known id is a no-op."""
        if message.id in self._seen_message_ids:
            return False
        conv = self.conversations[message.conversation]
        self._seen_message_ids.add(message.id)
        conv.add(message)
        self.stats.messages += 1
        self.journal.message(message.to_record())
        if message.from_agent:
            emp = self.employees.get(message.sender)
            if emp is not None and emp.cursors.get(conv.id, 0) == conv.count - 1:
                emp.cursors[conv.id] = conv.count
        for observer in self.observers:
            observer.on_message(self, message)
        self._reach(conv, message)
        return True

    def _reach(self, conv: ConversationState, message: Message) -> None:
        now = self.clock.now()
        timers = self.config.timers
        if message.sender == BOSS:
            conv.closed_until = None
            conv.last_boss_at = now
            conv.blocked_pair = None
            for member in conv.members:
                emp = self.employees.get(member)
                if emp is None:
                    continue
                if member in message.mentions:
                    self.schedule_wake(
                        emp, now + timedelta(seconds=rules.mention_delay(self.rng, timers)), "boss"
                    )
                else:
                    self.schedule_wake(
                        emp, now + timedelta(seconds=rules.nudge_delay(self.rng, timers)), "nudge"
                    )
            return
        if not message.from_agent:
            return
        since = max((t for t in (conv.last_boss_at, conv.reset_at) if t), default=None)
        history = list(conv.recent)
        if rules.unanswered_ceiling_reached(history, since):
            return
        pair = rules.pair_streak(history, since)
        if pair and conv.blocked_pair is None:
            conv.blocked_pair = pair
            first = self.employees.get(pair[0])
            if first is not None:
                other = self.name_of(pair[1])
                first.focus.append(
                    Focus(
                        conv.id,
                        "system",
                        f"You and {other} have gone back and forth several times. Summarize where you "
                        "landed in one short message, then let it rest.",
                    )
                )
                self.schedule_wake(
                    first, now + timedelta(seconds=rules.mention_delay(self.rng, timers)), "system"
                )
        for member in conv.members:
            if member == message.sender:
                continue
            emp = self.employees.get(member)
            if emp is None:
                continue
            if conv.blocked_pair and {message.sender, member} == set(conv.blocked_pair):
                continue
            if member in message.mentions:
                delay, trigger = rules.mention_delay(self.rng, timers), "mention"
            else:
                delay, trigger = rules.nudge_delay(self.rng, timers), "nudge"
            self.schedule_wake(emp, now + timedelta(seconds=delay), trigger)

    def make_message(
        self, conversation: str, sender: str, text: str, *, msg_id: str | None = None
    ) -> Message:
        conv = self.conversations[conversation]
        # Without an '@' nothing can be a mention: skip building every name of the company.
        people = self.people if "@" in text else {}
        if sender == BOSS:
            mentions = rules.addressed_by_boss(text, people, conv.members)
        else:
            mentions = rules.parse_mentions(text, people, conv.members, sender=sender)
        return Message(
            id=msg_id or self.next_id("message"),
            at=self.clock.now(),
            conversation=conversation,
            sender=sender,
            text=text,
            mentions=tuple(mentions),
        )

    def resolve_conversation(self, target: str) -> str:
        """Accept a conversation id, `boss:<id>`, or an employee id (its boss chat)."""
        if target in self.conversations:
            return target
        if target in self.employees:
            return boss_conversation_id(target)
        raise KeyError(f"no conversation or employee named {target!r}")

    def post_as_boss(self, conversation: str, text: str, *, msg_id: str | None = None) -> Message:
        """The boss writes in a conversation (room id, `boss:<employee>` or an employee id)."""
        cid = self.resolve_conversation(conversation)
        message = self.make_message(cid, BOSS, text, msg_id=msg_id)
        self.post(message)
        return message

    # ------------------------------------------------------------------ running

    def start(self) -> None:
        """Schedule what is pending: script lines, wakes, owed thinks (also after a resume)."""
        now = self.clock.now()
        start = datetime.fromisoformat(self.meta["start"]) if "start" in self.meta else now
        for index in range(self.script_next, len(self.script)):
            line = self.script[index]
            at = max(now, start + timedelta(seconds=line["offset_s"]))
            self.clock.call_at(at, lambda i=index: self._post_script(i))
        for emp in sorted(self.employees.values(), key=lambda e: e.id):
            if emp.dismissed:
                continue
            if emp.phase != "idle":  # a think was cut short (kill, budget): look again soon
                emp.phase = "idle"
                cut = emp.inflight
                if cut is not None and not any(
                    f.conversation == cut.conversation and f.note == cut.note for f in emp.focus
                ):
                    emp.focus.insert(0, cut)  # an owed think (a report, an onboarding) is still owed
                    emp.wake_triggers = [*emp.wake_triggers, cut.trigger]
                emp.wake_triggers = emp.wake_triggers or ["timer"]
            emp.inflight = None
            wake_at = emp.wake_at
            triggers = emp.wake_triggers or ["timer"]
            emp.wake_at, emp.wake_triggers = None, []
            at = max(now, wake_at) if wake_at else now + timedelta(seconds=self._initial_delay())
            for trigger in triggers:
                self.schedule_wake(emp, at, trigger)

    def _initial_delay(self) -> float:
        t = self.config.timers
        return self.rng.uniform(t.min_s, t.max_s)

    async def _post_script(self, index: int) -> None:
        if index != self.script_next:
            return
        line = self.script[index]
        self.post_as_boss(line["to"], line["text"], msg_id=f"script-{index + 1}")
        self.script_next = index + 1

    def stop(self, reason: str, *, failed: bool = False) -> None:
        """End the run at the next event; `failed` marks a stop the user must act on."""
        if self.stop_reason is None:
            self.stop_reason = reason
            self.failed = failed
        self.stop_event.set()
        # Do not wait for model calls in flight (a slow model takes minutes): their thinks are
        # cut and re-woken on resume, like a kill's.
        self.thinker.cancel_inflight()

    async def run(self, duration: timedelta | None = None, *, until: datetime | None = None) -> None:
        """Run until `until` (or now + duration, or the run's end) or until stopped."""
        end = until or (self.clock.now() + duration if duration is not None else self.end_at)
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
                await self.thinker.drain()
            self.checkpoint()

    async def step(self) -> bool:
        """Run the next event of a simulated clock; False when nothing is scheduled."""
        stepped = await self.clock.step()  # type: ignore[attr-defined]
        return stepped

    # ------------------------------------------------------------------ persistence

    def snapshot(self) -> dict[str, Any]:
        """The whole office as plain data, for state.json."""
        return {
            "office": {
                **self.meta,
                "format_version": STATE_FORMAT,
                "company": self.company,
                "language": self.language,
                "now": self.clock.now().isoformat(),
                "end_at": self.end_at.isoformat() if self.end_at else None,
                "stop_reason": self.stop_reason,
                "rng": _rng_state(self.rng),
                "counters": self.counters,
                "script": self.script,
                "script_next": self.script_next,
                "stats": self.stats.to_dict(),
                "organization": self.company_model.to_dict(),
            },
            # One TinyDB document per employee and per conversation.
            "employees": [e.to_dict() for e in self.employees.values()],
            "conversations": [c.to_dict() for c in self.conversations.values()],
        }

    def checkpoint(self) -> None:
        """Save the whole office now (state.json)."""
        started = time.perf_counter()
        self.journal.checkpoint(self.snapshot())
        self._saved_at = time.perf_counter()
        self._save_seconds = self._saved_at - started

    def checkpoint_after_thought(self) -> None:
        """Save after a thought, unless saving again this soon would spend more than
        CHECKPOINT_SHARE of the wall time on saves.

        A save rewrites the whole office, so saving after every thought of a fast model would
        cost each thought in proportion to the office's size. Thoughts are in the logs as they
        happen, and a resume applies those the last save missed (`build.catch_up`); with a
        model that takes seconds a thought, every thought is still saved.
        """
        if time.perf_counter() - self._saved_at >= self._save_seconds / CHECKPOINT_SHARE:
            self.checkpoint()

    def load_messages(self, records: list[dict[str, Any]]) -> None:
        """Rebuild conversations' recent windows from messages.jsonl (on resume)."""
        for rec in records:
            message = Message.from_record(rec)
            if message.id in self._seen_message_ids:
                continue
            self._seen_message_ids.add(message.id)
            if message.conversation not in self.conversations and message.conversation.startswith("dm:"):
                a, b = message.conversation.split(":")[1:3]
                self.dm(a, b)
            conv = self.conversations.get(message.conversation)
            if conv is not None:
                conv.add(message)


def _rng_state(rng: random.Random) -> list[Any]:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def restore_rng(state: list[Any]) -> random.Random:
    rng = random.Random()
    rng.setstate((state[0], tuple(state[1]), state[2]))
    return rng
