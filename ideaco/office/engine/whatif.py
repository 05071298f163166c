"""The office as it will stand once the answers already in have landed (issue 30).

A think's model call often answers long before the think's moment to finish comes: the office
handles its events one at a time in simulated-time order, and waits at an earlier think's finish;
an early call may answer before its think has even begun. What such a think will post, and whom
its posts will wake, is then known: `what_if` decides those thinks (`decision.decide`, as their
finish will; an early call's think begun first, as its look and `Office.begin_think` would) and
lands their steps (`apply.apply_step`, as `Office.resolve` will) on a copy of the parts they
change, in the order they finish, with copies of their employees' random streams; the boss's
next script line, known from the start, lands too. The office itself, its logs and its streams
are never touched. `early.py` predicts upcoming thinks on that copy (`upcoming.predict` reads it
like the office) and starts their calls: a call made this way is used only if the think's request
at its moment is the very same, so a wrong guess costs a dropped call, never a different run.

Only what is cheap to copy is carried forward: a link whose think would change the company, a
document, open a conversation or think again (superseded), or a script line that signs a
requirement off, ends the chain before it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from datetime import datetime, timedelta
from typing import Any

from ideaco.cycle import Trigger
from ideaco.ids import BOSS, THOUGHT, script_line_id
from ideaco.kinds import ToolName
from ideaco.office.core.state import Begin, OfficeState
from ideaco.office.core.steps import (
    BoardStep,
    ConversationStep,
    DraftStep,
    GateHoldStep,
    MindStep,
    NoticeStep,
    OweAgainStep,
    OweStep,
    Step,
)
from ideaco.office.core.think import ThinkContext
from ideaco.office.decide import commands, decision
from ideaco.office.engine import starting, upcoming
from ideaco.office.engine.calls import InFlight
from ideaco.office.engine.streams import OFFICE, Streams
from ideaco.office.engine.upcoming import Prediction
from ideaco.office.perceive import taskboard
from ideaco.office.perceive.view import office_read
from ideaco.office.resolve import apply
from ideaco.office.resolve.landing import Landing, Wakes

CARRIED = (MindStep, DraftStep, NoticeStep, OweStep, OweAgainStep, GateHoldStep, BoardStep, ConversationStep)
MAX_LINKS = 8  # answered thinks landed in one what-if: the soonest to finish


@dataclass
class WhatIf(Landing):
    """The office after `links` have landed: read by `upcoming.predict` as the office itself."""

    streams: Streams | None = None
    typing: dict[str, Any] = field(default_factory=dict)
    thinking: dict[str, ThinkContext] = field(default_factory=dict)
    links: tuple[str, ...] = ()  # the links landed, in order
    landed_early: set[str] = field(default_factory=set)  # employees whose early call's think landed
    landed_at: datetime | None = None  # the last one's finish: predictions begin after it


@dataclass(frozen=True)
class Link:
    """A think whose answer is in: one under way (`ctx`), or one whose call was made early (`think`)."""

    employee: str
    at: datetime  # when it begins (began); a script line: when it is posted
    call: InFlight | None
    ctx: ThinkContext | None = None
    think: Prediction | None = None
    line: int | None = None  # a line of the boss's script (known from the start), by its index

    @property
    def key(self) -> str:
        if self.line is not None:
            return script_line_id(self.line)
        return self.ctx.thought_id if self.ctx is not None else f"early {self.employee} {self.at.isoformat()}"

    def lands(self, office: Any) -> datetime:
        """When what it posts is posted: a think at its finish, a script line at its moment."""
        return self.at if self.line is not None else upcoming.finish_at(office, self.at)


def answered(office: Any, early: Iterable[tuple[str, Prediction, InFlight]]) -> list[Link]:
    """Thinks whose answer is in and posts something, by the moment they finish: those under way,
    and those whose early call has answered (`early`: employee, prediction, call)."""
    links = [Link(c.employee, c.at, c.call, ctx=c) for c in office.thinking.values()]
    links += [Link(employee, think.at, call, think=think) for employee, think, call in early if think.begun]
    out = []
    for link in links:
        if upcoming.outcome(link.call) != upcoming.POSTS:
            continue
        thought = link.call.result().value
        if any(action.tool != ToolName.SEND_MESSAGE for action in thought.actions):
            continue  # a document or a company tool: not carried (an agent's work among them)
        out.append(link)
    out += _script_lines(office)
    out.sort(key=lambda link: (link.lands(office), link.line is None, link.ctx is None, link.key))
    out = out[:MAX_LINKS]
    # Predictions begin after the last one lands: no script line past the last answer (the first
    # line, when no answer is in), or a line hours away would hold back everything before it.
    last = max((i for i, link in enumerate(out) if link.line is None), default=0)
    return out[: last + 1]


def _script_lines(office: Any) -> list[Link]:
    """The boss's script lines still to come, the soonest few."""
    last = min(len(office.script), office.script_next + MAX_LINKS)
    return [Link(BOSS, starting.line_at(office, i), None, line=i) for i in range(office.script_next, last)]


