"""The scripted models behind `fake_model`: pure functions from a request body to a Flow-of-Thought.

Deterministic: crc32 of the prompt picks, so the same prompt always gets the same answer.

- `silent`: always stays silent (interest 3, saturation 5, no ops).
- `plausible`: reads the prompt like a model would, see `plausible()`.
- `eager`: `plausible`, twice as quick to join a fresh topic (a sensitivity check).
"""

from __future__ import annotations

import re
import zlib
from typing import Any

_MEMBER = re.compile(r"([^,()]+?) \(id ([^,\s)]+), ")
_TASK = re.compile(r"^\[(task-\d+)\] .*?, (normal|aging|overdue|critical)", re.M)

OPENERS = (
    "I can take a first pass at",
    "Quick thought on",
    "From my side, the risk is",
    "I'd keep it simple with",
    "Has anyone checked",
    "Honestly I worry about",
    "Let me look into",
    "We tried something similar with",
    "Can we timebox",
    "Good point, and also",
)
IMPRESSIONS = ("sharp", "helpful", "a bit vague", "thorough", "quick to answer", "anxious")


def _pick(seed: str, n: int) -> int:
    return zlib.crc32(seed.encode("utf-8")) % n


# --------------------------------------------------------------------------- reading a prompt


def read_prompt(body: dict[str, Any]) -> dict[str, Any]:
    """What a plausible model notices in an ideaco prompt (system + user message)."""
    messages = body.get("messages") or []
    system = str(messages[0].get("content") or "") if messages else ""
    user = str(messages[1].get("content") or "") if len(messages) > 1 else ""
    first = system.split("\n", 1)[0]
    name = first.removeprefix("You are ").split(",", 1)[0].strip()
    where = system.split("## Where you are\n", 1)[-1].split("\n", 1)[0]
    kind = (
        "boss"
        if "with the boss" in where
        else "dm"
        if "with a colleague" in where
        else "casual"
        if "casual room" in where
        else "work"
    )
    members_line = next((ln for ln in system.splitlines() if ln.startswith("Members: ")), "")
    members_line = members_line.removeprefix("Members:")
    ids = {m.group(1).strip(): m.group(2) for m in _MEMBER.finditer(members_line)}
    lines = []
    section = user.split("## Recent messages", 1)
    if len(section) == 2:
        for raw in section[1].split("\n\n", 1)[0].splitlines()[1:]:
            if len(raw) < 4 or raw.strip() == "(no messages yet)":
                continue
            head, _, text = raw[2:].partition(": ")
            sender = head.split("] ", 1)[-1]
            lines.append(
                {
                    "unread": raw.startswith("*"),
                    "boss": "(BOSS)" in sender,
                    "me": sender.endswith("(you)"),
                    "sender": sender.replace(" (BOSS)", "").replace(" (you)", ""),
                    "text": text,
                }
            )
    tasks = _TASK.findall(user)  # the tasks block's lines (chat lines start with "* [" or "  [")
    return {
        "key": first,
        "name": name,
        "kind": kind,
        "ids": ids,
        "lines": lines,
        "tasks": tasks,
        "notes": "\n[system] " in user,
        "idle": "quiet for a while" in user,
        "user": user,
    }


# --------------------------------------------------------------------------- policies


def silent(_body: dict[str, Any]) -> dict[str, Any]:
    """Nobody has anything to say."""
    return _thought("Nothing for me here.", 5, 3, False, "nothing to add")


def _thought(inner: str, saturation: int, interest: int, speak: bool, reason: str, **rest: Any) -> dict:
    return {
        "innerThoughts": inner,
        "topicSaturation": saturation,
        "interestLevel": interest,
        "shouldSpeak": speak,
        "reason": reason,
        "messages": rest.get("messages", []),
        "actions": [],
        "memorySummary": rest.get("summary"),
        "memoryOps": rest.get("memory", []),
        "relationshipOps": rest.get("relations", []),
        "taskOps": rest.get("tasks", []),
    }


