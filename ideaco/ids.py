"""The ids of the office's fixed participants and of its conversations, declared once.

Every company has a boss, a system voice and a secretary (spec 2.9); their ids are what the logs
say (`sender: "boss"`, `"system"`, `employee: "secretary"`), and their words a role (`ROLE_WORDS`).
The boss's 1-on-1 with an employee is `boss:<employee id>`, a DM `dm:<a>:<b>` (spec 1.6), a
requirement's work room `req-<n>`: built here, read back here, as are the aliases a model writes
for them (`boss-chat-<id>`, `dm-<id>`, `group-chat-<room>`, spec 2.5) and the mention keywords.
So are the ids the office hands out (a thought's, a message's, a thought's own lines, a script
line's) and the keys it counts them by.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping

from anyascii import anyascii

BOSS = "boss"
SYSTEM = "system"
SECRETARY = "secretary"
BOSS_CHAT_PREFIX = "boss:"
DM_PREFIX = "dm:"
# Words the transcript and the prompts use for a role: nobody is named with one of them as a word.
ROLE_WORDS = frozenset({BOSS, SYSTEM, SECRETARY})
EVERYONE = ("everyone", "all")  # the mention keywords: `@everyone` and `@all` name every member
REQUIREMENT_PREFIX = "req-"  # a requirement's work room: req-<n> (office/decide/tools/org.py)
REQUIREMENT_ROOM = re.compile(rf"{re.escape(REQUIREMENT_PREFIX)}\d+")
# The aliases a model writes for a conversation (spec 2.5), read back by `mind/targets.py`.
BOSS_CHAT_ALIAS = "boss-chat-"  # boss-chat-<id>: that employee's boss chat
GROUP_CHAT_ALIAS = "group-chat-"  # group-chat-<room>: the room
DM_ALIAS = "dm-"  # dm-<id>: the DM with that employee
# Conversation ids the engine makes or reads as aliases of others: a room or a department may not
# take one, or a report meant for one would land in it.
ENGINE_PLACE = re.compile(
    rf"^(?:{REQUIREMENT_ROOM.pattern}|"
    + "|".join(f"{re.escape(alias)}.*" for alias in (BOSS_CHAT_ALIAS, GROUP_CHAT_ALIAS, DM_ALIAS))
    + ")$",
    re.IGNORECASE,
)


def requirement_room(n: int) -> str:
    """The id of the n-th requirement's work room."""
    return f"{REQUIREMENT_PREFIX}{n}"


# How the fixed participants read to a person or a model (the prompt's transcript, the chat, the
# viewer): by their role, the system in small letters as its lines are.
ROLE_NAMES = {BOSS: "Boss", SYSTEM: "system"}


def display_name(who: str, name: str | None = None) -> str:
    """How a participant reads: an employee by its `name`, the boss and the system by their roles,
    anyone else (an id no roster names any more) by its id."""
    return name or ROLE_NAMES.get(who, who)


# The ids the office counts out (`OfficeState.counters`, by these keys): a thought `t000001`, a
# message `m000001`; a task (`task-<n>`, mind/tasks.py) is counted under TASK.
THOUGHT, MESSAGE, TASK = "thought", "message", "task"
SERIAL_PREFIXES = {THOUGHT: "t", MESSAGE: "m"}


def serial_id(kind: str, n: int) -> str:
    """The n-th id of a kind the office counts: `t000001` for the first thought."""
    return f"{SERIAL_PREFIXES.get(kind, kind)}{n:06d}"


def _numbered(ident: object, prefix: str) -> int | None:
    """The number after `prefix` in an id of the engine's (`<prefix><ASCII digits>`), else None."""
    text = str(ident or "")
    digits = text[len(prefix) :]
    return int(digits) if text.startswith(prefix) and digits.isascii() and digits.isdigit() else None


def serial_number(ident: object, kind: str) -> int | None:
    """`t000012` -> 12 for THOUGHT (`m000003` -> 3 for MESSAGE); None for any other id: the one
    reading of `serial_id`."""
    return _numbered(ident, SERIAL_PREFIXES.get(kind, kind))


def thought_of(message_id: object) -> str:
    """The thought a message of its own is named after (`t000012-1` -> `t000012`), or the id itself."""
    return str(message_id or "").split("-")[0]


# A thought's own lines are named after it (i from 1): its posts in its room `<thought>-<i>`, what
# it sends elsewhere `<thought>-a<i>`, the system's notices it occasions `<thought>-n<i>` (`n0`: the
# secretary's report of calls stopped past its last round), its sign-off request `<thought>-signoff`.
def post_id(thought: str, i: int) -> str:
    return f"{thought}-{i}"


def sent_id(thought: str, i: int) -> str:
    return f"{thought}-a{i}"


