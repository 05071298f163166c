"""The secretary's tool calls in one think, within the bounds of `rules/toolcaps.py`.

A `Chain` is made for each think of the secretary that may act: which round of the boss's request
this think is (round 0 if it reads a line of the boss's, else the round its report was owed for),
the calls refused so far in that request, the costly calls of the last hour (the secretary's desk).
Each call is checked against the caps before it runs; a refused one is a `tool` step with the cap
named, and the secretary reads why. The report it is owed carries the next round; the report after
the last round is offered no tools, and if the secretary calls some anyway the engine tells the
boss, in one `system` line, that it stopped them.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from ideaco.cycle import Owed, Trigger
from ideaco.ids import BOSS, SECRETARY, SYSTEM, boss_conversation_id
from ideaco.kinds import MessageKind
from ideaco.mind.thought import Action
from ideaco.office.core.conversation import Message
from ideaco.office.core.steps import NoticeStep, Step, ToolStep
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.tools.org import ToolContext, run_tool
from ideaco.office.perceive.view import OfficeView
from ideaco.office.rules import toolcaps

REPORT = "Tell the boss what was done, and what was not and why."


@dataclass
class Chain:
    """One think's place in a boss request's tool chain, and what its calls did."""

    round: int
    refused: list[str]
    last_hour: list[tuple[str, datetime]]
    caps: toolcaps.ToolCaps = toolcaps.CAPS
    said: list[str] = field(default_factory=list)
    this_thought: Counter[str] = field(default_factory=Counter)
    stopped: list[str] = field(default_factory=list)  # tools called past the last round
    asked: bool = True  # False: no request of the boss's to act on (nothing to stop, nobody to tell)

    @classmethod
    def begin(cls, office: OfficeView, ctx: Any, now: datetime) -> Chain:
        """The chain a think of the secretary continues: a new request if it read the boss's line."""
        me = office.state.employees[SECRETARY]
        conv = office.state.conversations[ctx.conversation]
        unread = conv.since(me.desk.cursors.get(conv.id, 0))
        last_hour = toolcaps.recent(me.desk.tool_log, now)
        if any(m.sender == BOSS for m in unread):
            return cls(0, [], last_hour)
        owed = Owed.from_dict(ctx.began["owed"]) if ctx.began.get("owed") else None
        if owed is not None and owed.round:
            return cls(owed.round, list(owed.refused), last_hour)
        return cls(toolcaps.CAPS.rounds, [], last_hour, asked=False)  # no request of the boss's to act on

    def call(
        self, scratch: Scratch, action: Action, ctx: ToolContext
    ) -> tuple[ToolStep, list[tuple[str, Owed]]]:
        """Check one call against the caps, then make it (on the scratch copy): its step, the thinks it owes."""
        key = toolcaps.call_key(action.tool, action.args)
        refusal = toolcaps.refuse(
            action.tool,
            key,
            round_=self.round,
            refused_before=self.refused,
            this_thought=self.this_thought,
            last_hour=self.last_hour,
            now=ctx.now,
            caps=self.caps,
            asked=self.asked,
        )
        if refusal is not None:
            message = f"{action.tool}: refused: {refusal.reason}"
            if refusal.cap == "rounds":
                self.stopped.append(action.tool)
            elif refusal.cap != "no_request":
                self.said.append(f"Refused: {message}")
            return ToolStep(action.tool, False, message, cap=refusal.cap), []
        outcome = run_tool(scratch, action.tool, action.args, ctx)
        counted = outcome.ok and self.caps.costly(action.tool)
        if counted:
            self.this_thought[action.tool] += 1
            self.last_hour.append((action.tool, ctx.now))
        elif not outcome.ok:
            self.refused.append(key)
        self.said.append(("Done: " if outcome.ok else "Refused: ") + outcome.message)
        return ToolStep(action.tool, outcome.ok, outcome.message, counted=counted), outcome.owed

    def report(self) -> Owed | None:
        """The think the secretary is owed to tell the boss what its tools did (None if they did nothing)."""
        if not self.said:
            return None
        step = self.round + 1
        last = step >= self.caps.rounds
        note = " ".join([toolcaps.stop_note(self.caps)] * last + self.said + [REPORT])
        return Owed(
            boss_conversation_id(SECRETARY), Trigger.SYSTEM, note, round=step, refused=tuple(self.refused)
        )

    def notice(self, scratch: Scratch, msg_id: str, now: datetime) -> list[Step]:
        """The boss told, in one line, of calls stopped past the last round."""
        if not self.stopped:
            return []
        room = boss_conversation_id(SECRETARY)
        text = (
            f"The secretary stopped: its {len(self.stopped)} more tool call(s) ({', '.join(self.stopped)}) "
            f"went past the {self.caps.rounds} tool steps one request allows and were not made. "
            "Write again to go on."
        )
        message = Message(msg_id, now, room, SYSTEM, text, kind=MessageKind.SYSTEM)
        scratch.conversation(room).add(message)
        return [NoticeStep(room, msg_id, message)]
