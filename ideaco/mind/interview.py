"""An interview's prompt: an employee answers a question in character, from its own mind (pure).

The mind is handed over as it was at the moment asked about (`ideaco/interview.py` rebuilds it
from the logs); nothing here changes it. Memories come most relevant to the question first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ideaco.mind import recall, relationships, stamina
from ideaco.mind.mind import Mind
from ideaco.mind.prompt import LANGUAGES, Person, _env

MAX_ITEM_CHARS = 240
ANSWER_CHARS = 800
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"answer": {"type": "string", "maxLength": ANSWER_CHARS}},
    "required": ["answer"],
    "additionalProperties": False,
}
FEELINGS = {
    stamina.Zone.GREEN: "You feel fine: rested and patient.",
    stamina.Zone.YELLOW: "You feel a bit worn: tired or stressed, and your patience is thinning.",
    stamina.Zone.RED: "You feel worn out and stuck.",
}


@dataclass(frozen=True)
class Interviewee:
    """Who answers: identity and persona as the engine reads them, and the mind at the moment asked about."""

    me: Person
    age: int | None
    persona: dict[str, Any]
    mind: Mind
    names: dict[str, str]  # colleague id -> name


def _clip(text: str, limit: int = MAX_ITEM_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def interview_prompt(
    who: Interviewee, question: str, now: datetime, *, company: str, language: str = "en"
) -> list[dict[str, str]]:
    """The chat messages (system: who I am and what I remember; user: the question)."""
    mind = who.mind
    long, short = recall.recall(mind.memory, now, question)
    memories = [f"{_clip(m.content)} ({m.category})" for m in (*long, *short)]
    summaries = [f"{conv}: {_clip(text, 400)}" for conv, text in sorted(mind.memory.summaries.items())]
    people = []
    for other, rel in sorted(mind.relationships.items()):
        line = f"{rel.name or who.names.get(other, other)}: affinity {relationships.shown(relationships.current_affinity(rel, now))}"
        people.append(line + (f" — {_clip(rel.impression)}" if rel.impression else ""))
    tasks = [
        f"[{t.id}] {_clip(t.description)} — {t.status}" + (f": {_clip(t.result, 160)}" if t.result else "")
        for t in mind.tasks
    ]
    system = (
        _env()
        .get_template("interview.j2")
        .render(
            me=who.me.__dict__ | {"age": who.age},
            persona={k: who.persona.get(k, "") for k in ("description", "tone", "quirk", "speaking_style")},
            company=company,
            now=now.strftime("%A %H:%M"),
            language_name=LANGUAGES.get(language, language),
            memories=memories,
            summaries=summaries,
            people=people,
            tasks=tasks,
            feeling=FEELINGS[stamina.zone(mind.stamina)],
        )
    )
    return [
        {"role": "system", "content": system.strip()},
        {"role": "user", "content": f"Interviewer: {question}"},
    ]
