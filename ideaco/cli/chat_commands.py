"""The boss chat's slash commands: parsing a typed line, and what the looking commands show.

The organization commands (`/department`, `/hire`, `/assign`, `/dismiss`, `/newroom`, `/team`) are parsed here like
the others; what they do is in `org_commands.py`.

Everything here is a pure function of the office (and, for `/mind`, the thoughts log), so it
works the same on the real and the simulated clock. Agent text is always put into `Text`
objects through `safe_text`: never parsed as markup, control characters made visible.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from rich.text import Text

from ideaco.cli.display import format_duration, safe_text
from ideaco.ids import BOSS_CHAT_PREFIX, SECRETARY, boss_chat_owner, boss_conversation_id, resolve_id
from ideaco.kinds import ConversationKind, Verdict
from ideaco.mind import relationships as rel
from ideaco.mind import stamina as st
from ideaco.mind import tasks as task_rules
from ideaco.office.engine.office import Office
from ideaco.scenario import parse_duration

MIND_DEFAULT = 5  # thoughts shown by /mind
ZONE_STYLES = {st.Zone.GREEN: "green", st.Zone.YELLOW: "yellow", st.Zone.RED: "red"}  # a zone's colour
HELP_WIDTH = 24  # /help's column of descriptions


@dataclass(frozen=True)
class CommandSpec:
    usage: str  # the arguments, as shown by /help
    help: str
    min_args: int = 0
    max_args: int = 0
    # The last argument takes the rest of the line as typed (no quotes needed); the ones before it
    # are words, a "quoted one" may hold spaces.
    rest: bool = False


COMMANDS: dict[str, CommandSpec] = {
    "room": CommandSpec("ID", "write in a room from now on", 1, 1),
    "dm": CommandSpec("ID", "write in your 1-on-1 with an employee (boss:ID)", 1, 1),
    "who": CommandSpec("", "employees: role, stamina zone, what they are doing, next look"),
    "tasks": CommandSpec(
        "[ID]", "the task board: every open task (owner, claim key, urgency, age), or one's tasks", 0, 1
    ),
    "docs": CommandSpec("[PATH]", "the workspace's documents (version, author, review), or one's text", 0, 1),
    "requirement": CommandSpec("[REQ]", "requirements: sign-off, pieces, documents", 0, 1),
    Verdict.APPROVE: CommandSpec("REQ", "approve a requirement its lead reported done (only you can)", 1, 1),
    Verdict.REOPEN: CommandSpec(
        "REQ NOTES...", "reopen a reported requirement: NOTES say what to rework", 2, 2, rest=True
    ),
    "mind": CommandSpec("ID [N]", "the last N inner monologues of an employee (default 5)", 1, 2),
    "mem": CommandSpec("ID", "an employee's memories and conversation summaries", 1, 1),
    "rel": CommandSpec("ID", "an employee's impressions of colleagues", 1, 1),
    "stamina": CommandSpec("ID", "an employee's patience, fatigue, stress and comfort", 1, 1),
    "hold": CommandSpec(
        "ID [REASON]", "stop one employee (no thinks) until /release; as '@Name stop'", 1, 99
    ),
    "release": CommandSpec("ID", "let a held employee go on (what reached it meanwhile comes at once)", 1, 1),
    "pause": CommandSpec("", "stop the clock (nobody wakes, thinks or speaks)"),
    "resume": CommandSpec("", "start the clock again"),
    "wait": CommandSpec("DURATION", "let simulated time pass, e.g. /wait 2m", 1, 1),
    # The organization commands: what they call and their arguments' help are in org_commands.py.
    "department": CommandSpec("NAME [MISSION...]", "open a department and its casual room", 1, 2, rest=True),
    "hire": CommandSpec(
        "NAME ARCHETYPE DEPARTMENT ROLE...", "hire someone into a department", 4, 4, rest=True
    ),
    "assign": CommandSpec(
        "TO DESCRIPTION...", "hand a requirement to a department or an employee", 2, 2, rest=True
    ),
    "dismiss": CommandSpec("EMPLOYEE", "an employee leaves the company, their memory kept", 1, 1, rest=True),
    "newroom": CommandSpec("NAME MEMBER...", "open a work room for some employees", 2, 2, rest=True),
    "team": CommandSpec(
        "DEPARTMENT NAME MEMBER...", "form a team in a department, with its work room", 3, 3, rest=True
    ),
    "quit": CommandSpec("", "save the office and leave (Ctrl-D, Ctrl-C); `ideaco chat RUNDIR` continues"),
    "help": CommandSpec("[COMMAND]", "this list, or one command's arguments (also /COMMAND --help)", 0, 1),
}
ALIASES = {"exit": "quit", "q": "quit", "?": "help"}
HELP_FLAGS = ("--help", "-h")
_HEAD = re.compile(r"(\S+)\s*(.*)\Z", re.DOTALL)  # a command's name, and the rest of the line
# A leading argument: a "double-" or 'single-quoted' string ending at a space, or a word.
_WORD = re.compile(r"""\s*(?:"([^"]*)"(?=\s|$)|'([^']*)'(?=\s|$)|(\S+))""")


