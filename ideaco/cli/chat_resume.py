"""What `ideaco chat RUNDIR` brings back from the last chat: its speed, its conversation, a recap.

The last chat's speed and conversation are kept in state.json (`office.chat`) when it ends; the
recap is the last few messages of that conversation, as the office remembers them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text

from ideaco.bounds import MAX_SPEED, MIN_SPEED
from ideaco.cli.display import safe_text
from ideaco.office.engine.office import Office
from ideaco.store.runlog import RunLog, RunLogError

KEY = "chat"
RECAP = 5  # messages shown when a chat continues
DEFAULT_SPEED = 1.0


def saved(source: Path | None) -> dict[str, Any]:
    """The last chat's settings in a run directory ({} for a scenario file, a new run, or none saved)."""
    if source is None or not source.is_dir():
        return {}
    try:
        chat = RunLog.open_state(source).office.get(KEY)
    except RunLogError:
        return {}  # opening the run says what is wrong with it, in its own words
    return chat if isinstance(chat, dict) else {}


def speed(given: float | None, source: Path | None) -> float:
    """--speed if given, else the last chat's, else 1."""
    if given is not None:
        return given
    last = saved(source).get("speed")
    ok = isinstance(last, (int, float)) and MIN_SPEED <= last <= MAX_SPEED  # a state edited by hand
    return float(last) if ok else DEFAULT_SPEED


def conversation(office: Office, fallback: str) -> str:
    """The conversation the last chat ended in, if it is still there."""
    last = office.meta.get(KEY, {}).get("conversation") if isinstance(office.meta.get(KEY), dict) else None
    return last if isinstance(last, str) and last in office.conversations else fallback


def remember(office: Office, speed: float, conversation: str) -> None:
    """Keep this chat's speed and conversation for the next `ideaco chat RUNDIR` (saved with the state)."""
    office.meta[KEY] = {"speed": speed, "conversation": conversation}


def recap(office: Office, conversation: str, count: int = RECAP) -> list[Text]:
    """The last messages of the conversation, one line each (agent text shown literally)."""
    conv = office.conversations.get(conversation)
    recent = list(conv.recent)[-count:] if conv is not None else []
    if not recent:
        return [Text(f"nothing said in {conversation} yet", style="dim")]
    lines = [Text(f"the last {len(recent)} message(s) in {conversation}:", style="dim")]
    for m in recent:
        lines.append(
            Text.assemble(
                (f"  {m.at:%H:%M} ", "dim"),
                (safe_text(office.name_of(m.sender)), "bold"),
                ": ",
                safe_text(m.text),
            )
        )
    return lines
