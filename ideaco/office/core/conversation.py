"""Conversations and the messages posted in them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ideaco.ids import BOSS, SYSTEM
from ideaco.kinds import MessageKind


@dataclass(frozen=True)
class Message:
    """One chat message, as logged in messages.jsonl (spec 1.5)."""

    id: str
    at: datetime
    conversation: str
    sender: str  # an employee id, "boss" or "system"
    text: str
    mentions: tuple[str, ...] = ()
    kind: str = MessageKind.CHAT  # a MessageKind

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
            kind=rec.get("kind", MessageKind.CHAT),
        )
