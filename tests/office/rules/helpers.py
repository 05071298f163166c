"""Shared helpers for the rule tests: a fixed start time and a message-history builder."""

from __future__ import annotations

from datetime import datetime, timedelta

from ideaco.office.core.conversation import Message

T0 = datetime(2026, 1, 5, 9, 0, 0)
US = timedelta(microseconds=1)


def secs(s: float) -> timedelta:
    return timedelta(seconds=s)


class History:
    """Builds one conversation's message list, oldest first, with unique ids."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def post(self, sender: str, at: datetime, text: str | None = None) -> Message:
        msg = Message(
            id=f"m{len(self.messages) + 1}",
            at=at,
            conversation="api-design",
            sender=sender,
            text=text if text is not None else f"message {len(self.messages) + 1} from {sender}",
        )
        self.messages.append(msg)
        return msg
