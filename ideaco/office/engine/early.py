"""Thinking early without changing the run: model calls started before their moment (issue 19).

The office runs its events one at a time in simulated-time order, and a think holds its model
call only from its start to its finish, so on its own the office keeps about one call in flight.
But most upcoming thinks read things nothing before them will change. While the office waits for
a model, `EarlyCalls` builds the requests of the soonest upcoming thinks of employees not thinking now
(a think already typing; the next look of one who is idle) from the office as it stands, exactly
as their own moment would (`looks.plan_look`, `reading.begin_request`, on copies of the
employees' own random streams), and starts their calls.

When a think's moment comes the office builds its request as always and asks `take`: an early
call for the very same request (equal field by field: messages, schema, seed, sampling, tag) is
the think's call; any other is dropped. Nothing is applied before its moment, so a "rollback" is
only a dropped call: given the same answers, the run is the run `--speculate 0` makes.

An answer already in goes further (issue 30): what its think will post and whom its posts will
wake is known, so the thinks after it are predicted on the office as those answers will leave it
(`whatif.py`) and started early too, used by the same comparison at their moment.

Waste is bounded and counted: at most `limit` early calls wait to be used at a time; an early
call whose inputs may have changed (a post where its employee reads, a change to the company) is
checked again and dropped at once if its request changed; near the run's budget nothing more is
started early. An early call's side effects (its `--record` line) wait until it is used
(`llm/tentative.py`), and it waits behind every call someone is waiting for (`llm/limits.py`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from ideaco.cycle import Phase, Trigger
from ideaco.llm import tentative
from ideaco.llm.base import LLM, ChatRequest, LLMError
from ideaco.office.core.steps import (
    BoardStep,
    CompanyStep,
    ConversationStep,
    EmployeeStep,
    GateHoldStep,
    MindStep,
    OweAgainStep,
    OweStep,
    Step,
)
from ideaco.office.core.think import ThinkContext
from ideaco.office.engine import upcoming, whatif
from ideaco.office.engine.calls import Calls, InFlight
from ideaco.office.engine.upcoming import Prediction

SCAN_PER_FREE = 4  # upcoming thinks looked at per call that may start early
SETTLE_S = 0.005  # how long a call may take before the office thinks anything early


class EarlyOffice(upcoming.UpcomingOffice, Protocol):
    """The office as its early calls see it: what predictions read, and where calls start."""

    llm: LLM
    calls: Calls
    stop_event: asyncio.Event


class Budget(Protocol):
    """What `BudgetLLM` tells of the run's budget."""

    max_calls: int | None
    max_tokens: int | None

    @property
    def calls(self) -> int: ...

    @property
    def tokens(self) -> int: ...


@dataclass
class Early:
    """A call started before its think's moment: the think it is for, and what it leaves to do."""

    employee: str
    think: Prediction
    call: InFlight
    mark: tentative.Tentative
    seen: tuple[Any, ...]  # what the office looked like to its employee when it was checked
    chained: bool = False  # predicted on the office as answers in would leave it (`whatif.py`)

    @property
    def request(self) -> ChatRequest:
        return self.think.request


def _failed(call: InFlight) -> bool:
    """An early call that ended without a thought: cut, failed (timeout, 429, 5xx...) or a bad answer."""
    if not call.done():
        return False
    return call.cancelled() or call.exception() is not None or call.result().value is None


Blockers = dict[str, list[tuple[datetime, str, str]]]  # conversation -> (posts at, known, kind_of)


def kind_of(trigger: Trigger, rethinks: int = 0) -> str:
    """What a think is, for how often such thinks post (`EarlyCalls.learn`): its trigger, or a
    re-think (which nearly always does)."""
    return "rethink" if rethinks else Trigger(trigger).value