def plausible(body: dict[str, Any], *, eager: bool = False) -> dict[str, Any]:
    """A colleague who answers the boss, replies when addressed and chats while a topic is fresh.

    - saturation = 2 + colleagues' messages since the boss last wrote (10 at most);
    - speaks: to an unread boss line in a 1-on-1, when @-mentioned or asked by the engine (a
      `[system]` note), to an unread boss line in a room 60% of the time, to fresh colleague
      messages 35% of the time while saturation < 7 and it has said under 2 things since the
      boss; in an idle casual room 30% of the time (starts a topic);
    - a fifth of what it says @-mentions someone present;
    - memory: a short-term note of each boss request, a long-term fact every fifth thought, a
      rewritten summary (~200 chars) of the conversation;
    - relationships: an impression of an unread colleague one thought in three;
    - tasks: creates one for a boss request in its 1-on-1, resolves a pending one a quarter of
      the time (at once when overdue or critical), which makes the engine owe a report.
    """
    p = read_prompt(body)
    name, lines, seed = p["name"], p["lines"], p["user"]
    unread = [ln for ln in lines if ln["unread"]]
    last_boss = max((i for i, ln in enumerate(lines) if ln["boss"]), default=-1)
    after_boss = lines[last_boss + 1 :]
    agents_since = sum(1 for ln in after_boss if not ln["boss"])
    mine_since = sum(1 for ln in after_boss if ln["me"])
    boss_unread = any(ln["boss"] for ln in unread)
    first = name.split()[0] if name else ""
    mentioned = any(f"@{first}" in ln["text"] or "@all" in ln["text"] for ln in unread)
    saturation = 2 if boss_unread else min(10, 2 + agents_since)
    roll = _pick(seed, 100)
    if p["kind"] == "boss" and boss_unread or mentioned or p["notes"]:
        speak, interest, why = True, 9, "I was addressed"
    elif boss_unread:
        speak, interest, why = roll < (90 if eager else 60), 8, "the boss asked the room"
    elif unread and saturation < 7 and mine_since < 2:
        speak, interest, why = roll < (70 if eager else 35), 6 if p["kind"] == "work" else 4, "fresh topic"
    elif p["idle"] and not unread:
        speak, interest, why = roll < 30, 4, "the room is quiet"
    else:
        speak, interest, why = False, 3 if not unread else 5, "nothing to add"
    topic_line = lines[last_boss] if last_boss >= 0 else (unread[-1] if unread else None)
    topic = " ".join((topic_line["text"] if topic_line else "the week ahead").split()[:8])
    messages = []
    if speak:
        text = f"{OPENERS[roll % len(OPENERS)]} {topic.lower()} ({name}, {len(lines)}/{roll})"
        others = [n for n in p["ids"] if n != name]
        if others and p["kind"] in ("work", "casual") and roll % 5 == 0:
            text = f"@{others[roll % len(others)].split()[0]} {text}"
        messages = [{"content": text}]
    memory = []
    if boss_unread:
        memory.append(
            {
                "op": "add",
                "type": "short_term",
                "content": f"The boss asked: {topic}",
                "category": "instruction",
                "importance": 7,
            }
        )
    elif roll % 5 == 0 and unread:
        said = unread[-1]
        memory.append(
            {
                "op": "add",
                "type": "long_term",
                "content": f"{said['sender']} said: {' '.join(said['text'].split()[:10])}",
                "category": "fact",
                "importance": 3 + roll % 6,
            }
        )
    relations = []
    colleagues = [ln for ln in unread if not ln["boss"] and ln["sender"] in p["ids"]]
    if colleagues and roll % 3 == 0:
        who = colleagues[-1]["sender"]
        relations.append(
            {
                "employeeId": p["ids"][who],
                "impression": f"{who} seems {IMPRESSIONS[roll % len(IMPRESSIONS)]} about {topic[:40].lower()}",
                "affinity": 40 + roll % 30,
            }
        )
    tasks: list[dict[str, Any]] = []
    if p["tasks"] and (roll % 4 == 0 or p["tasks"][0][1] in ("overdue", "critical")):
        tasks.append(
            {"op": "resolve", "taskId": p["tasks"][0][0], "result": f"Checked {topic[:40].lower()}: fine"}
        )
    elif p["kind"] == "boss" and boss_unread and not p["tasks"]:
        tasks.append({"op": "create", "description": topic[:90], "type": "oneshot"})
    summary = None
    if lines:
        speakers = ", ".join(dict.fromkeys(ln["sender"] for ln in lines[-6:]))
        summary = f"Topic: {topic}. {len(lines)} messages so far; recently {speakers}."[:200]
    inner = f"{name} reads {len(unread)} new message(s) about {topic.lower()}; {why}."
    return _thought(
        inner,
        saturation,
        interest,
        speak,
        why,
        messages=messages,
        summary=summary,
        memory=memory,
        relations=relations,
        tasks=tasks,
    )


def eager(body: dict[str, Any]) -> dict[str, Any]:
    """`plausible`, twice as quick to join a fresh topic (70%) and to answer the boss in a room (90%)."""
    return plausible(body, eager=True)


POLICIES = {"silent": silent, "plausible": plausible, "eager": eager}


def is_interview(body: dict[str, Any]) -> bool:
    """An `ideaco interview` request (its schema is named so), not a thought."""
    return ((body.get("response_format") or {}).get("json_schema") or {}).get("name") == "interview"


def interview(body: dict[str, Any]) -> dict[str, Any]:
    """An interview answer read off the prompt: who I am, what I remember first, my first task, how I feel."""
    messages = body.get("messages") or []
    system = str(messages[0].get("content") or "") if messages else ""
    name = system.split("\n", 1)[0].removeprefix("You are ").split(",", 1)[0].strip()

    def first(section: str) -> str:
        block = system.split(f"## {section}", 1)[-1].split("\n\n", 1)[0]
        items = [ln[2:] for ln in block.splitlines() if ln.startswith("- ")]
        return " ".join(items[0].split()[:14]) if items else "nothing"

    feeling = system.rsplit("## How you feel\n", 1)[-1].strip().split(".")[0]
    feeling = "I" + feeling[3:] if feeling.startswith("You ") else feeling
    answer = (
        f"{name} here. What stays with me: {first('What you remember')}. "
        f"On my plate: {first('Your tasks')}. Honestly, {feeling}."
    )
    return {"answer": answer}
