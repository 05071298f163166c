"""The task board as the office sees it (issue 13): where offered work is posted, who may see it, who
is told when nobody claims it. The board's own rules (`Offer`, claims, notes) are in `mind/board.py`.

Read-only helpers: a think adds to the board on its scratch copy (`notice`), a look reads it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from ideaco.cycle import Owed, Trigger
from ideaco.ids import boss_conversation_id
from ideaco.kinds import GROUP_KINDS, ConversationKind
from ideaco.mind import board, stamina
from ideaco.mind.board import Offer
from ideaco.mind.tasks import open_claims as claims_of
from ideaco.office.core.conversation import Message
from ideaco.office.core.state import ConversationState, Employee
from ideaco.office.perceive.view import OfficeView
from ideaco.office.rules import levers


def open_claims(office: OfficeView) -> dict[str, tuple[str, str]]:
    """claim key -> (owner, task id) of every open task in the company."""
    return claims_of(t for e in office.state.employees.values() for t in e.mind.tasks)


def room_for(office: OfficeView, emp: Employee, conv: ConversationState) -> str | None:
    """Where work an employee offers or releases now is posted: the room it is in, else a work room
    of its department, else its department's casual room (None: only the board shows it)."""
    if conv.kind in GROUP_KINDS:
        return conv.id
    if not emp.department:
        return None
    mine = [c for c in office.conversations_of(emp.id) if c.department == emp.department]
    work = [c.id for c in mine if c.kind is ConversationKind.WORK]
    casual = [c.id for c in mine if c.kind is ConversationKind.CASUAL]
    return (work or casual or [None])[0]


def offers_from(office: OfficeView, message: Message) -> set[str]:
    """Who put up the work a `claimable` line announces (they are not woken to claim it)."""
    return {o.offered_by for o in announced(office, message)}


def announced(office: OfficeView, message: Message) -> list[Offer]:
    """The work a `claimable` line announces."""
    return [
        o
        for o in office.state.board.values()
        if o.room == message.conversation and o.offered_at == message.at
    ]


def visible_to(office: OfficeView, emp: Employee, now: datetime) -> list[Offer]:
    """The board's work an employee may claim now: offered in a room it is in (or nowhere), not by
    itself, and open to it (its dibs have come: the keen see it first)."""
    if not office.state.board:
        return []
    rooms = {c.id for c in office.conversations_of(emp.id)}
    cfg = office.config.person_levers()
    return [
        o
        for o in office.state.board.values()
        if o.offered_by != emp.id
        and (o.room is None or o.room in rooms)
        and levers.dibs(emp, o.offered_at, cfg, o.description) <= now
    ]


def _led_by(office: OfficeView, emp: Employee) -> Iterable[Offer]:
    departments = office.state.company.departments
    for offer in office.state.board.values():
        dept = departments.get(offer.department or "")
        if dept is not None and dept.lead == emp.id:
            yield offer


def unowned_alert(office: OfficeView, emp: Employee, now: datetime) -> tuple[Owed, str, str] | None:
    """A think owed to a lead whose department's work has had no owner for 30 minutes: (think, task, level).

    It happens in the work's room if the lead is in it, else in the lead's boss chat; once per task.
    """
    for offer in _led_by(office, emp):
        if now < board.unowned_due(offer) or emp.desk.task_alerts.get(offer.id) == board.UNOWNED:
            continue
        room = office.state.conversations.get(offer.room or "")
        target = room.id if room is not None and emp.id in room.members else boss_conversation_id(emp.id)
        dept = office.state.company.departments[offer.department or ""]
        return Owed(target, Trigger.SYSTEM, board.unowned_note(offer, dept.name)), offer.id, board.UNOWNED
    return None


def opened_alert(office: OfficeView, emp: Employee, now: datetime) -> tuple[Owed, str, str] | None:
    """A think owed to a member that board work opened to after it last read its room: (think, task, level).

    A member who read the room's line before its dibs came saw no claimable task then, and the
    line is read: without this its wake to claim would find nothing unread. Once per offer (a
    think whose prompt listed the offer counts, `shown_alerts`); never for the red zone.
    """
    if not stamina.may_claim(emp.mind.stamina):
        return None
    for offer in visible_to(office, emp, now):
        if offer.room is None or offer.id in emp.desk.task_alerts:
            continue
        return Owed(offer.room, Trigger.TASK, board.opened_note(offer)), offer.id, board.OPENED
    return None


def shown_alerts(office: OfficeView, emp: Employee, now: datetime) -> dict[str, str]:
    """The task alerts of `emp` once a think starting now lists the board's work open to it: it need
    not be owed one for it (read only: `Employee.begin` applies them)."""
    alerts = dict(emp.desk.task_alerts)
    for offer in visible_to(office, emp, now):
        alerts.setdefault(offer.id, board.OPENED)
    return alerts


def next_opening(office: OfficeView, emp: Employee, now: datetime) -> datetime | None:
    """The next moment (after `now`) work offered in one of `emp`'s rooms opens to it (its dibs)."""
    if not office.state.board or not stamina.may_claim(emp.mind.stamina):
        return None
    rooms = {c.id for c in office.conversations_of(emp.id)}
    cfg = office.config.person_levers()
    due = [
        at
        for o in office.state.board.values()
        if o.offered_by != emp.id
        and o.room in rooms
        and (at := levers.dibs(emp, o.offered_at, cfg, o.description)) > now
    ]
    return min(due, default=None)


def next_unowned_alert(office: OfficeView, emp: Employee, now: datetime) -> datetime | None:
    """The next moment (after `now`) work this lead's department has not claimed turns 30 minutes old."""
    due = [board.unowned_due(o) for o in _led_by(office, emp) if board.unowned_due(o) > now]
    return min(due, default=None)
