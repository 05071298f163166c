"""The boss's own organization commands: `/department`, `/hire`, `/assign`, `/dismiss`, `/newroom`, `/team`.

Each is one of the secretary's tools called directly (`Office.apply_tool`), so it is validated by
the same code and refused for the same reasons, in the tool's own words. What it did is posted as
a `system` message in the secretary's boss chat, where the secretary's own tool results are
reported, and the office is saved at once: the change is in state.json and in messages.jsonl as
soon as the command returns. The secretary is not woken for it; it reads the line at its next look.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import takewhile

from rich.text import Text

from ideaco.cli.chat_commands import Command, CommandError, rooms
from ideaco.cli.display import safe_text
from ideaco.ids import MESSAGE, SECRETARY, SYSTEM, boss_conversation_id, resolve_id
from ideaco.kinds import MessageKind, ToolName
from ideaco.office.core.conversation import Message
from ideaco.office.decide.tools.org import ToolResult
from ideaco.office.engine.office import Office
from ideaco.persona import ARCHETYPES


@dataclass(frozen=True)
class OrgCommand:
    """A boss's command: the tool it calls, the tool's arguments in the command's order, their help."""

    tool: str
    params: tuple[str, ...]
    arguments: tuple[tuple[str, str], ...]  # (ARG as in the usage, what it is)
    example: str


TOOLS: dict[str, OrgCommand] = {
    "department": OrgCommand(
        ToolName.CREATE_DEPARTMENT,
        ("name", "mission"),
        (
            ("NAME", 'its name; its id is made from it ("quote" a name of several words)'),
            ("MISSION...", "optional, the rest of the line: what the department is for"),
        ),
        "/department Engineering Ship the product",
    ),
    "hire": OrgCommand(
        ToolName.HIRE_EMPLOYEE,
        ("name", "archetype", "department", "role"),
        (
            ("NAME", "their name; their id is made from it"),
            ("ARCHETYPE", "the persona they start from"),
            ("DEPARTMENT", "a department's id or name"),
            ("ROLE...", "the rest of the line, e.g. Backend engineer"),
        ),
        "/hire Bob old-hand engineering Backend engineer",
    ),
    "assign": OrgCommand(
        ToolName.ASSIGN_REQUIREMENT,
        ("to", "description"),
        (
            (
                "TO",
                "a department or a team (its lead gets the task, in a new work room req-N) or an employee",
            ),
            ("DESCRIPTION...", "the rest of the line: the requirement"),
        ),
        "/assign engineering Build the login API",
    ),
    "dismiss": OrgCommand(
        ToolName.DISMISS_EMPLOYEE, ("id",), (("EMPLOYEE", "an employee's id or name"),), "/dismiss bob"
    ),
    "newroom": OrgCommand(
        ToolName.CREATE_ROOM,
        ("name", "members"),
        (
            ("NAME", 'its name; its id is made from it; /room ID then writes in it ("quote" several words)'),
            ("MEMBER...", "the rest of the line: employees' ids or names, by spaces or commas"),
        ),
        "/newroom Launch bob alice",
    ),
    "team": OrgCommand(
        ToolName.CREATE_TEAM,
        ("department", "name", "members"),
        (
            ("DEPARTMENT", "a department's id or name"),
            (
                "NAME",
                "the team's name; its id (and its work room's) is made from it (\"quote\" several words)",
            ),
            ("MEMBER...", "the rest of the line: members of that department, by spaces or commas"),
        ),
        '/team engineering "Payments squad" bob alice',
    ),
}
DONE = "Done by the boss"  # how the announcement of a command's effect begins
# The commands whose NAME comes just before MEMBER...: a name of several words typed without quotes
# runs into the members ("/newroom Sync war room dan" asks for an employee 'war').
NAMED_GROUPS = ("newroom", "team")


