"""An employee's tasks (spec 2.5): urgency by age, the prompt block, task ops, stalls and claims.

Pure: every function is handed `now`; ids come from the caller's `new_id`. `Task` is frozen:
`apply_ops` and `note_thought` change the owner's task list (a changed task is a new one in the
old one's place) and return what changed, so the engine can log it, report it and schedule the
follow-up thinks.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from ideaco.ids import boss_conversation_id
from ideaco.mind.targets import normalize_target
from ideaco.mind.thought import TaskOp

PENDING, RESOLVED, FAILED = "pending", "resolved", "failed"  # a task's status
STATUSES = (PENDING, RESOLVED, FAILED)
# Who asked for a task (its `origin`): the boss (`ids.BOSS`), a colleague (their id), or its owner.
SELF = "self"
TASK_PREFIX = "task-"  # a task's id: task-<n>, n counted company-wide

# Age thresholds, oldest first: a task is at the first level whose age it has reached.
URGENCY_LEVELS = (
    ("critical", timedelta(minutes=30)),
    ("overdue", timedelta(minutes=15)),
    ("aging", timedelta(minutes=5)),
)
URGENCY_HINT = {
    "normal": "",
    "aging": "follow up soon",
    "overdue": "needs immediate attention",
    "critical": "escalate or resolve now",
}
# An overdue or critical task wakes its owner with nothing unread (spec 2.1).
WAKING_URGENCIES = ("overdue", "critical")
STALL_AFTER = 3  # thoughts in a row that do not advance a pending task
# Pending tasks one employee may hold: every one is a line of every prompt, so a model that keeps
# creating them would grow each prompt without end (1,000 tasks: ~100 KB a prompt). A create or a
# claim beyond it is refused, with a reason the employee reads.
MAX_PENDING = 12

NO_TASKS_LINE = "No open tasks. If someone asks you for something you will do, create a task with taskOps."


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _dt(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


def _one_line(text: str | None) -> str:
    return " ".join((text or "").split())


@dataclass(kw_only=True, frozen=True)
class Task:
    """One task of one employee. `origin` says who asked: BOSS, a colleague's id or SELF."""

    id: str
    owner: str
    description: str
    created_at: datetime
    origin: str = SELF
    type: str = "oneshot"  # oneshot | long-running | conditional
    condition: str | None = None
    status: str = PENDING  # one of STATUSES
    result: str | None = None
    on_resolve_target: str | None = None  # None: the owner's boss chat (see report_target)
    on_resolve_hint: str | None = None
    claim_key: str | None = None
    resolved_at: datetime | None = None
    stalled: bool = False
    quiet_thoughts: int = 0  # thoughts in a row that did not advance it
    document: str | None = None  # the document it delivers (a workspace path; issue 20)
    requirement: str | None = None  # the requirement's work room it is a piece of (or the requirement)

    @property
    def pending(self) -> bool:
        return self.status == PENDING

    def to_dict(self) -> dict[str, Any]:
        d = {name: getattr(self, name) for name in _task_fields()}
        d["created_at"] = _iso(self.created_at)
        d["resolved_at"] = _iso(self.resolved_at)
        return {k: v for k, v in d.items() if v is not None or k not in _LATER}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Task:
        known = {f.name for f in fields(cls)}
        kwargs = {k: v for k, v in d.items() if k in known}
        kwargs["created_at"] = _dt(d["created_at"])
        kwargs["resolved_at"] = _dt(d.get("resolved_at"))
        return cls(**kwargs)


_LATER = ("document", "requirement")  # written only when set: records without them read as before


@lru_cache(maxsize=1)
def _task_fields() -> tuple[str, ...]:
    # dataclasses.fields() is slow, and a state save writes every task of every employee.
    return tuple(f.name for f in fields(Task))


def task_id(n: int) -> str:
    """The id of the company's n-th task."""
    return f"{TASK_PREFIX}{n}"


def task_number(task: str) -> int | None:
    """The number a task's id ends with (`task-3` -> 3), which the ids handed out go on from; None
    when it ends with none (an id a scenario gave)."""
    tail = task.rsplit("-", 1)[-1]
    return int(tail) if tail.isdigit() else None


def report_target(task: Task) -> str:
    """Where the engine runs the owner's think when the task is resolved (default: boss chat)."""
    return task.on_resolve_target or boss_conversation_id(task.owner)


# --------------------------------------------------------------------------- urgency


