"""Where a task reports when it is done (spec 2.5): an onResolveTarget turned into a conversation id.

Pure: the caller lists the conversations the owner is in and every employee id.
"""

from __future__ import annotations

from collections.abc import Collection

from ideaco.ids import (
    BOSS,
    BOSS_CHAT_ALIAS,
    DM_ALIAS,
    GROUP_CHAT_ALIAS,
    boss_chat_owner,
    boss_conversation_id,
    dm_conversation_id,
    dm_members,
)


def _resolve_target(
    t: str, owner: str, conversations: Collection[str], employees: Collection[str]
) -> str | None:
    # The owner reports there in its own voice, so it must be a conversation the owner is in:
    # its own boss chat, one of its DMs, or a room the caller lists.
    if boss_chat_owner(t) is not None:
        return t if boss_chat_owner(t) == owner else None
    pair = dm_members(t)
    if pair is not None:
        ok = len(pair) == 2 and owner in pair and pair[0] != pair[1] and all(p in employees for p in pair)
        return dm_conversation_id(*pair) if ok else None
    if t in conversations:
        return t
    if t.lower() == BOSS:
        return boss_conversation_id(owner)
    if t.startswith(BOSS_CHAT_ALIAS):
        return _resolve_target(
            boss_conversation_id(t.removeprefix(BOSS_CHAT_ALIAS)), owner, conversations, employees
        )
    if t.startswith(GROUP_CHAT_ALIAS):
        room = t.removeprefix(GROUP_CHAT_ALIAS)
        return room if room in conversations else None
    other = t.removeprefix(DM_ALIAS)
    if other in employees and other != owner:
        return dm_conversation_id(owner, other)
    return None


def normalize_target(
    target: str | None,
    owner: str,
    *,
    conversations: Collection[str],
    employees: Collection[str],
) -> tuple[str | None, str | None]:
    """Turn an onResolveTarget into a real conversation id: (id or None, note or None).

    None/"" gives (None, None): the caller uses the owner's boss chat. Accepted: a room id in
    `conversations`, `boss:<owner>`, `dm:<a>:<b>` with the owner (sorted), the aliases
    `boss-chat-<id>`, `dm-<id>`, `group-chat-<id>`, "boss", and a colleague's id (their DM).
    Anything else gives (None, a short note for the thought's log).
    """
    raw = (target or "").strip()
    if not raw:
        return None, None
    resolved = _resolve_target(raw.lstrip("#@").strip(), owner, conversations, employees)
    if resolved is None:
        return None, f"onResolveTarget {raw!r:.60} is not a conversation you can report in, boss chat used"
    return resolved, None