class CommandError(ValueError):
    """A line the chat cannot act on; its message is the one-line hint shown to the boss."""


@dataclass(frozen=True)
class Command:
    name: str
    args: tuple[str, ...] = ()
    duration: timedelta | None = None  # /wait


def parse_line(line: str) -> Command | str | None:
    """A slash command, a message to post (str), or None for a blank line.

    `//text` posts the message `/text`, for the rare message that starts with a slash.
    """
    text = line.rstrip("\r\n")
    if not text.strip():
        return None
    stripped = text.strip()
    if stripped.startswith("//"):
        return stripped[1:]
    if not stripped.startswith("/"):
        return text.strip()
    if len(stripped) == 1 or stripped[1].isspace():
        raise CommandError("a command name must follow '/': type /help for the list")
    word, rest = _HEAD.match(stripped[1:]).groups()  # type: ignore[union-attr]
    name = command_name(word)
    spec = COMMANDS[name]
    if (rest.split() or [""])[0] in HELP_FLAGS:
        return Command("help", (name,))
    args = split_args(rest, spec.max_args) if spec.rest else rest.split()
    if not spec.min_args <= len(args) <= spec.max_args:
        raise CommandError(usage(name))
    if name == "help" and args:
        return Command(name, (command_name(args[0].lstrip("/")),))
    if name == "wait":
        try:
            duration = parse_duration(args[0])
        except ValueError as exc:
            raise CommandError(f"/wait: {safe_text(str(exc))}") from None
        if duration.total_seconds() <= 0:
            raise CommandError("/wait needs a positive duration, e.g. /wait 2m")
        return Command(name, tuple(args), duration)
    if name == "mind" and len(args) == 2 and not (args[1].isdigit() and int(args[1]) > 0):
        raise CommandError(f"usage: /mind {COMMANDS['mind'].usage} (N a positive number)")
    return Command(name, tuple(args))


def command_name(word: str) -> str:
    """A command's name from what was typed (any case, an alias); unknown: a one-line hint."""
    name = ALIASES.get(word.lower(), word.lower())
    if name not in COMMANDS:
        raise CommandError(
            f"unknown command /{safe_text(word)}: type /help for the list (//text posts /text)"
        )
    return name


def usage(name: str) -> str:
    """The one line a wrong call of /name gets."""
    spec = COMMANDS[name]
    more = f" (/{name} --help for more)" if spec.rest else ""
    return f"usage: /{name} {spec.usage}".rstrip() + more


def split_args(text: str, most: int) -> list[str]:
    """Up to `most` arguments: words (a quoted one may hold spaces), the last the rest of the line.

    The rest is taken as typed, so an apostrophe needs no quoting ("Build Bob's API"); a rest
    that is one quoted string loses its quotes.
    """
    args: list[str] = []
    pos = 0
    while len(args) < most - 1:
        found = _WORD.match(text, pos)
        if found is None:
            break
        args.append(next(g for g in found.groups() if g is not None))
        pos = found.end()
    last = text[pos:].strip()
    if len(last) >= 2 and last[0] == last[-1] and last[0] in "\"'" and last[0] not in last[1:-1]:
        last = last[1:-1]
    if last:
        args.append(last)
    return args


# ---------------------------------------------------------------------------------------- ids


def resolve_employee(office: Office, ref: str) -> str:
    """An employee id from an id or a name (any case, an optional @): `ids.resolve_id`."""
    found = resolve_id(ref, {e.id: e.name for e in office.employees.values()})
    if isinstance(found, list):
        raise CommandError(f"{safe_text(ref)!r} could be any of {', '.join(sorted(found))}")
    if found is None:
        known = ", ".join(sorted(office.employees))
        raise CommandError(f"no employee {safe_text(ref)!r} (employees: {known})")
    return found


