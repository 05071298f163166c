"""Where a message or a report goes: a name a model wrote (`send_message`'s `to`, a task's
onResolveTarget) turned into a conversation id, the one reading of both.

Pure: the caller lists the conversations the owner is in and the colleagues (id -> name).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from ideaco.ids import (
    BOSS,
    BOSS_CHAT_ALIAS,
    DM_ALIAS,
    GROUP_CHAT_ALIAS,
    boss_chat_owner,
    boss_conversation_id,
    dm_conversation_id,
    dm_members,
    resolve_id,
)


def conversation_for(
    ref: str, owner: str, conversations: Collection[str], people: Mapping[str, str]
) -> str | None:
    """The conversation `ref` names for `owner` to write in, or None.

    The owner speaks there in its own voice, so it is one the owner is in (or a DM it may open):
    its own boss chat (`boss`, `boss:<owner>`, `boss-chat-<owner>`), a DM with the owner
    (`dm:<a>:<b>`), one of `conversations` (by id or `group-chat-<id>`), or the DM with a
    colleague of `people` (id -> name) named as `ids.resolve_id` reads a name (`dm-<id>` too).
    Leading `#` and `@` are ignored.
    """
    t = ref.strip().lstrip("#@").strip()
    if t.startswith(BOSS_CHAT_ALIAS):
        t = boss_conversation_id(t.removeprefix(BOSS_CHAT_ALIAS))
    if boss_chat_owner(t) is not None:
        return t if boss_chat_owner(t) == owner else None
    pair = dm_members(t)
    if pair is not None:
        ok = len(pair) == 2 and owner in pair and pair[0] != pair[1] and all(p in people for p in pair)
        return dm_conversation_id(*pair) if ok else None
    if t in conversations:
        return t
    if t.casefold() == BOSS:
        return boss_conversation_id(owner)
    if t.startswith(GROUP_CHAT_ALIAS):
        room = t.removeprefix(GROUP_CHAT_ALIAS)
        return room if room in conversations else None
    other = resolve_id(t.removeprefix(DM_ALIAS), {i: n for i, n in people.items() if i != owner})
    return dm_conversation_id(owner, other) if isinstance(other, str) else None


def normalize_target(
    target: str | None,
    owner: str,
    *,
    conversations: Collection[str],
    people: Mapping[str, str],
) -> tuple[str | None, str | None]:
    """Turn an onResolveTarget into a real conversation id (`conversation_for`): (id or None, note or None).

    None/"" gives (None, None): the caller uses the owner's boss chat. Anything that names no
    conversation the owner may report in gives (None, a short note for the thought's log).
    """
    raw = (target or "").strip()
    if not raw:
        return None, None
    resolved = conversation_for(raw, owner, conversations, people)
    if resolved is None:
        return None, f"onResolveTarget {raw!r:.60} is not a conversation you can report in, boss chat used"
    return resolved, None
