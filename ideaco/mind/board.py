"""The company's task board (issue 13): tasks nobody owns yet, which anyone in their room can claim.

A task gets on the board when someone offers work (taskOps `offer`) or releases a task it owns
(`release`, with a reason); it leaves the board when someone claims it (a `create` with its claim
key), and becomes that one's task, with the same id. A task nobody claims for 30 simulated minutes
pings its department's lead. Pure: `now` is passed in; `Offer` is frozen.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from datetime import datetime, timedelta
from typing import Any

import regex

from ideaco.ids import REQUIREMENT_PREFIX
from ideaco.mind.tasks import SELF, Task, normalize_claim_key

UNOWNED_ALERT = timedelta(minutes=30)  # nobody claimed it: its department's lead hears of it
SHOWN = 5  # claimable tasks a prompt lists at most
UNOWNED = "unowned"  # the alert level a lead's desk notes, like a task's urgency
OPENED = "opened"  # the level a member's desk notes once work on the board was open to it in a think


@dataclass(frozen=True, kw_only=True)
class Offer:
    """A task on the board: who put it there, when, where (its room is told) and why."""

    id: str
    description: str
    claim_key: str
    offered_by: str
    offered_at: datetime
    room: str | None = None  # where it was offered: its members are told and may claim it
    department: str | None = None  # whose lead hears of it when nobody claims it
    reason: str = ""  # why it was released ("" for work offered)
    origin: str = SELF  # who asked for the work (the claimant's task keeps it)
    type: str = "oneshot"
    hint: str | None = None
    document: str | None = None  # the document the piece delivers (issue 20)

    @property
    def released(self) -> bool:
        return bool(self.reason)

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d["offered_at"] = self.offered_at.isoformat()
        return d if self.document else {k: v for k, v in d.items() if k != "document"}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Offer:
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in d.items() if k in known}
        kwargs["offered_at"] = datetime.fromisoformat(d["offered_at"])
        return cls(**kwargs)


def default_document(key: str) -> str:
    """The document a requirement's piece expects when its offer names none: `docs/<claim key>.md`."""
    stem = regex.sub(r"[^\p{L}\p{M}\p{N}._-]+", "-", key.lower()).strip("-._")[:60] or "piece"  # any script
    return f"docs/{stem}.md"


def key_for(description: str, key: str | None, taken: Iterable[str]) -> str:
    """The claim key of a new offer: the one given, else made from the description's first words
    (a slug: "Write the API spec, v2." -> `write-the-api-spec-v2`); unique."""
    made = "-".join(regex.findall(r"[\p{L}\p{M}\p{N}]+", description[:40].lower()))  # marks kept: हाँ
    chosen = normalize_claim_key(key) or made or "task"
    taken = set(taken)
    n = 2
    base = chosen
    while chosen in taken:
        chosen, n = f"{base}-{n}", n + 1
    return chosen


def offer_of(task: Task, by: str, reason: str, now: datetime, *, key: str) -> Offer:
    """A released task as an offer (its owner gives it up; `reason` says why)."""
    return Offer(
        id=task.id,
        description=task.description,
        claim_key=key,
        offered_by=by,
        offered_at=now,
        reason=reason,
        origin=task.origin,
        type=task.type,
        hint=task.on_resolve_hint,
        document=task.document,
    )


def claimed(offer: Offer, owner: str, now: datetime) -> Task:
    """The offer as the claimant's task: the same id and key; its age (urgency) starts now."""
    return Task(
        id=offer.id,
        owner=owner,
        description=offer.description,
        created_at=now,
        origin=offer.origin if offer.origin != owner else SELF,
        type=offer.type,
        on_resolve_hint=offer.hint,
        claim_key=offer.claim_key,
        document=offer.document,
        requirement=offer.room if (offer.room or "").startswith(REQUIREMENT_PREFIX) else None,
    )


def unowned_due(offer: Offer) -> datetime:
    """When nobody owning it becomes the lead's business."""
    return offer.offered_at + UNOWNED_ALERT


def unowned_note(offer: Offer, department: str) -> str:
    return (
        f"Nobody has claimed [{offer.id}] '{offer.description}' (claim key {offer.claim_key}) for 30 minutes. "
        f"As the lead of {department}, see that someone takes it: ask a colleague, or claim it yourself."
    )


def opened_note(offer: Offer) -> str:
    return (
        f"[{offer.id}] '{offer.description}' (claim key {offer.claim_key}) on the task board is open to you "
        "now: claim it if you will do it."
    )


def notice(offer: Offer, by: str) -> str:
    """The line the offer's room reads: what, who, why, and how to claim it."""
    what = f"[{offer.id}] {offer.description} (claim key {offer.claim_key})"
    if offer.released:
        return f"{by} released {what}: {offer.reason}. Anyone here can claim it."
    return f"{by} offers {what}. Anyone here can claim it."


def _ago(then: datetime, now: datetime) -> str:
    minutes = int((now - then).total_seconds() // 60)
    return "just now" if minutes < 1 else f"{minutes} min ago"


def board_block(
    offers: Iterable[Offer], now: datetime, name_of: Callable[[str], str], *, may_claim: bool = True
) -> str:
    """The prompt's claimable tasks (oldest first, at most SHOWN); '' when there are none."""
    shown = sorted(offers, key=lambda o: (o.offered_at, o.id))[:SHOWN]
    if not shown:
        return ""
    example = shown[0].claim_key
    lines = [
        "## Claimable tasks (nobody owns them yet)",
        *(
            f"[{o.id}] {o.description}{f' (document {o.document})' if o.document else ''} — claim key {o.claim_key}, "
            f"{'released' if o.released else 'offered'} by {name_of(o.offered_by)} {_ago(o.offered_at, now)}"
            + (f": {o.reason}" if o.released else "")
            for o in shown
        ),
    ]
    if may_claim:
        lines.append(f'To take one: taskOps [{{"op": "create", "claimKey": "{example}"}}].')
    else:
        lines.append("You are worn out: finish or release your own tasks before you claim another.")
    return "\n".join(lines)
