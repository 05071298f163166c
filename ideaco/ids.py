"""The ids of the office's fixed participants and of the boss's chats, declared once.

Every company has a boss, a system voice and a secretary (spec 2.9); their ids are what the logs
say (`sender: "boss"`, `"system"`, `employee: "secretary"`). The boss's 1-on-1 with an employee is
`boss:<employee id>` (spec 1.6): built here, read back here.
"""

from __future__ import annotations

BOSS = "boss"
SYSTEM = "system"
SECRETARY = "secretary"
BOSS_CHAT_PREFIX = "boss:"


def boss_conversation_id(employee: str) -> str:
    """The id of the boss's 1-on-1 with an employee."""
    return f"{BOSS_CHAT_PREFIX}{employee}"


def boss_chat_owner(conversation: str) -> str | None:
    """The employee whose boss chat this id names (`boss:<id>` -> id); None for any other id."""
    if conversation.startswith(BOSS_CHAT_PREFIX):
        return conversation[len(BOSS_CHAT_PREFIX) :]
    return None
