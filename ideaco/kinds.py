"""The kinds of conversation and of message, declared once (spec 1.5, 1.6).

String enums, written to the logs as their values (`ConversationKind.BOSS == "boss"`): a
conversation's `kind` in state.json, a message's `kind` in messages.jsonl. The office, the mind's
prompt, a scenario, the record schema and the readers all take them from here.
"""

from __future__ import annotations

from typing import Literal

from ideaco.cycle import Words


class ConversationKind(Words):
    """Where a conversation happens; the gates (spec 2.2) depend on it."""

    WORK = "work"
    CASUAL = "casual"
    DM = "dm"
    BOSS = "boss"


GROUP_KINDS = (ConversationKind.WORK, ConversationKind.CASUAL)  # rooms, as against a DM or a boss chat
# A room's kind where a scenario or a tool names one (a pydantic field's type: "work" or "casual").
RoomKind = Literal[tuple(k.value for k in GROUP_KINDS)]  # type: ignore[valid-type]


class MessageKind(Words):
    """What a logged message is (messages.jsonl's `kind`)."""

    CHAT = "chat"  # an employee's or the boss's words
    SYSTEM = "system"  # the system's line: a room opened, a tool's notice
    CLAIMABLE = "claimable"  # a system line telling a room of work put on the board
    ESCALATION = "escalation"  # an employee's message escalating to the boss (its boss chat)
