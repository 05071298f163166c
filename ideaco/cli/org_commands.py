"""The boss's own organization commands: `/department`, `/hire`, `/assign`, `/dismiss`, `/newroom`.

Each is one of the secretary's tools called directly (`Office.apply_tool`), so it is validated by
the same code and refused for the same reasons, in the tool's own words. What it did is posted as
a `system` message in the secretary's boss chat, where the secretary's own tool results are
reported, and the office is saved at once: the change is in state.json and in messages.jsonl as
soon as the command returns. The secretary is not woken for it; it reads the line at its next look.
"""

from __future__ import annotations

from rich.text import Text

from ideaco.cli.chat_commands import Command, CommandError, rooms
from ideaco.cli.display import safe_text
from ideaco.office.conversation import SYSTEM, Message, boss_conversation_id
from ideaco.office.office import Office
from ideaco.office.org import SECRETARY, ToolResult
from ideaco.persona import ARCHETYPES

# The command, the secretary's tool it calls, and the tool's arguments in the command's order.
TOOLS: dict[str, tuple[str, tuple[str, ...]]] = {
    "department": ("create_department", ("name", "mission")),
    "hire": ("hire_employee", ("name", "archetype", "department", "role")),
    "assign": ("assign_requirement", ("to", "description")),
    "dismiss": ("dismiss_employee", ("id",)),
    "newroom": ("create_room", ("name", "members")),
}
DONE = "Done by the boss"  # how the announcement of a command's effect begins


def run(office: Office, cmd: Command, fallback: str) -> ToolResult:
    """Apply the command's tool; announce and save what it did. A refusal is a CommandError (one line).

    The announcement goes to the secretary's boss chat, or to `fallback` (the boss's current
    conversation) in an office without a secretary.
    """
    tool, names = TOOLS[cmd.name]
    args: dict[str, object] = dict(zip(names, cmd.args, strict=False))
    if "members" in args:  # typed as one rest of the line
        args["members"] = str(args["members"]).replace(",", " ").split()
    result = office.apply_tool(tool, args)
    if not result.ok:
        raise CommandError(safe_text(result.message))
    # Saved before the announcement is logged: a kill in between loses the line, never the change
    # (a logged message the save missed is posted again on resume, the change would not be).
    office.checkpoint()
    where = boss_conversation_id(SECRETARY)
    where = where if where in office.conversations else fallback
    office.post(
        Message(
            id=office.next_id("message"),
            at=office.now(),
            conversation=where,
            sender=SYSTEM,
            text=f"{DONE} (/{cmd.name}): {result.message}",
            kind="system",
        )
    )
    return result


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
    return lines


def choices_lines(office: Office, command: str | None) -> list[Text]:
    """What an organization command's arguments can be in this office now (for /help COMMAND)."""
    if command not in TOOLS:
        return []
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
    }[command]
    return [Text.assemble(f"  {label}: ", (values, "bold")) for label, values in shown]
