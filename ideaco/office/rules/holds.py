"""Holds (issue 13): the boss stops one employee without stopping the office, and lets it go on.

Pure rules. A hold is a boss order carried by a boss message, so that messages.jsonl holds it and
a resume applies it again: `@Name stop` (or `/hold ID reason` in the chat, which writes
`@Name stop: reason` in the employee's boss chat) and `@Name continue` (`/release ID`). The order
must be the whole message: the names, then `stop` or `continue`, then nothing, punctuation or, after
`stop` and a punctuation mark, a reason. "@Bob stop worrying about it" is a sentence, not an order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ideaco.ids import EVERYONE
from ideaco.kinds import ConversationKind

STOP, CONTINUE = "stop", "continue"
_ORDER = re.compile(r"^(stop|continue)(?:$|\s*[.!:;,\u2014-]+\s*(.*)$)", re.IGNORECASE | re.DOTALL)
REASON_CHARS = 200


@dataclass(frozen=True)
class Order:
    """A boss order in a message: `stop` (with its reason) or `continue`, for the employees it names."""

    verb: str
    reason: str = ""


def _after_names(text: str, words: Sequence[str]) -> str | None:
    """The text after the leading @-names (each one of `words`), or None when it does not start with one."""
    rest, named = text.strip(), False
    longest_first = sorted({w for w in words if w}, key=len, reverse=True)
    while rest.startswith("@"):
        word = next((w for w in longest_first if rest[1 : 1 + len(w)].casefold() == w.casefold()), None)
        if word is None or (
            len(rest) > 1 + len(word) and (rest[1 + len(word)].isalnum() or rest[1 + len(word)] == "_")
        ):
            break
        rest, named = rest[1 + len(word) :].lstrip(" ,:"), True
    return rest if named else None


def boss_order(text: str, words: Sequence[str]) -> Order | None:
    """The hold order a boss message gives, or None.

    `words` are what may follow an @ for the employees the message mentions (their names and ids);
    `@all` and `@everyone` count too.
    """
    rest = _after_names(text, [*words, *EVERYONE])
    if rest is None:
        return None
    found = _ORDER.match(rest)
    if found is None:
        return None
    verb, reason = found.group(1).lower(), " ".join((found.group(2) or "").split())
    if verb == CONTINUE:
        return Order(CONTINUE)
    return Order(STOP, reason[:REASON_CHARS])


def order_text(name: str, verb: str, reason: str = "") -> str:
    """The boss line that gives an order: `@Alice stop: too chatty`, `@Alice continue`."""
    return f"@{name} {verb}: {reason}" if reason else f"@{name} {verb}"


@dataclass(frozen=True)
class Arrived:
    """What reached a held employee in one conversation: who wrote, how often, and how."""

    where: str  # the conversation's name
    kind: ConversationKind
    senders: tuple[str, ...]  # names, in order of first message ("the boss" for the boss)
    count: int
    from_boss: bool = False


def batch_note(arrived: Sequence[Arrived], since: str) -> str:
    """The one note a released employee reads: everything addressed to it while it was held."""
    if not arrived:
        return f"You were on hold since {since}; nothing was addressed to you meanwhile."
    parts = []
    for a in arrived:
        who = ", ".join(a.senders)
        many = f" ({a.count} messages)" if a.count > 1 else ""
        if a.kind == ConversationKind.BOSS:
            parts.append(f"the boss wrote to you in your boss chat{many}")
        elif a.kind == ConversationKind.DM:
            parts.append(f"{who} wrote to you privately{many}")
        else:
            parts.append(f"{who} mentioned you in {a.where}{many}")
    return f"You were on hold since {since}. While you were away: " + "; ".join(parts) + ". Catch up now."