def urgency(task: Task, now: datetime) -> str:
    """normal under 5 min of age, aging from 5, overdue from 15, critical from 30."""
    return urgency_since(task.created_at, now)


def urgency_since(since: datetime, now: datetime) -> str:
    """The urgency of work open since `since` (a task's creation, an offer's posting)."""
    age = now - since
    for label, threshold in URGENCY_LEVELS:
        if age >= threshold:
            return label
    return "normal"


def next_urgency_change(tasks: Iterable[Task], now: datetime) -> datetime | None:
    """The next moment (strictly after `now`) a pending task becomes overdue or critical."""
    moments = [
        t.created_at + threshold
        for t in tasks
        if t.pending
        for label, threshold in URGENCY_LEVELS
        if label in WAKING_URGENCIES and t.created_at + threshold > now
    ]
    return min(moments, default=None)


# --------------------------------------------------------------------------- prompt


def task_line(task: Task, now: datetime) -> str:
    """`[task-3] Ask Bob: REST or GraphQL — oneshot, overdue: needs immediate attention`."""
    kind = task.type
    if task.type == "conditional" and task.condition:
        kind += f" (condition: {_one_line(task.condition)})"
    level = urgency(task, now)
    label = f"{level}: {URGENCY_HINT[level]}" if URGENCY_HINT[level] else level
    line = f"[{task.id}] {_one_line(task.description)} — {kind}, {label}"
    line += f" (deliver the document {task.document})" if task.document else ""
    return line + " (stalled)" if task.stalled else line


PLAIN_WORDS = "Say it again in plain words."  # after a task's text the text rules refused

TASKS_HEADER = ("## Primary objective", "Your open tasks come before anything else:")
RESOLVE_HINT = (
    'When one is done, resolve it: taskOps [{{"op": "resolve", "taskId": "{example}", '
    '"result": "what you found or did"}}]. If you cannot do it, fail it: '
    '{{"op": "fail", "taskId": "{example}", "reason": "why"}}. To hand it to someone else, release it: '
    '{{"op": "release", "taskId": "{example}", "reason": "why"}}.'
)


def tasks_block(tasks: Iterable[Task], now: datetime) -> str:
    """The prompt's task section: one light line, or the primary objective with every pending task."""
    pending = sorted((t for t in tasks if t.pending), key=lambda t: t.created_at)
    if not pending:
        return NO_TASKS_LINE
    example = pending[0].id  # a real id: small models copy the example literally
    return "\n".join(
        [*TASKS_HEADER, *(task_line(t, now) for t in pending), RESOLVE_HINT.format(example=example)]
    )


# --------------------------------------------------------------------------- ops


@dataclass
class TaskOpsResult:
    """What one thought's task ops changed. `refused` is read by the employee on its next think;
    `corrections` go to the thought's log record (refusals are not repeated there)."""

    created: list[Task] = field(default_factory=list)
    resolved: list[Task] = field(default_factory=list)
    failed: list[Task] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    corrections: list[str] = field(default_factory=list)
    advanced: set[str] = field(default_factory=set)
    claimed: list[Task] = field(default_factory=list)  # taken from the board (also in `created`)
    released: list[tuple[Task, str]] = field(default_factory=list)  # given up, with the reason
    offered: list[Task] = field(default_factory=list)  # new work for anyone (owner ""), for the board


def normalize_claim_key(key: str | None) -> str | None:
    """Claim keys compare case-, width- and spacing-insensitively: "API research" == "api-research",
    "ＡＰＩ" == "api" (NFKC); any script's letters are kept ("用户 登录" -> "用户-登录")."""
    key = "-".join(unicodedata.normalize("NFKC", key or "").lower().split())
    return key or None


def open_claims(all_tasks: Iterable[Task]) -> dict[str, tuple[str, str]]:
    """claim key -> (owner id, task id) of the open tasks company-wide (the `claims` of apply_ops)."""
    return {t.claim_key: (t.owner, t.id) for t in all_tasks if t.pending and t.claim_key}


def _task_id(raw: str | None) -> str:
    # Models often copy the id with the brackets of its prompt line: "[task-3]".
    return (raw or "").strip().strip("[]").strip()


def _who(owner_id: str, me: str, people: Mapping[str, str]) -> str:
    if owner_id == me:
        return "you"
    name = people.get(owner_id, owner_id)
    return f"{name} ({owner_id})" if name != owner_id else owner_id