def notice_id(thought: str, i: int) -> str:
    return f"{thought}-n{i}"


def signoff_id(thought: str) -> str:
    return f"{thought}-signoff"


SCRIPT_LINE_PREFIX = "script-"  # the id of a scenario's script line: script-<n>, n from 1
FORK_LINE_PREFIX = "fork-"  # the id of a boss line `ideaco fork --say` posts: fork-<n>, n from 1


def fork_line_id(n: int) -> str:
    """The message id of a fork's n-th `--say` line (from 1): `fork-1`."""
    return f"{FORK_LINE_PREFIX}{n}"


def script_line_id(index: int) -> str:
    """The message id of the scenario's script line at `index` (0-based): `script-1` for the first."""
    return f"{SCRIPT_LINE_PREFIX}{index + 1}"


def script_line_number(message_id: object) -> int | None:
    """`script-3` -> 3 (the lines posted up to and including it); None for any other id: the one
    reading of a script line's id (a resume's catch-up, the chat's `★ Boss (script)`)."""
    return _numbered(message_id, SCRIPT_LINE_PREFIX)


def boss_conversation_id(employee: str) -> str:
    """The id of the boss's 1-on-1 with an employee."""
    return f"{BOSS_CHAT_PREFIX}{employee}"


def boss_chat_owner(conversation: str) -> str | None:
    """The employee whose boss chat this id names (`boss:<id>` -> id); None for any other id."""
    if conversation.startswith(BOSS_CHAT_PREFIX):
        return conversation[len(BOSS_CHAT_PREFIX) :]
    return None


def resolve_id(ref: str, names: Mapping[str, str]) -> str | list[str] | None:
    """The id `ref` names among `names` (id -> name): every surface that takes an employee from a
    user or a model (chat commands, `inspect`, `interview`, the secretary's tools, relationship ops).

    The id itself; else, spaces and leading `@` aside and in any case, the one id that matches,
    then the one name that matches (an id beats another's name). A list of the candidates when it
    names several, None when it names none.
    """
    if ref in names:
        return ref
    key = ref.strip().lstrip("@").strip().casefold()
    by_id = [i for i in names if i.casefold() == key]
    if len(by_id) == 1:
        return by_id[0]
    by_name = [i for i, name in names.items() if name.strip().casefold() == key]
    if len(by_name) == 1:
        return by_name[0]
    return by_id + by_name or None


def dm_conversation_id(a: str, b: str) -> str:
    """The id of the DM between two employees (ids sorted), spec 1.6."""
    return DM_PREFIX + ":".join(sorted((a, b)))


def dm_members(conversation: str) -> list[str] | None:
    """The ids a DM's id names (`dm:a:b` -> [a, b], as written); None for any other id."""
    if conversation.startswith(DM_PREFIX):
        return conversation[len(DM_PREFIX) :].split(":")
    return None


# What an id holds, whoever makes it: ASCII, so that it reads and types the same on every keyboard,
# in a URL, a file name (a department's workspace folder) and a conversation id (`boss:<id>`). A name
# in any script makes one by transliteration (`slug`); the name itself is kept as written.
ID_HOLDS = "an id holds ASCII letters, digits, '.', '-' and '_', starting with a letter or a digit"
EMPLOYEE_ID_HOLDS = (
    "an employee's id holds lowercase ASCII letters, digits, '-' and '_', starting with a letter"
)
_SLUG = re.compile(r"[^a-z0-9]+")
_EMOJI_NAME = re.compile(r":[a-z0-9_+-]+:")  # anyascii writes an emoji as its name: ":rocket:"


def slug(text: str) -> str:
    """An ASCII id made of a name in any script: transliterated (`anyascii`: `张伟` -> `zhangwei`,
    `José` -> `jose`, `Łukasz` -> `lukasz`), lower case, runs of other characters as one `-`
    (`"QA & Test"` -> `qa-test`); "" when nothing in it reads as letters or digits."""
    ascii_text = _EMOJI_NAME.sub(" ", anyascii(unicodedata.normalize("NFKC", text)))
    return _SLUG.sub("-", ascii_text.lower()).strip("-")


def unique_id(base: str, free: Callable[[str], bool]) -> str:
    """`base`, or the first of `base-2`, `base-3`, ... that is `free`."""
    ident, n = base, 2
    while not free(ident):
        ident, n = f"{base}-{n}", n + 1
    return ident


def id_hint(value: str, holds: str = ID_HOLDS) -> str:
    """Why `value` is no id, and the id its name would make (`'产品部' is not a valid id: an id
    holds ...; its name can be any script, and 'chanpinbu' is an id made of it`)."""
    made = slug(value)
    offer = f" ({made!r} would do)" if made and made != value else ""
    return f"{value!r} is not a valid id: {holds}; a name may be in any script{offer}"