def rooms(office: Office) -> list[str]:
    kinds = (ConversationKind.WORK, ConversationKind.CASUAL)
    return [c.id for c in office.conversations.values() if c.kind in kinds]


def resolve_room(office: Office, ref: str) -> str:
    """A room id (work or casual) from its id or its name."""
    want = ref.strip().lstrip("#").lower()
    for cid in rooms(office):
        if want in (cid.lower(), office.conversations[cid].name.lower()):
            return cid
    if boss_chat_owner(want) is not None:
        raise CommandError(f"{safe_text(ref)} is a 1-on-1: use /dm {safe_text(ref[len(BOSS_CHAT_PREFIX) :])}")
    raise CommandError(f"no room {safe_text(ref)!r} (rooms: {', '.join(rooms(office))})")


def resolve_dm(office: Office, ref: str) -> str:
    """The boss's 1-on-1 with an employee (`alice`, `Alice` or `boss:alice`)."""
    target = ref[len(BOSS_CHAT_PREFIX) :] if boss_chat_owner(ref.lower()) is not None else ref
    cid = boss_conversation_id(resolve_employee(office, target))
    if cid not in office.conversations:  # every employee has one; guard a hand-edited state
        raise CommandError(f"no conversation {cid}")
    return cid


def default_conversation(office: Office) -> str:
    """The secretary's boss chat (every company has one), else the first work room."""
    if boss_conversation_id(SECRETARY) in office.conversations:
        return boss_conversation_id(SECRETARY)
    for conv in office.conversations.values():
        if conv.kind is ConversationKind.WORK:
            return conv.id
    return next(iter(office.conversations))


# ---------------------------------------------------------------------------------------- views


def _line(*parts: str | tuple[str, str]) -> Text:
    """A line from plain parts; (text, style) tuples are styled. Callers pass agent text through safe_text."""
    return Text.assemble(*parts)


def _clock(at: datetime) -> str:
    return at.strftime("%H:%M:%S")


def help_lines(command: str | None = None) -> list[Text]:
    """Every command in one line each, or one command's usage."""
    if command is not None:
        spec = COMMANDS[command]
        return [_line((f"/{command} {spec.usage}".rstrip(), "bold"), f"  {spec.help}")]
    lines = [Text("Type a message and press Enter to post it in the current conversation.", style="bold")]
    for name, spec in COMMANDS.items():
        usage_text = f"  /{name} {spec.usage}"
        if len(usage_text) > HELP_WIDTH - 2:  # a long usage gets a line of its own, as argparse does
            lines.append(Text(usage_text, style="bold"))
            usage_text = ""
        lines.append(_line((usage_text.ljust(HELP_WIDTH), "bold"), spec.help))
    return lines


def who_lines(office: Office) -> list[Text]:
    now = office.now()
    lines = []
    for emp in office.employees.values():
        if emp.dismissed:
            lines.append(
                _line((emp.id.ljust(10), "bold"), f" {safe_text(emp.name)} · {safe_text(emp.role)} · left")
            )
            continue
        wake_at = emp.desk.wake_at
        if wake_at is None:
            wake = "no look scheduled"
        elif wake_at <= now:
            wake = "looks now"
        else:
            wake = f"next look {_clock(wake_at)} (in {format_duration(wake_at - now)})"
        zone = st.zone(emp.mind.stamina)
        line = _line(
            (emp.id.ljust(10), "bold"),
            f" {safe_text(emp.name)} · {safe_text(emp.role)} · ",
            (zone, ZONE_STYLES[zone]),
            f" · {emp.desk.phase} · ",
        )
        hold = emp.desk.hold
        if hold is not None:
            reason = f": {safe_text(hold.reason)}" if hold.reason else ""
            line.append(
                f"on hold since {_clock(hold.since)}{reason} (/release {emp.id})", style="bold yellow"
            )
        else:
            line.append(wake)
        lines.append(line)
    return lines


