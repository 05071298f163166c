"""The guard office's scripted model: a pure function from a request body to an answer.

Deterministic (crc32 of what the prompt shows picks every choice), and written to reach the
engine's mechanics in two simulated hours: task creates with claim keys (and refused claims),
work offered on the board, claimed and released,
resolves and fails, onResolve reports, stalls, escalation, the secretary's tools (done and
refused), send_message DMs, duplicates, rings, pair streaks, the unanswered ceiling, memory and
relationship ops, stamina swings, and now and then an invalid answer that needs the repair.
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

REPAIR_MARK = "Your answer was not valid"
_TASK = re.compile(r"^\[(task-\d+)\] ", re.M)
_NOTE_TASK = re.compile(r"\[(task-\d+)\]")
_CLAIM_KEY = re.compile(r"^\[task-\d+\] .* — claim key (\S+),", re.M)

SECRETARY_ORDERS: dict[str, list[dict[str, Any]]] = {
    "Please open a Design department": [
        {"tool": "create_department", "args": {"name": "Design", "mission": "Make it clear and calm."}},
        {
            "tool": "hire_employee",
            "args": {
                "name": "Nora",
                "role": "Product designer",
                "archetype": "idealist",
                "department": "design",
            },
        },
    ],
    "Hand the requirement": [
        {"tool": "assign_requirement", "args": {"to": "ops", "description": "nightly backups"}},
        {"tool": "create_room", "args": {"name": "Launch", "kind": "work", "members": ["ana", "ben"]}},
    ],
    "Summarize what happened": [{"tool": "summarize", "args": {"conversation": "sync"}}],
    "Hire Zed": [
        {
            "tool": "hire_employee",
            "args": {"name": "Zed", "role": "Intern", "archetype": "rebel-slacker", "department": "Nowhere"},
        }
    ],
    "Dismiss Eli": [{"tool": "dismiss_employee", "args": {"id": "eli"}}],
}

CHATTER = (
    "Agreed, let's ship it.",
    "I can look at that after lunch.",
    "Has anyone checked the logs?",
    "Let's keep it simple.",
    "Agreed, let's ship it.",
    "Sounds good to me.",
)
TALK = {"Ana": 3, "Ben": 5, "Cyd": 3, "Dov": 1, "Eli": 2, "Nora": 3}  # out of 6


def _pick(*parts: object) -> int:
    return zlib.crc32("|".join(map(str, parts)).encode("utf-8"))


def _enum(schema: dict[str, Any], *path: str) -> list[str]:
    node: Any = schema
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
        if node is None:
            return []
    values = node.get("enum") if isinstance(node, dict) else None
    return [v for v in values or [] if v]


def _thought(**fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "innerThoughts": "nothing to add",
        "topicSaturation": 4,
        "interestLevel": 5,
        "shouldSpeak": False,
        "reason": "scripted",
        "messages": [],
        "actions": [],
        "memorySummary": None,
        "memoryOps": [],
        "relationshipOps": [],
        "taskOps": [],
    }
    out.update(fields)
    if out["messages"]:
        out["shouldSpeak"] = True
    return out


def _say(text: str, **fields: Any) -> dict[str, Any]:
    return _thought(innerThoughts=f"I will say: {text}", messages=[{"content": text}], **fields)


def respond(body: dict[str, Any]) -> Any:
    """The answer to one chat-completions request."""
    messages = body.get("messages") or []
    system = str(messages[0].get("content") or "") if messages else ""
    if any(REPAIR_MARK in str(m.get("content") or "") for m in messages[1:]):
        return _thought(innerThoughts="repaired answer")
    user = str(messages[1].get("content") or "") if len(messages) > 1 else ""
    schema = ((body.get("response_format") or {}).get("json_schema") or {}).get("schema") or {}
    name = system.split("\n", 1)[0].removeprefix("You are ").split(",", 1)[0].strip()
    where = system.split("## Where you are\n", 1)[-1].split("\n", 1)[0]
    unread = [line for line in user.splitlines() if line.startswith("* [")]
    notes = [line[len("[system] ") :] for line in user.splitlines() if line.startswith("[system] ")]
    last = unread[-1].split(": ", 1)[-1] if unread else ""
    h = _pick(name, where, last, len(unread), len(user))
    if h % 29 == 7:
        return "Sure, here is what I think: {not json"
    if name == "Secretary":
        return _secretary(unread, notes, user)
    return _employee(name, where, unread, notes, last, user, schema, h)


def _secretary(unread: list[str], notes: list[str], user: str) -> dict[str, Any]:
    for note in notes:
        if note.startswith("The boss wants a summary"):
            quoted = sum(1 for line in user.splitlines() if line.startswith("> "))
            return _say(f"Summary: {quoted} messages in the sync room, mostly about the release.")
        if note.startswith(("Done:", "Refused:")):  # in its own words: the note is the engine's
            done, refused = note.count("Done: "), note.count("Refused: ")
            if not refused:
                return _say(f"All done, boss: {done} change(s) made.")
            return _say(f"I could not do all of it, boss: {refused} of {done + refused} refused.")
    for line in reversed(unread):
        if "(BOSS)" not in line:
            continue
        for start, actions in SECRETARY_ORDERS.items():
            if start in line:
                return _thought(innerThoughts="on it", actions=actions, reason="the boss asked")
    return _thought()


def _employee(
    name: str,
    where: str,
    unread: list[str],
    notes: list[str],
    last: str,
    user: str,
    schema: dict[str, Any],
    h: int,
) -> dict[str, Any]:
    props = schema.get("properties") or {}
    people = _enum(props, "relationshipOps", "items", "properties", "employeeId")
    memories = _enum(props, "memoryOps", "items", "properties", "id")
    targets = _enum(props, "actions", "items", "properties", "args", "properties", "to")
    board = (
        user[user.find("## Claimable tasks") :].split("\n\n", 1)[0] if "## Claimable tasks" in user else ""
    )
    pending = _TASK.findall(user.replace(board, "") if board else user)  # the tasks block's lines
    claimable = _CLAIM_KEY.findall(board)
    extra: dict[str, Any] = {}

    # Relationships: Cyd sours on people, Eli warms to them, the rest drift a little.
    if people:
        who = people[h % len(people)]
        affinity = {"Cyd": 20, "Eli": 90}.get(name, 45 + h % 11)
        extra["relationshipOps"] = [
            {"employeeId": who, "impression": f"{name} on {who}", "affinity": affinity}
        ]
    # Memory: add, update, delete.
    if h % 3 == 0 and last:
        kind = "long_term" if h % 2 else "short_term"
        extra["memoryOps"] = [
            {
                "op": "add",
                "type": kind,
                "content": f"Heard: {last[:80]}",
                "category": "context",
                "importance": 4 + h % 5,
            }
        ]
    elif h % 5 == 1 and memories:
        extra["memoryOps"] = [{"op": "update", "id": memories[0], "importance": 8}]
    elif h % 7 == 2 and memories:
        extra["memoryOps"] = [{"op": "delete", "id": memories[-1]}]
    if h % 4 == 0 and last:
        extra["memorySummary"] = f"Lately: {last[:60]}"

    for note in notes:
        if "is done. Result" in note:
            task = (_NOTE_TASK.findall(note) or ["a task"])[0]
            return _say(f"Report: {task} is finished.", **extra)
        if "has not moved for three thoughts" in note:
            task = (_NOTE_TASK.findall(note) or ["?"])[0]
            ops = [{"op": "fail", "taskId": task, "reason": "blocked on review"}] if name == "Cyd" else []
            if name == "Ana":
                ops = [{"op": "release", "taskId": task, "reason": "no time this week"}]
            return _say(f"{task} is stuck: waiting on review.", taskOps=ops, **extra)
        if "escalate here" in note:
            return _say("Escalating: that thread is going in circles, I need a decision.", **extra)
        if "Escalate to the boss" in note:
            return _say("I am stuck and worn out; I need a reviewer for my tasks.", **extra)
        if "Summarize where you landed" in note:
            return _say("Summary: we agreed to ship behind a flag.", topicSaturation=8, **extra)
        if "Introduce yourself" in note or "Greet the boss" in note:
            return _say(f"Hello, I'm {name}. Glad to be here!", **extra)
        if "is overdue" in note or "is critical" in note:
            task = (_NOTE_TASK.findall(note) or [""])[0]
            if name in ("Cyd", "Dov"):
                ops = [{"op": "fail", "taskId": task, "reason": "no time"}]
                if name == "Dov":  # what he gives up leaves him work he cannot do: he escalates, worn out
                    ops.append({"op": "create", "description": "Find a reviewer for my work"})
                return _say(f"Giving up on {task}.", taskOps=ops)
            return _say(
                f"Closing {task} now.",
                taskOps=[{"op": "resolve", "taskId": task, "result": "done in a rush"}],
            )
        if "you lead it" in note:
            ops = [
                {"op": "offer", "description": "Write the backup script", "claimKey": "backup-script"},
                {"op": "offer", "description": "Run the restore drill", "claimKey": "restore-drill"},
            ]
            return _say(
                "Plan: a backup script and a restore drill. Who takes the drill?", taskOps=ops, **extra
            )
        if "was refused" in note:
            return _thought(innerThoughts=f"ok, someone else has it: {note[:60]}", **extra)

    boss = [line for line in unread if "(BOSS)" in line]
    if boss:
        text = boss[-1]
        ops: list[dict[str, Any]] = []
        if "research" in text:
            ops = [
                {
                    "op": "create",
                    "description": "Research the sync conflict bug",
                    "claimKey": "sync-conflict",
                    "onResolveTarget": "boss",
                }
            ]
        elif "release notes" in text and name == "Ana":
            ops = [{"op": "create", "description": "Release notes", "onResolveHint": "mention the new sync"}]
        elif "blocking QA" in text and name == "Cyd":
            ops = [{"op": "create", "description": "Unblock the QA pipeline", "claimKey": "qa-pipeline"}]
        elif "nightly backups" in text or "restore drill" in text:
            ops = [{"op": "create", "description": "Restore drill", "claimKey": "restore-drill"}]
        reply = f"On it, boss. ({name})" if h % 2 else f"{name} here: looking into it."
        return _say(reply, interestLevel=8, taskOps=ops, **extra)

    if pending and h % 4 == 1 and name not in ("Dov", "Nora"):
        task = pending[0]
        if name == "Cyd" and h % 3 == 0:
            return _say(
                f"{task} failed, again.", taskOps=[{"op": "fail", "taskId": task, "reason": "flaky tests"}]
            )
        return _say(
            f"Resolved {task}.", taskOps=[{"op": "resolve", "taskId": task, "result": "done"}], **extra
        )

    if claimable and name not in ("Dov", "Nora") and h % 3 != 2:
        return _say(
            f"I'll take {claimable[0]}.", taskOps=[{"op": "create", "claimKey": claimable[0]}], **extra
        )

    if "restore drill" in last.lower() and h % 2 == 0:
        ops = [{"op": "create", "description": "Run the restore drill", "claimKey": "restore-drill"}]
        return _say("I'll take the restore drill.", taskOps=ops, **extra)

    if not unread:
        if "quiet for a while" in user:
            return _say("Anyone up for a coffee?", interestLevel=4, **extra)
        return _thought(**extra)
    mentioned_by = [line for line in unread if f"@{name}" in line]
    if mentioned_by and h % 5 != 4:
        # Answer who mentioned me (a pair ping-pong), or pass it on to someone else (a ring).
        sender = mentioned_by[-1].split("] ", 1)[-1].split(":", 1)[0].split(" (")[0]
        others = [p.capitalize() for p in people if p.capitalize() not in (sender, name)]
        to = sender if h % 2 or not others else others[h % len(others)]
        return _say(f"@{to} {CHATTER[h % len(CHATTER)]}", interestLevel=7, **extra)
    if h % 6 >= TALK.get(name, 3):
        return _thought(innerThoughts="I'll stay out of it", topicSaturation=3 + h % 6, **extra)
    text = CHATTER[h % len(CHATTER)]
    if people and h % 3 == 0:
        text = f"@{people[h % len(people)].capitalize()} {text}"
    if targets and h % 5 == 0:
        colleague = targets[h % len(targets)]
        extra["actions"] = [
            {"tool": "send_message", "args": {"to": colleague, "content": f"Quick one for you, {colleague}?"}}
        ]
    if "private chat with a colleague" in where and h % 3 == 0:
        return _say(text, **extra) | {"messages": [{"content": text}, {"content": text}]}
    return _say(text, interestLevel=3 + h % 7, topicSaturation=2 + h % 7, **extra)


def as_content(answer: Any) -> str:
    """The assistant content for an answer (a dict is JSON-encoded compactly)."""
    return answer if isinstance(answer, str) else json.dumps(answer, separators=(",", ":"))