def apply_ops(
    tasks: list[Task],
    ops: Sequence[TaskOp],
    now: datetime,
    *,
    owner: str,
    origin: str,
    new_id: Callable[[], str],
    claims: Mapping[str, tuple[str, str]],
    conversations: Collection[str],
    employees: Collection[str],
    people: Mapping[str, str],
    claimable: Mapping[str, Task] | None = None,
    not_yet: Mapping[str, datetime] | None = None,
    may_claim: bool = True,
    key_problem: Callable[[str], str | None] = lambda _key: None,
    unwritten: Collection[str] = (),
    text_problem: Callable[[str], str | None] = lambda _text: None,
) -> TaskOpsResult:
    """Apply one thought's taskOps to `tasks` (this owner's; mutated in place: creates appended).

    `claims` are the open claim keys company-wide (see open_claims); a create whose key is
    already open, by anyone, is refused. `claimable` maps the board's claim keys to the task a
    claim makes (its id kept): a create with such a key takes it; `not_yet` maps the board's keys
    that are not open to this owner yet (keener colleagues have first dibs) to when they open: a
    claim of one is refused. With `may_claim` False (the red zone) any create with a claim key is
    refused, and so is a new task or offer whose key `key_problem` says is none. resolve/fail/release need a pending task of this
    owner; release gives it up (it leaves `tasks`, for the board); offer puts new work on the board.
    A task that delivers a document among `unwritten` is not resolved: the owner writes it first.
    A task's words people read (a description, a result, a reason) are held to the office's text
    rules (`text_problem`, office/rules/text/): an op whose text fails is refused with the reason.
    A bad op is dropped with a correction; the other ops still apply.
    """
    res = TaskOpsResult()
    live = dict(claims)  # claims change within the batch as tasks are created and closed
    board = dict(claimable or {})
    mine = {t.id: t for t in tasks}
    for i, op in enumerate(ops):
        where = f"taskOps[{i}]"
        if op.op == "create" and sum(t.pending for t in tasks) >= MAX_PENDING:
            what = _one_line(op.description) or normalize_claim_key(op.claimKey) or "a new task"
            res.refused.append(
                f"Your new task '{what[:60]}' was refused: you already have {MAX_PENDING} open tasks. "
                "Resolve, fail or release one of them first."
            )
            continue
        if op.op in ("create", "offer"):
            key = normalize_claim_key(op.claimKey)
            if key and key in live:
                holder, held = live[key]
                verb = "already own" if holder == owner else "already owns"
                res.refused.append(
                    f"Your task claim '{key}' was refused: {_who(holder, owner, people)} {verb} it as {held}."
                )
                continue
            if op.op == "create" and key and not may_claim:
                res.refused.append(
                    f"Your task claim '{key}' was refused: you are worn out. Finish or release what you "
                    "have before you claim more."
                )
                continue
            waiting = not_yet or {}
            if op.op == "create" and key is not None and key in waiting:
                res.refused.append(
                    f"Your task claim '{key}' was refused: keener colleagues have first dibs; "
                    f"it opens to you at {waiting[key]:%H:%M:%S}."
                )
                continue
            if op.op == "create" and key is not None and key in board:  # a claim: the task is theirs now
                task = board.pop(key)
                tasks.append(task)
                mine[task.id], live[key] = task, (owner, task.id)
                res.created.append(task)
                res.claimed.append(task)
                res.advanced.add(task.id)
                continue
            description = _one_line(op.description)
            if not description:
                res.corrections.append(f"{where}: {op.op} without a description, dropped")
                continue
            if key is not None and (why := key_problem(key)):
                res.refused.append(f"Your task claim '{key[:60]}' was refused: {why}.")
                continue
            if why := text_problem(description):
                res.refused.append(f"Your new task was refused: its description has {why}. {PLAIN_WORDS}")
                continue
            if op.op == "offer" and key is not None and (key in board or key in waiting):
                res.refused.append(f"Your offer '{key}' was refused: that key is on the board already.")
                continue
            kind = op.type  # the Flow-of-Thought model admits only TASK_TYPES
            # A report's DM goes to a colleague by id, or by name if still here (read only here).
            colleagues = {e: people.get(e, "") for e in employees}
            target, note = normalize_target(
                op.onResolveTarget, owner, conversations=conversations, people=colleagues
            )
            if note and op.op == "create":
                res.corrections.append(f"{where}: {note}")
            task = Task(
                id=new_id(),
                owner=owner if op.op == "create" else "",
                description=description,
                created_at=now,
                origin=origin,
                type=kind,
                condition=_one_line(op.condition) or None,
                on_resolve_target=target if op.op == "create" else None,
                on_resolve_hint=_one_line(op.onResolveHint) or None,
                claim_key=key,
                document=_one_line(op.document) or None,
            )
            if op.op == "offer":
                res.offered.append(task)
                if key:
                    board[key] = task
                continue
            tasks.append(task)
            mine[task.id] = task
            if key:
                live[key] = (owner, task.id)
            res.created.append(task)
            res.advanced.add(task.id)
            continue

        tid = _task_id(op.taskId)
        if not tid:
            res.corrections.append(f"{where}: {op.op} without a taskId, dropped")
            continue
        task = mine.get(tid)
        if task is None:
            res.corrections.append(f"{where}: {op.op} of {tid!r:.40}: not one of your tasks, dropped")
            continue
        if not task.pending:
            res.corrections.append(f"{where}: {op.op} of {tid}: already {task.status}, dropped")
            continue
        if op.op == "resolve" and task.document and task.document in unwritten:
            res.refused.append(
                f"Your task [{tid}] was not resolved: it delivers {task.document}, which is not written yet. "
                "Write it (write_document) first, or fail or release the task."
            )
            continue
        said = (op.result or op.reason or "").strip()
        if said and (why := text_problem(said)):
            res.refused.append(f"Your {op.op} of [{tid}] was refused: its text has {why}. {PLAIN_WORDS}")
            continue
        if task.claim_key and live.get(task.claim_key, (None, None))[1] == task.id:
            del live[task.claim_key]
        if op.op == "release":
            tasks.remove(task)
            del mine[task.id]
            res.released.append((task, (op.reason or op.result or "").strip() or "no reason given"))
            continue
        if op.op == "resolve":
            result = (op.result or op.reason or "").strip() or "done"
            task = _replace(tasks, task, replace(task, status=RESOLVED, result=result, resolved_at=now))
            res.resolved.append(task)
        else:
            result = (op.reason or op.result or "").strip() or "no reason given"
            task = _replace(tasks, task, replace(task, status=FAILED, result=result, resolved_at=now))
            res.failed.append(task)
        mine[task.id] = task
        res.advanced.add(task.id)
    return res


