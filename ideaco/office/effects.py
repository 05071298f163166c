"""What a thought changes in its employee's mind, spoken or silent (spec 2.4-2.6).

Memory and relationship ops, task ops with claims and onResolve, stalled tasks, stamina events
and escalation. The rules themselves are pure functions in `ideaco.mind`; this module feeds
them the office's facts (who exists, which claims are open, what time it is) and turns their
results into the office's consequences: owed thinks (`Focus`) and wakes.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ideaco.mind import memory as memories
from ideaco.mind import relationships, stamina, tasks
from ideaco.mind.thought import Thought
from ideaco.office import rules
from ideaco.office.conversation import BOSS, ConversationKind, boss_conversation_id
from ideaco.office.state import ConversationState, EmployeeState, Focus

if TYPE_CHECKING:
    from ideaco.office.office import Office


def task_origin(emp: EmployeeState, conv: ConversationState) -> str:
    """Who asked for a task created in this conversation: the boss, a colleague, or the employee."""
    if conv.kind is ConversationKind.BOSS:
        return BOSS
    if conv.kind is ConversationKind.DM:
        return next((m for m in conv.members if m != emp.id), "self")
    return "self"


def before_think(emp: EmployeeState, now: datetime) -> None:
    """Natural recovery for the idle time since the last think."""
    emp.stamina = stamina.recover(emp.stamina, now)


def apply_effects(
    office: Office, emp: EmployeeState, conv: ConversationState, thought: Thought, *, calls: int
) -> list[str]:
    """Apply one thought's ops; return the corrections to log with it."""
    now = office.clock.now()
    notes: list[str] = []
    for _ in range(calls):
        emp.stamina = stamina.apply(emp.stamina, "llm_call")

    notes += memories.apply_ops(emp.memory, thought.memoryOps, now)
    notes += memories.set_summary(emp.memory, conv.id, thought.memorySummary)

    rel_notes, swings = relationships.apply_ops(
        emp.relationships, thought.relationshipOps, now, self_id=emp.id, people=office.people
    )
    notes += rel_notes
    for _who, delta in swings:
        event = stamina.affinity_event(round(delta))
        if event:
            emp.stamina = stamina.apply(emp.stamina, event)

    notes += _apply_tasks(office, emp, conv, thought, now)
    _check_escalation(office, emp, now)
    emp.stamina = stamina.mark_active(emp.stamina, now)
    return notes


def _apply_tasks(
    office: Office, emp: EmployeeState, conv: ConversationState, thought: Thought, now: datetime
) -> list[str]:
    mine = [c.id for c in office.conversations_of(emp.id)]
    # Only a create reads the company-wide claims: skip collecting them (every task of everyone) otherwise.
    creates = any(op.op == "create" for op in thought.taskOps)
    result = tasks.apply_ops(
        emp.tasks,
        thought.taskOps,
        now,
        owner=emp.id,
        origin=task_origin(emp, conv),
        new_id=lambda: office.next_id("task"),
        claims=office.open_claims() if creates else {},
        conversations=mine,
        employees=office.employees.keys(),
        people=office.people,
    )
    emp.notes.extend(result.refused)
    if thought.taskOps:
        conv.reset_at = now  # a task op resets the pair streak and the unanswered ceiling
    for _ in result.created:
        emp.stamina = stamina.apply(emp.stamina, "task_assigned")
    for _ in result.failed:
        emp.stamina = stamina.apply(emp.stamina, "task_fail")
    for task in result.resolved:
        emp.stamina = stamina.apply(emp.stamina, "task_complete")
        _owe_report(office, emp, task)
    for task in tasks.note_thought(emp.tasks, result.advanced):
        emp.stamina = stamina.apply(emp.stamina, "repetition")
        owe(
            office,
            emp,
            Focus(
                boss_conversation_id(emp.id),
                "system",
                f"Your task [{task.id}] has not moved for three thoughts. Tell the boss where it stands "
                "and what blocks it.",
            ),
        )
    if result.resolved or result.failed:
        tasks.prune_closed(emp.tasks)  # the state stays bounded; the logs keep every task op
    return result.corrections


def _owe_report(office: Office, emp: EmployeeState, task: tasks.Task) -> None:
    """onResolve: a normal think in the task's target conversation, where the employee reports."""
    target = tasks.report_target(task)
    if target.startswith("dm:"):
        a, b = target.split(":")[1:3]
        office.dm(a, b)
    if target not in office.conversations:
        target = boss_conversation_id(emp.id)
    hint = f" Hint: {task.on_resolve_hint}." if task.on_resolve_hint else ""
    note = (
        f"Your task [{task.id}] '{task.description}' is done. Result: {task.result or 'done'}.{hint} "
        "Report it here in your own words."
    )
    owe(office, emp, Focus(target, "on_resolve", note))


def owe(office: Office, emp: EmployeeState, focus: Focus) -> None:
    """A think the engine owes `emp` in a conversation, soon (1-5 s)."""
    emp.focus.append(focus)
    soon = office.clock.now() + timedelta(seconds=rules.mention_delay(office.rng, office.config.timers))
    office.schedule_wake(emp, soon, focus.trigger)


def _check_escalation(office: Office, emp: EmployeeState, now: datetime) -> None:
    """Under 30 comfort, an employee with pending work escalates it to the boss, once per slump."""
    if not stamina.should_escalate(emp.stamina):
        emp.escalated = False
        return
    if emp.escalated or not emp.pending_tasks:
        return
    emp.escalated = True
    lines = "; ".join(f"[{t.id}] {t.description}" for t in emp.pending_tasks[:3])
    owe(
        office,
        emp,
        Focus(
            boss_conversation_id(emp.id),
            "system",
            f"You are worn out and stuck. Escalate to the boss: say what blocks you on {lines} and what you need.",
        ),
    )


def task_focus(emp: EmployeeState, now: datetime, existing: Collection[str]) -> Focus | None:
    """A think owed to an overdue or critical task not yet looked at at this urgency.

    It happens where the task reports (default: the boss chat).
    """
    for task in emp.pending_tasks:
        level = tasks.urgency(task, now)
        if level in ("overdue", "critical") and emp.task_alerts.get(task.id) != level:
            emp.task_alerts[task.id] = level
            target = tasks.report_target(task)
            if target not in existing:
                target = boss_conversation_id(emp.id)
            return Focus(target, "task", f"Your task [{task.id}] is {level}: {tasks.URGENCY_HINT[level]}.")
    return None


def record_repetition(emp: EmployeeState) -> None:
    """A post refused as a repeat of the employee's own words costs stamina."""
    emp.stamina = stamina.apply(emp.stamina, "repetition")