def what_if(office: Any, links: list[Link]) -> WhatIf | None:
    """The office once the carried links have landed, in order; None if not even the first can be."""
    view = _copy(office)
    landed: list[str] = []
    for link in links:
        finish = link.lands(office)  # (links come in the order they land)
        if link.think is not None and view.landed_at is not None and link.at < view.landed_at:
            break  # it begins before what is landed already: it reads the office without it
        if link.line is not None:
            if not _post_line(office, view, link.line, finish):
                break
            view.landed_at = finish
            landed.append(link.key)
            continue
        ctx = link.ctx if link.ctx is not None else _begin(view, link)
        result = decision.decide(office_read(view, finish), ctx, finish)
        # (a thought in hand is neither a failure nor a stop: those come of calls that failed)
        if result is None or result.rethink is not None:
            break
        if not all(_carried(step) for step in result.steps):
            break
        _own(view, ctx.employee, result.steps)
        stream = link.think.stream if link.think is not None else office.streams.of(ctx.employee)
        view.at, view.rng = finish, stream.copy()
        for step in result.steps:
            apply.apply_step(view, step, None)
        view.thinking.pop(ctx.employee, None)
        if link.think is not None:
            view.landed_early.add(link.employee)
        view.landed_at = finish
        landed.append(link.key)
    if not landed:
        return None
    view.links = tuple(landed)
    view.wakes.take_due()  # nothing goes on any clock
    return view


def _post_line(office: Any, view: WhatIf, index: int, at: datetime) -> bool:
    """The boss's script line `index` posted on the what-if (as `starting.post_script`); False if it
    cannot be carried (a sign-off)."""
    if commands.approval(view.state, office.script[index]["text"], at) is not None:
        return False
    message = starting.script_message(office, view, index, at)
    _own(view, BOSS, [DraftStep("script", message.conversation, message=message, message_id=message.id)])
    view.at, view.rng = at, office.streams.of(OFFICE).copy()
    apply.post(view, message)
    view.script_next = index + 1
    return True


def _begin(view: WhatIf, link: Link) -> ThinkContext:
    """What beginning an early call's think does (its look, `Office.begin_think`), on the what-if."""
    think = link.think
    assert think is not None and think.begun is not None
    begun, conv = think.begun, view.state.conversations[think.conversation]
    emp = view.state.employees[link.employee] = view.state.employees[link.employee].copy()
    if think.plan is not None:  # an idle employee's look finds it, a pause before it begins
        look = think.at - timedelta(seconds=think.plan.pause)
        emp.desk.take_look(think.plan.found.alert, think.plan.found.owed, think.plan.deferred)
        if think.plan.found.idle:  # as the office: the room's idle time starts again
            view.meta["idle_thought_at"][think.conversation] = look.isoformat()
        emp.desk.wake_at, emp.desk.wake_triggers = None, []
    view.typing.pop(link.employee, None)
    emp.begin(Begin(begun.stamina, True, taskboard.shown_alerts(view, emp, think.at)))  # as the office
    return begun.context(
        emp,
        conv,
        Trigger(think.trigger),
        think.at,
        view.state.next_id(THOUGHT),  # as `Office.begin_think` takes it (its posts' ids follow)
        link.call,
        note=think.note,
        rethinks=0,
    )


def _carried(step: Step) -> bool:
    """Whether a what-if lands this step: not one that opens a conversation (the rest are copied cheaply)."""
    return isinstance(step, CARRIED) and not (isinstance(step, ConversationStep) and step.opened is not None)


def _copy(office: Any) -> WhatIf:
    """A what-if sharing the office's state until `_own` copies what a link changes: what a resolve
    would land on now (`Office.landing`), with its own state, wakes and meta, and not live."""
    state = office.state
    copied = OfficeState(
        company=state.company,
        employees=dict(state.employees),
        conversations=dict(state.conversations),
        counters=dict(state.counters),
        board=dict(state.board),
        documents=state.documents,
    )
    land = office.landing()
    parts = {f.name: getattr(land, f.name) for f in fields(Landing)}
    parts.update(
        state=copied,
        _directory=land._directory.over(copied),
        wakes=Wakes(versions=dict(office.wakes.versions)),
        meta={**office.meta, "idle_thought_at": dict(office.meta.get("idle_thought_at") or {})},
        live=False,  # nothing logged or shown (and no document carried: the journal is never written)
    )
    return WhatIf(**parts, streams=office.streams, typing=dict(office.typing), thinking=dict(office.thinking))


def _own(view: WhatIf, employee: str, steps: list[Step]) -> None:
    """Copy what these steps change: the thinker, the conversations posted in, whom they may wake."""
    people = {employee}
    for step in steps:
        if isinstance(step, BoardStep):
            continue  # the board is the what-if's own
        if isinstance(step, DraftStep | NoticeStep | ConversationStep):
            conv = view.state.conversations[
                step.conversation if not isinstance(step, ConversationStep) else step.id
            ]
            view.state.conversations[conv.id] = conv.copy()
            people.update(conv.members)
            message = getattr(step, "message", None)
            people.update(message.mentions if message is not None else ())
        else:
            people.add(step.employee)
    for who in people:
        if who in view.state.employees:
            view.state.employees[who] = view.state.employees[who].copy()