# --------------------------------------------------------------------------- stalls and counts


def note_thought(tasks: list[Task], advanced: Collection[str]) -> list[Task]:
    """Count one thought of the owner against its pending tasks; return the ones that just stalled.

    A pending task not in `advanced` gets one more quiet thought; an advanced one is reset (and
    un-stalled). At STALL_AFTER quiet thoughts in a row it is flagged stalled (it stays pending)
    and returned this once, so the engine asks its owner to report it. Changed tasks are replaced
    in `tasks`.
    """
    stalled = []
    for i, task in enumerate(tasks):
        if not task.pending:
            continue
        if task.id in advanced:
            if task.quiet_thoughts or task.stalled:
                tasks[i] = replace(task, quiet_thoughts=0, stalled=False)
            continue
        quiet = task.quiet_thoughts + 1
        stall = quiet >= STALL_AFTER and not task.stalled
        tasks[i] = replace(task, quiet_thoughts=quiet, stalled=task.stalled or stall)
        if stall:
            stalled.append(tasks[i])
    return stalled


def _replace(tasks: list[Task], old: Task, new: Task) -> Task:
    """Put `new` in `old`'s place in `tasks` (the same object, not an equal one); returns `new`."""
    tasks[next(i for i, t in enumerate(tasks) if t is old)] = new
    return new


def counts_by_status(all_tasks: Iterable[Task]) -> dict[str, int]:
    """{"pending": n, "resolved": n, "failed": n} (every status present) for summary.json."""
    counts = dict.fromkeys(STATUSES, 0)
    for task in all_tasks:
        counts[task.status] = counts.get(task.status, 0) + 1
    return counts


CLOSED_KEPT = 50


def prune_closed(tasks: list[Task], keep: int = CLOSED_KEPT) -> int:
    """Keep only the `keep` most recently closed tasks (in place); returns how many were dropped.

    Pending tasks always stay. Closed ones are in thoughts.jsonl for good; keeping them all in the
    state would make every save grow with the run's length.
    """
    closed = [t for t in tasks if not t.pending]
    if len(closed) <= keep:
        return 0
    closed.sort(key=lambda t: (t.resolved_at or t.created_at, t.id))
    drop = {id(t) for t in closed[: len(closed) - keep]}
    tasks[:] = [t for t in tasks if id(t) not in drop]
    return len(drop)