def tasks_lines(office: Office, employee: str | None = None) -> list[Text]:
    """The task board: every open task in the company (owner, claim key, urgency, age), work nobody
    owns yet first; with an employee, all of that one's tasks, closed ones too."""
    now = office.now()
    lines = []
    if employee is None:
        for offer in sorted(office.state.board.values(), key=lambda o: o.offered_at):
            how = (
                f"released by {offer.offered_by}: {offer.reason}"
                if offer.released
                else f"offered by {offer.offered_by}"
            )
            lines.append(
                _line(
                    (f"[{offer.id}]", "bold"),
                    " nobody (claimable) · ",
                    (f"key {offer.claim_key}", "cyan"),
                    f" · {task_rules.urgency_since(offer.offered_at, now)} · {_age(offer.offered_at, now)} · "
                    f"{safe_text(offer.description)} · {safe_text(how)}"
                    + (f" · in {offer.room}" if offer.room else ""),
                )
            )
    owners = [employee] if employee else list(office.employees)
    for owner in owners:
        for task in office.employees[owner].mind.tasks:
            if employee is None and not task.pending:
                continue
            state = f"{task.status} · {task_rules.urgency(task, now)}" if task.pending else task.status
            if task.stalled and task.pending:
                state += " · stalled"
            key = f" · key {task.claim_key}" if task.claim_key else " · no key"
            line = _line(
                (f"[{task.id}]", "bold"),
                f" {owner}{key} · {state} · {_age(task.created_at, now)} · {task.type} · "
                f"{safe_text(task.description)}",
            )
            if task.result:
                line.append(f" → {safe_text(task.result)}")
            lines.append(line)
    if not lines:
        lines.append(Text(f"no tasks{' for ' + employee if employee else ' open'}", style="dim"))
    return lines


def _age(since: datetime, now: datetime) -> str:
    return f"{format_duration(now - since)} old"


def mind_lines(
    office: Office, thoughts: Iterable[dict[str, Any]], employee: str, count: int = MIND_DEFAULT
) -> list[Text]:
    """The last `count` thoughts of one employee from thoughts.jsonl, oldest first."""
    mine = [t for t in thoughts if t.get("employee") == employee][-count:]
    if not mine:
        return [Text(f"{employee} has not thought yet", style="dim")]
    lines = []
    for record in mine:
        at = datetime.fromisoformat(record["at"])
        verdict = "spoke" if record.get("spoke") else f"silent ({record.get('gate') or 'no message'})"
        lines.append(
            _line(
                (_clock(at), "dim"),
                f" {safe_text(record.get('conversation', '?'))} · {record.get('trigger', '?')} · ",
                (verdict, "green" if record.get("spoke") else "yellow"),
            )
        )
        thought = record.get("thought") or {}
        inner = thought.get("innerThoughts") or record.get("error") or "(no thought)"
        lines.append(_line("    ", (safe_text(inner), "italic")))
        if thought.get("reason"):
            lines.append(_line("    why: ", safe_text(thought["reason"])))
    return lines


def mem_lines(office: Office, employee: str) -> list[Text]:
    memory = office.employees[employee].mind.memory
    lines: list[Text] = []
    for title, items in (("long-term", memory.long_term), ("short-term", memory.short_term)):
        lines.append(Text(f"{title} ({len(items)})", style="bold"))
        for item in items:
            lines.append(
                _line(
                    (f"  [{item.id}]", "bold"),
                    f" {item.category} · importance {item.importance} · {safe_text(item.content)}",
                )
            )
    if memory.summaries:
        lines.append(Text("conversation summaries", style="bold"))
        for cid, summary in memory.summaries.items():
            lines.append(_line((f"  {safe_text(cid)}: ", "bold"), safe_text(summary)))
    return lines


def rel_lines(office: Office, employee: str) -> list[Text]:
    now = office.now()
    table = office.employees[employee].mind.relationships
    if not table:
        return [Text(f"{employee} has no impressions yet (everyone at affinity 50)", style="dim")]
    lines = []
    for other, relation in sorted(table.items()):
        affinity = rel.shown(rel.current_affinity(relation, now))
        lines.append(
            _line(
                (other.ljust(10), "bold"),
                f" {safe_text(relation.name)} · affinity {affinity} · {safe_text(relation.impression)}",
            )
        )
    return lines


def stamina_lines(office: Office, employee: str) -> list[Text]:
    stamina = office.employees[employee].mind.stamina
    zone = st.zone(stamina)
    return [
        _line(
            f"patience {stamina.patience:.0f} · fatigue {stamina.fatigue:.0f} · stress {stamina.stress:.0f}"
            f" · comfort {st.comfort(stamina):.0f} · ",
            (zone, ZONE_STYLES[zone]),
        )
    ]
