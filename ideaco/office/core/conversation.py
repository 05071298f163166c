"""Conversations and the messages posted in them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from ideaco.ids import BOSS, SYSTEM


class ConversationKind(str, Enum):
    """Where a conversation happens; the gates (spec 2.2) depend on it."""

    WORK = "work"
    CASUAL = "casual"
    DM = "dm"
    BOSS = "boss"


GROUP_KINDS = (ConversationKind.WORK, ConversationKind.CASUAL)  # rooms, as against a DM or a boss chat
CLAIMABLE = "claimable"  # the kind of a system line telling a room of work put on the board
ESCALATION = "escalation"  # the kind of an employee's message escalating to the boss (its boss chat)


@dataclass(frozen=True)
class Message:
    """One chat message, as logged in messages.jsonl (spec 1.5)."""

    id: str
    at: datetime
    conversation: str
    sender: str  # an employee id, "boss" or "system"
    text: str
    mentions: tuple[str, ...] = ()
    kind: str = "chat"  # chat | system | claimable (work on the board) | escalation

    @property
    def from_agent(self) -> bool:
        return self.sender not in (BOSS, SYSTEM)

    def to_record(self) -> dict:
        return {
            "id": self.id,
            "at": self.at.isoformat(),
            "conversation": self.conversation,
            "sender": self.sender,
            "text": self.text,
            "mentions": list(self.mentions),
            "kind": self.kind,
        }

    @classmethod
    def from_record(cls, rec: dict) -> Message:
        return cls(
            id=rec["id"],
            at=datetime.fromisoformat(rec["at"]),
            conversation=rec["conversation"],
            sender=rec["sender"],
            text=rec["text"],
            mentions=tuple(rec.get("mentions", ())),
            kind=rec.get("kind", "chat"),
        )