def under_way(office: upcoming.UpcomingOffice, early: Iterable[tuple[str, Prediction, InFlight]]) -> Blockers:
    """Thinks under way (and early calls) by the conversation they read: when they post, whether
    their answer posts anything as far as known (`upcoming.outcome`, `upcoming.held`), and their kind."""
    out: Blockers = {}
    thinks = [
        (c.employee, c.conversation, c.at, c.call, kind_of(c.trigger, c.rethinks))
        for c in office.thinking.values()
    ]
    thinks += [
        (employee, think.conversation, think.at, call, think.trigger) for employee, think, call in early
    ]
    for employee, conv_id, at, call, trigger in thinks:
        finish, known = upcoming.finish_at(office, at), upcoming.outcome(call)
        if known != upcoming.QUIET and upcoming.held(office, employee, conv_id, finish, call):
            known = upcoming.QUIET  # whatever it drafts there, its own gates hold it
        out.setdefault(conv_id, []).append((finish, known, trigger))
    return out


@dataclass
class EarlyCounts:
    """Early calls started, used and dropped (what they cost in tokens: summary.json's `tokens_unused`)."""

    started: int = 0
    used: int = 0
    dropped: int = 0
    dropped_calls: int = 0  # model calls behind the dropped asks (a repair is a second)
    chained: int = 0  # of those started, predicted on answers not landed yet (`whatif.py`)

    def to_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class EarlyCalls:
    """The office's early calls: at most `limit` waiting to be used (0: none, the office as before)."""

    limit: int = 0
    budget: Budget | None = None
    settle_s: float = SETTLE_S
    counts: EarlyCounts = field(default_factory=EarlyCounts)
    early: dict[str, Early] = field(default_factory=dict)
    _touched: dict[str, int] = field(default_factory=dict)
    _epoch: int = 0
    survival: float = 0.7  # start early only when at least this likely to be used (see `_blocked`)
    _posts: dict[str, list[int]] = field(default_factory=dict)  # kind of think -> [posted, thoughts]
    _predicted: dict[str, tuple[tuple[Any, ...], Prediction | None]] = field(default_factory=dict)
    _tokens_per_call: float = 0.0
    _version: int = 0  # bumped by every touch: a what-if is kept while nothing changed
    _what_if: tuple[tuple[Any, ...], whatif.WhatIf | None] | None = None

    # ------------------------------------------------------------------ at a think's moment

    def take(
        self, employee: str, request: ChatRequest, again: Callable[[], InFlight] | None = None
    ) -> InFlight | None:
        """The early call made for exactly `request`, now the think's own; None: call now.

        `again` makes the think's own call: a call still out that then fails (or answers with no
        thought) is dropped and asked again that way, as a failed one is at once — an early call is
        never the think's error, so the run stays the one `--speculate 0` makes."""
        early = self.early.pop(employee, None)
        if early is None:
            return None
        if early.request != request or _failed(early.call):
            self._drop(early)  # a failed early call is asked again as the think's own, never its error
            return None
        self.counts.used += 1
        try:
            early.mark.commit()  # its record line, if any, is written now
        except LLMError as exc:  # the recording refused it: the think's call fails as a live one would
            failure: InFlight = asyncio.get_running_loop().create_future()
            failure.set_exception(exc)
            return failure
        if early.call.done() or again is None:
            return early.call
        return asyncio.ensure_future(self._or_again(early, again))

    async def _or_again(self, early: Early, again: Callable[[], InFlight]) -> Any:
        """The early call's answer; if it fails, the think's own call's (the early one dropped)."""
        try:
            await asyncio.wait([early.call])  # its failure is read below, never raised here
        finally:
            if not early.call.done():  # the think was cut (a stop): so is the call it waited for
                early.call.cancel()
        if not _failed(early.call):
            return early.call.result()
        self.counts.used -= 1
        self._drop(early)
        return await again()

    def _drop(self, early: Early) -> None:
        early.mark.drop()
        self.counts.dropped += 1
        call = early.call
        if not call.done():
            call.cancel()
            self.counts.dropped_calls += 1
            return
        if call.cancelled() or call.exception() is not None:
            # the call that failed, and those answered before it in the same ask (a repair's first)
            spent = getattr(call.exception(), "spent", ()) if not call.cancelled() else ()
            self.counts.dropped_calls += 1 + len(spent)
            return
        self.counts.dropped_calls += len(call.result().results)

    def drop(self, employee: str) -> None:
        """Drop the employee's early call, if any (a hold, a dismissal)."""
        early = self.early.pop(employee, None)
        if early is not None:
            self._drop(early)

    def drop_all(self) -> None:
        for employee in list(self.early):
            self.drop(employee)

    # ------------------------------------------------------------------ what may have changed

    def touch(self, employees: Iterable[str]) -> None:
        """Something these employees read changed (a post where they are members)."""
        self._version += 1
        for employee in employees:
            self._touched[employee] = self._touched.get(employee, 0) + 1

    def touch_all(self) -> None:
        """Something everyone may read changed (the company, the board, who works here)."""
        self._version += 1
        self._epoch += 1

    def touch_steps(self, employee: str, steps: Iterable[Step]) -> None:
        """What a resolved think changed beyond its posts (each post touches its members itself):
        its own employee, the employees it owed or held; everyone, for the company, the board, the staff."""
        touched = {employee}
        for step in steps:
            if isinstance(step, OweStep | OweAgainStep | GateHoldStep | MindStep):
                touched.add(step.employee)
            elif isinstance(step, CompanyStep | ConversationStep | EmployeeStep | BoardStep):
                self.touch_all()
        self.touch(touched)

    # ------------------------------------------------------------------ while the office waits

    async def settle(self, call: InFlight) -> None:
        """Give the call `settle_s` to answer before anything is predicted: with a model that answers
        in a few milliseconds (a replay, a local fake) predicting would only cost, and against one
        that takes seconds the delay is nothing."""
        if self.limit > 0 and self.settle_s > 0 and not call.done():
            await asyncio.wait({call}, timeout=self.settle_s)

    async def while_waiting(self, office: EarlyOffice, call: InFlight) -> None:
        """What the office does while a think waits for its model `call`: give the call `settle_s`,
        then, until it is done, start the soonest upcoming thinks' calls (`top_up`) and wait for
        any call to answer; once its answer is in, top up again (the thinks it wakes may start)."""
        await self.settle(call)  # a model that answers at once leaves nothing to do early
        waited = False
        while not call.done():
            self.top_up(office)
            waited = True
            # the call's own failure is the think's result, not ours
            await self.wait(call, (c.call for c in office.thinking.values()))
        if waited:
            self.top_up(office)

    async def wait(self, call: InFlight, thinking: Iterable[InFlight] = ()) -> None:
        """Until `call`, one of the early calls under way or one of the other `thinking` calls is
        done (an answer in may let thinks after it start: `_chained`)."""
        running = {e.call for e in self.early.values() if not e.call.done()}
        running |= {c for c in thinking if not c.done()}
        await asyncio.wait({call, *running}, return_when=asyncio.FIRST_COMPLETED)

    def top_up(self, office: EarlyOffice) -> None:
        """Drop early calls whose request changed; start calls for the soonest upcoming thinks that
        nothing known will change before their moment."""
        if self.limit <= 0 or office.stop_event.is_set():
            return
        for employee, early in list(self.early.items()):
            seen = self._seen(office, employee)
            if seen == early.seen:
                continue
            think = self._predict(office, employee, seen)
            if think is None or think.request != early.request:
                if not early.chained or not self._chain_keeps(office, early):
                    self.drop(employee)
                    continue
            early.seen = seen
        free = min(self.limit - len(self.early), self._headroom())
        if free <= 0:
            return
        blockers = under_way(office, ((e.employee, e.think, e.call) for e in self.early.values()))
        free = self._start_soonest(office, office, free, blockers)
        if free > 0:
            self._chained(office, free)

    def _start_soonest(
        self,
        office: EarlyOffice,
        view: EarlyOffice | whatif.WhatIf,
        free: int,
        blockers: Blockers,
        survives: float = 1.0,
    ) -> int:
        """Start calls for the soonest upcoming thinks on `view` (the office itself, or the office as
        answers in will leave it) that nothing due before them is likely to change; the room left.

        On a what-if, only thinks that begin after its last link lands and that it changes (the
        office as it stands had its say on the rest) start, as chained calls."""
        landed_at = view.landed_at if isinstance(view, whatif.WhatIf) else None
        chained = landed_at is not None
        # The soonest few only: one further off is more likely to change before its moment, and
        # predicting every employee at every wait would cost a large office more than it saves.
        for _, employee in upcoming.upcoming(view, exclude=self.early)[
            : SCAN_PER_FREE * free + SCAN_PER_FREE
        ]:
            seen = self._seen(office, employee)
            alone = self._predict(office, employee, seen)
            think = upcoming.predict(view, employee) if chained else alone
            if think is None:
                continue
            blocked = self._blocked(view, employee, think, blockers, survives)
            if landed_at is not None:
                blocked = blocked or think.at <= landed_at
                blocked = blocked or (alone is not None and alone.request == think.request)
            # Started or not, it thinks before the ones after it, and may post where they read.
            blockers.setdefault(think.conversation, []).append(
                (upcoming.finish_at(office, think.at), upcoming.UNKNOWN, kind_of(think.trigger))
            )
            if blocked:
                continue
            self._start(office, employee, think, seen, chained)
            free -= 1
            if free <= 0:
                return 0
        return free

    def _start(
        self,
        office: EarlyOffice,
        employee: str,
        think: Prediction,
        seen: tuple[Any, ...],
        chained: bool = False,
    ) -> None:
        mark = tentative.Tentative()
        call = office.calls.start(office.llm, think.request, mark)
        call.add_done_callback(self._learn)
        self.early[employee] = Early(employee, think, call, mark, seen, chained)
        self.counts.started += 1
        self.counts.chained += chained

    def _chained(self, office: EarlyOffice, free: int) -> None:
        """Start calls for thinks that come after answers already in have landed: predicted on the
        office as those answers will leave it (`whatif.what_if`), the wakes their posts set included."""
        view = self._chain_view(office)
        if view is None:
            return
        early = [
            (e.employee, e.think, e.call) for e in self.early.values() if e.employee not in view.landed_early
        ]
        # An early call's think lands only if its request is still the same at its moment: as
        # likely as the early calls so far were used.
        certain = self.hit_rate() ** len(view.landed_early)
        self._start_soonest(office, view, free, under_way(view, early), certain)

    def _chain_view(self, office: EarlyOffice) -> whatif.WhatIf | None:
        """The office once the answered thinks under way have landed (kept while nothing changed)."""
        links = whatif.answered(office, ((e.employee, e.think, e.call) for e in self.early.values()))
        if not links:
            return None
        key = (tuple(link.key for link in links), self._version)
        if self._what_if is None or self._what_if[0] != key:
            self._what_if = (key, whatif.what_if(office, links))
        return self._what_if[1]

    def _chain_keeps(self, office: EarlyOffice, early: Early) -> bool:
        """Whether a call started on answers not landed yet is still what its think will send once
        they land (something its employee reads changed meanwhile)."""
        view = self._chain_view(office)
        if view is None:
            return False
        think = upcoming.predict(view, early.employee)
        return think is not None and think.request == early.request

    def _predict(self, office: EarlyOffice, employee: str, seen: tuple[Any, ...]) -> Prediction | None:
        cached = self._predicted.get(employee)
        if cached is not None and cached[0] == seen:
            return cached[1]
        think = upcoming.predict(office, employee)
        self._predicted[employee] = (seen, think)
        return think

    def _blocked(
        self,
        office: EarlyOffice,
        employee: str,
        think: Prediction,
        blockers: Blockers,
        survives: float = 1.0,
    ) -> bool:
        """Whether something due before the think's moment is likely to change what it reads: a think
        that posts where it reads (or, for an employee still to look, in any of its conversations: a
        post there may wake it sooner); a line of the boss's script. A think whose answer is not in
        yet posts as often as the run's thinks of its kind did so far. Measured and left out (the
        workday and the 100-person office in virtual time, `benchmarks/concurrency.py`'s offices):
        counting the posts of thinks nobody knows of yet, at the pace each conversation saw lately,
        held back more thinks that would have been used than it saved drops (the workday's useful
        calls in flight 2.07 -> 1.71)."""
        emp = office.state.employees[employee]
        where = {think.conversation}
        if emp.desk.phase is Phase.IDLE:
            where |= {c.id for c in office.conversations_of(employee)}
        if upcoming.scripted_before(office, where, think.at):
            return True
        for conv in where:
            for finish, known, kind in blockers.get(conv, ()):
                if finish > think.at:
                    continue
                if known == upcoming.POSTS:
                    return True
                if known == upcoming.UNKNOWN:
                    survives *= 1.0 - self.posting_rate(kind)
        return survives < self.survival

    def resolved(
        self, ctx: ThinkContext, steps: Iterable[Step], posted_to: Iterable[str], posted: bool
    ) -> None:
        """A think resolved: what the members of the rooms it posted in read changed, and what it
        changed beyond its posts (`touch_steps`); how often thinks of its kind post (`learn`)."""
        self.touch(posted_to)
        self.touch_steps(ctx.employee, steps)
        self.learn(kind_of(ctx.trigger, ctx.rethinks), posted)

    def learn(self, kind: str, posted: bool) -> None:
        """A think of this kind (`kind_of`) was resolved, and posted or not."""
        seen = self._posts.setdefault(kind, [0, 0])
        seen[0] += posted
        seen[1] += 1

    def hit_rate(self) -> float:
        """How often the early calls settled so far were used (half, before any was)."""
        return (self.counts.used + 1) / (self.counts.used + self.counts.dropped + 2)

    def posting_rate(self, kind: str) -> float:
        """How often thinks of this kind have posted so far (half, before any was seen)."""
        posted, total = self._posts.get(kind, (0, 0))
        return (posted + 1) / (total + 2)

    def _seen(self, office: EarlyOffice, employee: str) -> tuple[Any, ...]:
        desk = office.state.employees[employee].desk
        pending = office.typing.get(employee)
        touched = self._touched.get(employee, 0)
        return (desk.phase, desk.wake_at, tuple(desk.wake_triggers), pending, touched, self._epoch)

    def _learn(self, call: InFlight) -> None:
        """Tokens per call of the answers seen so far: what the budget's headroom counts by."""
        if call.cancelled() or call.exception() is not None:
            return
        results = call.result().results
        if results:
            tokens = sum(r.usage.total_tokens for r in results) / len(results)
            self._tokens_per_call = max(self._tokens_per_call, tokens)

    def _headroom(self) -> int:
        """How many more calls may start early: none once the budget's end is in sight (a call made
        early and dropped counts against the budget like any other)."""
        budget = self.budget
        if budget is None:
            return self.limit
        reserve = 4 * self.limit  # two calls an ask (a repair), for the early ones and as many live
        room = self.limit
        if budget.max_calls is not None:
            room = min(room, budget.max_calls - budget.calls - reserve)
        if budget.max_tokens is not None:
            per_call = self._tokens_per_call or 4000.0  # unknown yet: a generous guess
            room = min(room, int((budget.max_tokens - budget.tokens) / per_call) - reserve)
        return max(0, room)
