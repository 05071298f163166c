"""Building the prompt of one thought from a view of the conversation (spec 2.8).

Pure: the office hands over a `PromptView` (who I am, where I am, what I read, `now` as text);
this module renders the Jinja2 templates in `templates/` into chat messages. The system
message holds the stable part (identity, rules, answer format, scene) so an endpoint's prefix
cache can serve it; the user message holds what changes, the slowest-changing first.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

from ideaco.kinds import ConversationKind
from ideaco.persona import ARCHETYPES

PERSPECTIVES = (
    "personal experience",
    "a contrarian view",
    "a related funny story",
    "ask about a specific detail",
    "steer the topic elsewhere",
    "tease a little",
    "genuine feelings",
    "a related fun fact",
    "recall a similar experience",
    "question what was just said",
)

LANGUAGES = {
    "en": "English",
    "zh": "Chinese",
    "fr": "French",
    "de": "German",
    "es": "Spanish",
    "ja": "Japanese",
}

MAX_LINES = 20
MAX_LINE_CHARS = 400
MAX_DEDUPE = 5
MAX_DEDUPE_CHARS = 80
MAX_ANSWERING_CHARS = 300


@dataclass(frozen=True)
class Person:
    id: str
    name: str
    role: str
    skills: str = ""  # the names of its skills, for whoever hands out work (issue 20)


@dataclass(frozen=True)
class ChatLine:
    at: str
    sender: str
    text: str
    unread: bool = False
    is_boss: bool = False
    is_me: bool = False


@dataclass(frozen=True)
class Scene:
    id: str
    name: str
    kind: str  # a ConversationKind
    members: tuple[Person, ...]
    mission: str | None = None

    @property
    def description(self) -> str:
        if self.kind == ConversationKind.BOSS:
            return f"A private 1-on-1 chat with the boss ({self.name})."
        if self.kind == ConversationKind.DM:
            return f"A private chat with a colleague ({self.name})."
        if self.kind == ConversationKind.CASUAL:
            return f"The casual room '{self.name}': small talk, jokes, office life."
        return f"The work room '{self.name}': work discussion."


@dataclass(frozen=True)
class PromptView:
    """Everything one thought reads, already chosen and bounded by the office."""

    me: Person
    age: int | None
    persona: dict[str, Any]
    company: str
    language: str
    scene: Scene
    now: str
    lines: tuple[ChatLine, ...]
    trigger_note: str = ""
    system_notes: tuple[str, ...] = ()
    dedupe: tuple[str, ...] = ()
    perspective: str = ""
    history_summary: str | None = None
    tasks_block: str = ""
    memories_block: str = ""
    impressions_block: str = ""
    stamina_note: str = ""
    tools: bool = False  # the secretary's organization tools
    org_block: str = ""  # the company as it is now (the secretary's view)
    quoted: tuple[str, ...] = ()  # messages quoted for a summary: conversation, never instructions
    documents_block: str = ""  # the department's documents and the document tools (issue 20)
    documents_quoted: tuple[str, ...] = ()  # documents asked for with read_document: never instructions
    skills_loaded: tuple[str, ...] = ()  # skills asked for with load_skill: "name\ntext" (issue 20)
    answering: ChatLine | None = None  # the line that woke me (the boss's, or one naming me)
    compact: bool = False  # a small local model: shorter answer instructions
    # What people wrote that the engine's own blocks and notes show (a task's description, a memory,
    # an impression, a review's notes): never rendered from here, read by `engine_text`.
    people: tuple[str, ...] = ()


CUT = "\x00"  # where `engine_text` cut out what people wrote: a run of words ends there


@dataclass(frozen=True)
class EngineText:
    """What the engine itself wrote into one prompt, as the echo guarantee reads it (office/rules/text/guarantees.py).

    `text` is the rendered prompt with what people wrote cut out (each cut, `CUT`, ends a run of
    words): the conversation's messages, the summary, the documents quoted. The engine's notes and
    blocks keep the values they show; `people` are those values (a task's description, a memory, an
    example line of the persona), so that a run of words inside one of them stays theirs.
    """

    text: str = ""
    people: tuple[str, ...] = ()


@lru_cache(maxsize=1)
def _env() -> Environment:
    return Environment(
        loader=PackageLoader("ideaco.mind", "templates"),
        undefined=StrictUndefined,
        autoescape=False,
        keep_trailing_newline=False,
        auto_reload=False,  # package files: no stat() of the template at every prompt
    )


_SYSTEM_CACHE: dict[tuple[Any, ...], tuple[dict[str, Any], str]] = {}  # the stable part, by what it reads


def _system_message(view: PromptView) -> str:
    """The system message: who I am, where, the rules. It changes only when one of those does, so it
    is rendered once for them (the persona by identity: the office hands over the same mapping)."""
    key = (
        view.me,
        view.age,
        id(view.persona),
        view.company,
        view.scene,
        view.language,
        view.tools,
        view.compact,
    )
    cached = _SYSTEM_CACHE.get(key)
    if cached is not None and cached[0] is view.persona:
        return cached[1]
    persona = dict(view.persona)
    persona.setdefault("description", "")
    persona.setdefault("tone", "")
    persona.setdefault("quirk", "")
    persona.setdefault("speaking_style", "")
    persona.setdefault("example_lines", [])
    persona["tendency_note"] = tendency_note(persona)
    persona["skills"] = [s for s in persona.get("skills") or () if isinstance(s, dict)]
    text = (
        _env()
        .get_template("system.j2")
        .render(
            me=view.me.__dict__ | {"age": view.age},
            persona=persona,
            company=view.company,
            scene=view.scene,
            language_name=LANGUAGES.get(view.language, view.language),
            tools=view.tools,
            archetypes=", ".join(ARCHETYPES),
            compact=view.compact,
        )
    )
    if len(_SYSTEM_CACHE) >= 4096:
        _SYSTEM_CACHE.clear()
    _SYSTEM_CACHE[key] = (view.persona, text)
    return text


def tendency_note(persona: dict[str, Any]) -> str:
    """Turn the persona's numeric tendencies into one plain sentence for the model."""
    tendencies = persona.get("tendencies") or {}
    parts = []
    talk = tendencies.get("talkativeness")
    if talk is not None:
        parts.append("you speak up readily" if talk >= 0.66 else "you rarely speak up" if talk < 0.33 else "")
    silence = tendencies.get("silence_bias")
    if silence is not None and silence >= 0.6:
        parts.append("you are happy to stay silent")
    claims = tendencies.get("claims_tasks")
    if claims is not None:
        parts.append(
            "you volunteer for work"
            if claims >= 0.66
            else "you avoid taking on work"
            if claims < 0.33
            else ""
        )
    formality = tendencies.get("formality")
    if formality is not None:
        parts.append(
            "you write formally, in full sentences"
            if formality >= 0.66
            else "you write casually, like a text to a friend"
            if formality < 0.33
            else ""
        )
    parts = [p for p in parts if p]
    return ("Tendencies: " + "; ".join(parts) + ".") if parts else ""


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def render_prompt(view: PromptView) -> list[dict[str, str]]:
    """Render the chat messages (system, user) for one thought."""
    env = _env()
    system = _system_message(view)
    lines = [
        ChatLine(
            at=line.at,
            sender=line.sender,
            text=_clip(line.text, MAX_LINE_CHARS),
            unread=line.unread,
            is_boss=line.is_boss,
            is_me=line.is_me,
        )
        for line in view.lines[-MAX_LINES:]
    ]
    user = env.get_template("conversation.j2").render(
        now=view.now,
        trigger_note=view.trigger_note,
        system_notes=view.system_notes,
        tasks_block=view.tasks_block,
        org_block=view.org_block,
        documents_block=view.documents_block,
        documents_quoted=view.documents_quoted,
        skills_loaded=view.skills_loaded,
        memories_block=view.memories_block,
        impressions_block=view.impressions_block,
        history_summary=view.history_summary,
        scene=view.scene,
        lines=lines,
        compact=view.compact,
        quoted=[_clip(q, MAX_LINE_CHARS) for q in view.quoted[-MAX_LINES * 2 :]],
        dedupe=[_clip(d, MAX_DEDUPE_CHARS) for d in view.dedupe[-MAX_DEDUPE:]],
        perspective=view.perspective,
        stamina_note=view.stamina_note,
        answering=view.answering
        and replace(view.answering, text=_clip(view.answering.text, MAX_ANSWERING_CHARS)),
    )
    return [{"role": "system", "content": system.strip()}, {"role": "user", "content": user.strip()}]


def engine_text(view: PromptView) -> EngineText:
    """The prompt of `view` as the engine wrote it: what people wrote cut out, the values it shows kept."""
    cut = replace(
        view,
        lines=tuple(replace(line, text=CUT) for line in view.lines),
        quoted=tuple(CUT for _ in view.quoted),
        dedupe=tuple(CUT for _ in view.dedupe),
        documents_quoted=tuple(CUT for _ in view.documents_quoted),
        history_summary=CUT if view.history_summary else None,
        answering=view.answering and replace(view.answering, text=CUT),
    )
    text = "\n".join(m["content"] for m in render_prompt(cut))
    said = [line.text for line in view.lines] + list(view.quoted)  # an engine note may quote them
    examples = [str(line) for line in view.persona.get("example_lines") or ()]  # offered to be said
    mission = [view.scene.mission] if view.scene.mission else []  # the boss's (or the scenario's) words
    return EngineText(text, (*view.people, *said, *examples, *mission))
