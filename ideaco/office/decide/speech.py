"""What becomes of a thought's drafts: posted, or held by a gate or a loop breaker, as values.

Each draft is checked against the conversation as the think left it so far (its earlier drafts
count): the speech gates (spec 2.2: saturation, anti-spam, cooldown), then the loop breakers
(2.3: a room still closed by a ring, a duplicate, a new ring). A refusal's own consequences (a
duplicate costs stamina, a ring closes the room) are made on the think's scratch copy; nothing
here touches the office.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ideaco.cycle import ADDRESSED_TRIGGERS, ENGINE_TRIGGERS, Gate, LoopRule, Owed, TextRule, Trigger
from ideaco.ids import BOSS, dm_members
from ideaco.kinds import GROUP_KINDS, ConversationKind, MessageKind
from ideaco.mind import stamina, targets
from ideaco.mind.prompt import EngineText
from ideaco.mind.thought import COMPACT_WIRE_LIMITS, WIRE_LIMITS
from ideaco.office import rules
from ideaco.office.core.conversation import Message
from ideaco.office.core.state import ConversationState, Employee
from ideaco.office.core.steps import DraftStep, GateHoldStep, Step
from ideaco.office.decide.scratch import Scratch
from ideaco.office.rules import levers, text
from ideaco.office.rules.config import Switches
from ideaco.office.rules.levers import LeverConfig
from ideaco.office.rules.text import STRICT

ALL_ON = Switches()


@dataclass(frozen=True)
class DraftVerdict:
    """Why a draft may not go out now: the gate, the rule (loop breaker or text rule, with the text
    rule's kind: guarantee or hygiene), when the gate reopens."""

    gate: Gate
    rule: LoopRule | TextRule | None = None
    detail: str = ""
    reopens_at: datetime | None = None
    kind: str = ""

    def step(self, where: str, conversation: str) -> DraftStep:
        """The draft step that logs this refusal (`where`: the answer's field, `messages[0]`)."""
        return DraftStep(
            where,
            conversation,
            gate=self.gate,
            rule=self.rule,
            detail=self.detail,
            reopens_at=self.reopens_at,
            kind=self.kind,
        )


def clean_draft(
    draft: str,
    inner_thoughts: str,
    *,
    compact: bool,
    prompt: EngineText | None = None,
    filters: str = STRICT,
) -> tuple[str, DraftVerdict | None, str]:
    """The text as it can be posted, or why it cannot; and a note if it was cut back to its last
    sentence (it ran into its wire bound). The text rules (`rules/text/`: the guarantees, and
    small-model hygiene under `strict`) come before any gate: a draft not fit to post is no speech;
    `prompt`, what the engine wrote into the think's prompt, must not be echoed.
    """
    bound = (COMPACT_WIRE_LIMITS if compact else WIRE_LIMITS)["content"]
    finished = text.finish(draft, bound)
    if finished is None and filters == STRICT:
        detail = f"ran into its {bound}-character bound mid-sentence"
        return draft, DraftVerdict(Gate.FILTERED, TextRule.UNFINISHED, detail, kind=text.HYGIENE), ""
    finished = draft.strip() if finished is None else finished
    verdict = text.check(finished, filters=filters, inner_thoughts=inner_thoughts, prompt=prompt)
    if verdict is not None:
        return finished, DraftVerdict(Gate.FILTERED, verdict.rule, verdict.detail, kind=verdict.kind), ""
    cut = finished != draft.strip()
    return (
        finished,
        None,
        f"cut back to its last sentence (it ran into its {bound}-character bound)" if cut else "",
    )


def build_message(
    conv: ConversationState,
    sender: str,
    text: str,
    msg_id: str,
    people: Mapping[str, str],
    now: datetime,
    kind: str = MessageKind.CHAT,
) -> Message:
    """A message as it would be posted: who it mentions is decided here, once."""
    # Without an '@' nothing can be a mention: skip building every name of the company.
    names = people if "@" in text else {}
    if sender == BOSS:
        mentions = rules.addressed_by_boss(text, names, conv.members)
    else:
        mentions = rules.parse_mentions(text, names, conv.members, sender=sender)
    return Message(
        id=msg_id, at=now, conversation=conv.id, sender=sender, text=text, mentions=tuple(mentions), kind=kind
    )


def outsiders(conv: ConversationState, message: Message) -> list[str]:
    """Whom a message @-mentions who is not in its conversation (they do not see it)."""
    return [m for m in message.mentions if m not in conv.members]


def outsider_note(conv: ConversationState, message: Message, people: Mapping[str, str]) -> str | None:
    """The system line its sender reads when a mention reached someone not in the conversation."""
    missing = outsiders(conv, message)
    if not missing:
        return None
    names = ", ".join(people.get(m, m) for m in missing)
    verb = "is" if len(missing) == 1 else "are"
    return (
        f"Your message in {conv.name} mentioned {names}, who {verb} not in it and did not see it. "
        f"To reach them, use send_message (to: {', '.join(missing)})."
    )


def gate_draft(
    scratch: Scratch,
    employee: str,
    conv: ConversationState,
    text: str,
    saturation: int,
    mentioned: bool,
    now: datetime,
    gates: rules.GateConfig,
    switches: Switches = ALL_ON,
) -> DraftVerdict | None:
    """None when the draft may be posted now, else why not (its consequences made on `scratch`).

    With the gates switched off (an ablation) the speech gates hold nothing; the loop breakers stay.
    """
    if switches.gates:
        own = [m.at for m in conv.recent if m.sender == employee]
        speech = rules.check_speech(conv.kind, own, saturation, mentioned, now, gates)
        if not speech.allowed:
            return DraftVerdict(speech.gate, reopens_at=speech.reopens_at)
    if rules.is_closed(conv.closed_until, now):
        detail = f"closed to agent posts until {conv.closed_until.isoformat()}"  # type: ignore[union-attr]
        return DraftVerdict(Gate.LOOP_BREAKER, LoopRule.RING, detail)
    history = list(conv.recent)
    elsewhere = [
        m
        for other in scratch.conversations.values()
        if other.id != conv.id
        for m in other.recent
        if m.sender == employee
    ]
    duplicate = rules.check_duplicate(history, employee, text, now, elsewhere=elsewhere)
    if not duplicate.allowed and switches.stamina:  # repeating oneself costs stamina (spec 2.6)
        mind = scratch.employee(employee).mind
        if stamina.counts(mind.stamina, "repetition", now):
            scratch.stamina_event(employee, "repetition")
        mind.stamina = stamina.apply(mind.stamina, "repetition", now)
    if not duplicate.allowed:
        return DraftVerdict(Gate.LOOP_BREAKER, LoopRule.DUPLICATE, duplicate.detail)
    ring = rules.check_ring(history, employee, now)
    if not ring.allowed:
        scratch.conversation(conv.id).closed_until = ring.closed_until
        return DraftVerdict(Gate.LOOP_BREAKER, LoopRule.RING, ring.detail)
    return None


def silence_verdict(emp: Employee, interest: int, addressed: bool, cfg: LeverConfig) -> DraftVerdict | None:
    """A draft the employee keeps to itself: its interest under its silence threshold, and nobody asked.

    The threshold comes from the persona's silence_bias (`levers.silence_threshold`); being
    mentioned, the boss or an engine request lifts it, as it lifts the saturation gate.
    """
    threshold = levers.silence_threshold_of(emp, cfg)
    if not levers.holds_silence(interest, threshold, addressed):
        return None
    bias = levers.tendency(emp.persona, "silence_bias")
    detail = (
        f"interest {interest} is under {emp.name}'s silence threshold {threshold} "
        f"(silence_bias {bias:.2f}): {emp.name} keeps it to themself"
    )
    return DraftVerdict(Gate.CHOSE_SILENCE, detail=detail)


def hold_for(employee: str, conv: str, verdict: DraftVerdict, trigger: Trigger, note: str) -> GateHoldStep:
    """A mentioned employee held back by a gate is re-woken when it opens: delayed, never dropped.

    The re-wake keeps its original trigger (spec 1.5), and an engine request keeps its note.
    """
    assert verdict.reopens_at is not None
    trigger = trigger if trigger in ADDRESSED_TRIGGERS else Trigger.MENTION
    text = f"You were addressed here but held back ({verdict.gate}); reply now if still useful."
    if trigger in ENGINE_TRIGGERS and note:
        text = f"{note} (You were held back earlier by {verdict.gate}.)"
    return GateHoldStep(employee, conv, verdict.reopens_at, Owed(conv, trigger, text))


def target_for(
    scratch: Scratch, employee: str, to: str, names: Mapping[str, str]
) -> ConversationState | None:
    """Where a send_message goes (`mind/targets.conversation_for`): the boss chat, a DM (opened on
    first use), or a room the sender is in."""
    rooms = [c.id for c in scratch.conversations.values() if c.kind in GROUP_KINDS and employee in c.members]
    cid = targets.conversation_for(to, employee, rooms, names)
    pair = dm_members(cid) if cid is not None else None
    if pair is not None and cid not in scratch.conversations:
        scratch.add_conversation(
            ConversationState(
                id=cid, kind=ConversationKind.DM, name=" & ".join(names.get(p, p) for p in pair), members=pair
            )
        )
    return scratch.conversations.get(cid) if cid is not None else None


def tell_outsiders(scratch: Scratch, conv: ConversationState, message: Message, now: datetime) -> list[Step]:
    """A mention of someone not in the conversation: its sender reads so in its next thought."""
    note = outsider_note(conv, message, scratch.people()) if message.mentions else None
    if note is None:
        return []
    scratch.employee(message.sender).mind.notes.append(note)
    return scratch.take(now)


def post(
    scratch: Scratch,
    conv: ConversationState,
    where: str,
    sender: str,
    text: str,
    msg_id: str,
    people: Mapping[str, str],
    now: datetime,
    kind: str = MessageKind.CHAT,
) -> tuple[Message, list[Step]]:
    """A draft that passed posted on the think's scratch copy of `conv`: the message
    (`build_message`), its draft step, and what telling the members outside it changed."""
    message = build_message(conv, sender, text, msg_id, people, now, kind)
    scratch.conversation(conv.id).add(message)
    steps: list[Step] = [DraftStep(where, conv.id, message=message, message_id=message.id)]
    return message, steps + tell_outsiders(scratch, conv, message, now)


def escalates(began: dict[str, Any]) -> bool:
    """Whether a think answers an escalation the engine asked for (`began`: what starting it took);
    what it says to the boss then is flagged."""
    return bool((began.get("owed") or {}).get("escalation"))