def run(office: Office, cmd: Command, fallback: str) -> ToolResult:
    """Apply the command's tool; announce and save what it did. A refusal is a CommandError (one line).

    The announcement goes to the secretary's boss chat, or to `fallback` (the boss's current
    conversation) in an office without a secretary.
    """
    command = TOOLS[cmd.name]
    args: dict[str, object] = dict(zip(command.params, cmd.args, strict=False))
    if "members" in args:  # typed as one rest of the line
        args["members"] = str(args["members"]).replace(",", " ").split()
    result = office.apply_tool(command.tool, args)
    if not result.ok:
        raise CommandError(safe_text(result.message + quoting_hint(office, cmd)))
    # Saved before the announcement is logged: a kill in between loses the line, never the change
    # (a logged message the save missed is posted again on resume, the change would not be).
    office.checkpoint()
    where = boss_conversation_id(SECRETARY)
    where = where if where in office.conversations else fallback
    office.post(
        Message(
            id=office.next_id(MESSAGE),
            at=office.now(),
            conversation=where,
            sender=SYSTEM,
            text=f"{DONE} (/{cmd.name}): {result.message}",
            kind=MessageKind.SYSTEM,
        )
    )
    return result


def quoting_hint(office: Office, cmd: Command) -> str:
    """How to type the name the boss likely meant, when the members begin with words that name no
    employee and are followed by some that do: ` (a name of several words goes in quotes: /newroom
    "Sync war room" dan bob)`; else ""."""
    if cmd.name not in NAMED_GROUPS or len(cmd.args) < 2:
        return ""
    *before, name, members = cmd.args
    words = members.replace(",", " ").split()
    known = {e.id: e.name for e in office.employees.values() if not e.dismissed}
    strays = list(takewhile(lambda word: resolve_id(word, known) is None, words))
    if not strays or len(strays) == len(words):
        return ""
    quoted = [f'"{w}"' if " " in w else w for w in (*before, " ".join([name, *strays]))]
    line = " ".join([f"/{cmd.name}", *quoted, *words[len(strays) :]])
    return f" (a name of several words goes in quotes: {line})"


def department_lines(office: Office) -> list[Text]:
    """The departments, their leads and members (for /who)."""
    lines = []
    for dept in office.company_model.departments.values():
        lead = f"led by {dept.lead}" if dept.lead else "nobody yet"
        members = f" · {', '.join(dept.members)}" if dept.members else ""
        lines.append(
            Text.assemble(
                ("department ", "dim"), (dept.id, "bold"), f" {safe_text(dept.name)} · {lead}{members}"
            )
        )
        for team in dept.teams:
            who = f" · {', '.join(team.members)}" if team.members else ""
            lines.append(
                Text.assemble(("  team ", "dim"), (team.id, "bold"), f" {safe_text(team.name)}{who}")
            )
    return lines


def help_lines(office: Office, command: str | None) -> list[Text]:
    """An organization command's arguments, an example, and what they can be in this office now."""
    if command not in TOOLS:
        return []
    spec = TOOLS[command]
    width = max(len(arg) for arg, _ in spec.arguments) + 2
    lines = [Text.assemble("  calls the secretary's tool ", (spec.tool, "bold"), ", with the same checks")]
    lines += [Text(f"  {arg.ljust(width)}{what}") for arg, what in spec.arguments]
    lines.append(Text.assemble("  e.g. ", (spec.example, "bold")))
    departments = ", ".join(
        f"{d.id} ({safe_text(d.name)})" for d in office.company_model.departments.values()
    )
    people = ", ".join(e.id for e in office.employees.values() if not e.dismissed and e.id != SECRETARY)
    shown = {
        "department": [("departments so far", departments or "none")],
        "hire": [
            ("archetypes", ", ".join(ARCHETYPES)),
            ("departments", departments or "none yet: /department NAME first"),
        ],
        "assign": [("departments", departments or "none"), ("employees", people or "none")],
        "dismiss": [("employees", people or "none")],
        "newroom": [("employees", people or "none"), ("rooms so far", ", ".join(rooms(office)) or "none")],
        "team": [
            ("departments", departments or "none yet: /department NAME first"),
            ("employees", people or "none"),
        ],
    }[command]
    return lines + [Text.assemble(f"  {label}: ", (values, "bold")) for label, values in shown]
