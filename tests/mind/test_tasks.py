"""Tasks (spec 2.5): urgency thresholds, prompt lines, task ops, claims, stalls, round trip."""

from __future__ import annotations

import itertools
import json
from datetime import datetime, timedelta

import pytest

from ideaco.mind.targets import normalize_target
from ideaco.mind.tasks import (
    MAX_PENDING,
    NO_TASKS_LINE,
    URGENCY_HINT,
    Task,
    apply_ops,
    counts_by_status,
    next_urgency_change,
    note_thought,
    open_claims,
    report_target,
    task_line,
    tasks_block,
    urgency,
)
from ideaco.mind.thought import TaskOp

T0 = datetime(2026, 1, 5, 9, 0, 0)
TINY = timedelta(microseconds=1)
EMPLOYEES = ("alice", "bob", "charlie")
PEOPLE = {"alice": "Alice", "bob": "Bob", "charlie": "Charlie"}
ROOMS = ("api-design", "eng-casual")


def make(tid: str = "task-3", **kw) -> Task:
    base = {"id": tid, "owner": "alice", "description": "Ask Bob: REST or GraphQL", "created_at": T0}
    return Task(**(base | kw))


@pytest.fixture
def ids():
    counter = itertools.count(10)
    return lambda: f"task-{next(counter)}"


@pytest.fixture
def run(ids):
    """apply_ops for alice with the small office above; returns (result, alice's task list)."""

    def _run(ops, tasks=None, claims=None, now=T0, **more):
        tasks = [] if tasks is None else tasks
        res = apply_ops(
            tasks,
            [TaskOp(**op) for op in ops],
            now,
            owner="alice",
            origin="boss",
            new_id=ids,
            claims=claims or {},
            conversations=ROOMS,
            employees=EMPLOYEES,
            people=PEOPLE,
            **more,
        )
        return res, tasks

    return _run


# --------------------------------------------------------------------------- urgency

URGENCY_TABLE = [
    (timedelta(0), "normal"),
    (timedelta(minutes=5) - TINY, "normal"),
    (timedelta(minutes=5), "aging"),
    (timedelta(minutes=15) - TINY, "aging"),
    (timedelta(minutes=15), "overdue"),
    (timedelta(minutes=30) - TINY, "overdue"),
    (timedelta(minutes=30), "critical"),
    (timedelta(hours=5), "critical"),
    (timedelta(minutes=-1), "normal"),  # clock behind the task: never urgent
]


@pytest.mark.parametrize(("age", "label"), URGENCY_TABLE)
def test_urgency_both_sides_of_each_threshold(age, label):
    assert urgency(make(), T0 + age) == label


def test_urgency_hints_follow_the_spec():
    assert URGENCY_HINT == {
        "normal": "",
        "aging": "follow up soon",
        "overdue": "needs immediate attention",
        "critical": "escalate or resolve now",
    }


@pytest.mark.parametrize(
    ("age", "wake"),
    [
        (timedelta(minutes=15) - TINY, False),
        (timedelta(minutes=15), True),
        (timedelta(minutes=45), True),
    ],
)
def test_an_overdue_task_wakes_its_owner_once_per_urgency(age, wake):
    from ideaco.mind.mind import Mind
    from ideaco.office.core.state import Employee
    from ideaco.office.perceive.looks import task_alert

    emp = Employee("alice", "Alice", "r", None, None, None, {}, mind=Mind(tasks=[make()]))
    alert = task_alert(emp, T0 + age, ["boss:alice"])
    assert (alert is not None) is wake
    if alert is not None:
        owed, task_id, level = alert
        assert (owed.conversation, owed.trigger, task_id) == ("boss:alice", "task", "task-3")
        emp.desk.task_alerts[task_id] = level  # the office notes it when it wakes
        assert task_alert(emp, T0 + age, ["boss:alice"]) is None  # not again at this urgency


def test_closed_tasks_and_no_tasks_wake_nobody():
    from ideaco.mind.mind import Mind
    from ideaco.office.core.state import Employee
    from ideaco.office.perceive.looks import task_alert

    now = T0 + timedelta(hours=1)
    emp = Employee("alice", "Alice", "r", None, None, None, {}, mind=Mind(tasks=[make(status="resolved")]))
    assert task_alert(emp, now, ["boss:alice"]) is None


def test_next_urgency_change_is_the_next_crossing_of_15_or_30_minutes():
    a = make("task-1")
    b = make("task-2", created_at=T0 + timedelta(minutes=10))
    assert next_urgency_change([a, b], T0) == T0 + timedelta(minutes=15)
    # At exactly 15 min task-1 is already overdue: the next change is strictly later.
    assert next_urgency_change([a, b], T0 + timedelta(minutes=15)) == T0 + timedelta(minutes=25)
    assert next_urgency_change([a, b], T0 + timedelta(minutes=26)) == T0 + timedelta(minutes=30)
    assert next_urgency_change([a, b], T0 + timedelta(minutes=40)) is None  # both critical
    assert next_urgency_change([make(status="resolved")], T0) is None
    assert next_urgency_change([], T0) is None


# --------------------------------------------------------------------------- prompt


def test_task_line_begins_with_the_id_then_type_and_urgency():
    line = task_line(make(), T0 + timedelta(minutes=20))
    assert line == "[task-3] Ask Bob: REST or GraphQL — oneshot, overdue: needs immediate attention"


def test_task_line_normal_has_no_hint_and_shows_stall_and_condition():
    assert task_line(make(), T0) == "[task-3] Ask Bob: REST or GraphQL — oneshot, normal"
    line = task_line(
        make(type="conditional", condition="when\nBob replies", stalled=True), T0 + timedelta(minutes=31)
    )
    assert line == (
        "[task-3] Ask Bob: REST or GraphQL — conditional (condition: when Bob replies), "
        "critical: escalate or resolve now (stalled)"
    )
    assert "\n" not in task_line(make(description="two\nlines"), T0)


def test_no_pending_task_gives_one_light_line():
    assert tasks_block([], T0) == NO_TASKS_LINE
    assert tasks_block([make(status="resolved")], T0) == NO_TASKS_LINE
    assert "\n" not in NO_TASKS_LINE and "taskOps" in NO_TASKS_LINE


def test_pending_tasks_give_the_primary_objective_block():
    older = make("task-1", description="Research REST", created_at=T0 - timedelta(minutes=6))
    newer = make("task-2", description="Write the memo")
    done = make("task-0", description="Old thing", status="resolved")
    block = tasks_block([newer, done, older], T0)
    lines = block.splitlines()
    assert lines[0] == "## Primary objective"
    task_lines = [ln for ln in lines if ln.startswith("[task-")]
    assert task_lines == [task_line(older, T0), task_line(newer, T0)]  # oldest first, closed left out
    assert "aging: follow up soon" in task_lines[0]
    assert '"op": "resolve", "taskId": "task-1"' in block
    assert '"op": "fail"' in block and '"reason"' in block


# --------------------------------------------------------------------------- targets

TARGETS = [
    (None, None),
    ("", None),
    ("  ", None),
    ("api-design", "api-design"),
    ("#api-design", "api-design"),
    ("boss:alice", "boss:alice"),
    ("dm:alice:bob", "dm:alice:bob"),
    ("dm:bob:alice", "dm:alice:bob"),
    ("boss-chat-alice", "boss:alice"),
    ("dm-bob", "dm:alice:bob"),
    ("dm-charlie", "dm:alice:charlie"),
    ("group-chat-api-design", "api-design"),
    ("boss", "boss:alice"),
    ("Boss", "boss:alice"),
    ("bob", "dm:alice:bob"),
    ("@bob", "dm:alice:bob"),
]


@pytest.mark.parametrize(("target", "expected"), TARGETS)
def test_normalize_target_accepts_ids_and_aliases(target, expected):
    assert normalize_target(target, "alice", conversations=ROOMS, people=PEOPLE) == (expected, None)


@pytest.mark.parametrize(
    "target",
    [
        "nowhere",
        "boss:bob",  # someone else's boss chat
        "boss-chat-bob",
        "dm:bob:charlie",  # a DM alice is not in
        "dm:alice:zed",
        "dm:alice:alice",
        "dm-alice",
        "dm-zed",
        "group-chat-nowhere",
        "alice",  # herself
    ],
)
def test_normalize_target_refuses_unknown_with_a_note(target):
    resolved, note = normalize_target(target, "alice", conversations=ROOMS, people=PEOPLE)
    assert resolved is None
    assert note and repr(target) in note


def test_report_target_defaults_to_the_boss_chat():
    assert report_target(make()) == "boss:alice"
    assert report_target(make(on_resolve_target="api-design")) == "api-design"


# --------------------------------------------------------------------------- ops


def test_create_makes_a_pending_task_with_everything_given(run):
    res, tasks = run(
        [
            {
                "op": "create",
                "description": "  Research REST vs GraphQL ",
                "type": "conditional",
                "condition": "once Bob answers",
                "onResolveTarget": "dm-bob",
                "onResolveHint": "tell Bob first",
                "claimKey": "API Research",
            }
        ]
    )
    assert tasks == res.created and len(tasks) == 1
    t = tasks[0]
    assert (t.id, t.owner, t.origin, t.status, t.created_at) == ("task-10", "alice", "boss", "pending", T0)
    assert (t.description, t.type, t.condition) == (
        "Research REST vs GraphQL",
        "conditional",
        "once Bob answers",
    )
    assert (t.on_resolve_target, t.on_resolve_hint, t.claim_key) == (
        "dm:alice:bob",
        "tell Bob first",
        "api-research",
    )
    assert res.advanced == {"task-10"}
    assert res.corrections == [] and res.refused == []


def test_create_without_description_is_dropped_with_a_correction(run):
    res, tasks = run([{"op": "create", "description": "   "}, {"op": "create"}])
    assert tasks == [] and res.created == [] and res.advanced == set()
    assert res.corrections == [
        "taskOps[0]: create without a description, dropped",
        "taskOps[1]: create without a description, dropped",
    ]


def test_create_with_unknown_target_uses_the_default_with_a_correction(run):
    res, tasks = run([{"op": "create", "description": "x", "onResolveTarget": "mars"}])
    assert tasks[0].on_resolve_target is None and report_target(tasks[0]) == "boss:alice"
    assert (
        len(res.corrections) == 1
        and res.corrections[0].startswith("taskOps[0]: ")
        and "'mars'" in res.corrections[0]
    )


def test_claim_held_by_a_colleague_is_refused_naming_owner_and_task(run):
    res, tasks = run(
        [{"op": "create", "description": "Research APIs", "claimKey": "api-research"}],
        claims={"api-research": ("bob", "task-2")},
    )
    assert tasks == [] and res.created == [] and res.advanced == set()
    assert res.refused == ["Your task claim 'api-research' was refused: Bob (bob) already owns it as task-2."]
    assert res.corrections == []


def test_claim_held_by_the_same_owner_is_refused_too(run):
    res, tasks = run(
        [{"op": "create", "description": "again", "claimKey": "api-research"}],
        claims={"api-research": ("alice", "task-1")},
    )
    assert tasks == []
    assert res.refused == ["Your task claim 'api-research' was refused: you already own it as task-1."]


def test_claims_compare_without_case_and_spacing_and_count_within_the_batch(run):
    res, tasks = run(
        [
            {"op": "create", "description": "a", "claimKey": "Api Research"},
            {"op": "create", "description": "b", "claimKey": "api-research"},
            {"op": "create", "description": "c", "claimKey": "other"},
        ]
    )
    assert [t.description for t in tasks] == ["a", "c"]
    assert res.refused == ["Your task claim 'api-research' was refused: you already own it as task-10."]


def test_closing_a_task_frees_its_claim_within_the_batch(run):
    mine = make("task-1", claim_key="api-research")
    claims = open_claims([mine])
    res, tasks = run(
        [
            {"op": "resolve", "taskId": "task-1", "result": "REST"},
            {"op": "create", "description": "follow-up", "claimKey": "api-research"},
        ],
        tasks=[mine],
        claims=claims,
    )
    assert res.refused == [] and [t.id for t in res.created] == ["task-10"]


def test_resolve_sets_status_result_and_time(run):
    t = make("task-1")
    later = T0 + timedelta(minutes=7)
    res, tasks = run([{"op": "resolve", "taskId": "task-1", "result": "REST wins"}], tasks=[t], now=later)
    (t,) = tasks
    assert (t.status, t.result, t.resolved_at) == ("resolved", "REST wins", later)
    assert res.resolved == [t] and res.advanced == {"task-1"} and res.corrections == []


def test_resolve_without_result_says_done_and_accepts_bracketed_ids(run):
    t = make("task-1")
    _, (t,) = run([{"op": "resolve", "taskId": " [task-1] ", "result": ""}], tasks=[t])
    assert (t.status, t.result) == ("resolved", "done")


def test_a_task_that_delivers_an_unwritten_document_is_not_resolved(run):
    # What the small model did: its upgrade guide refused ('#'), it resolved the task all the same.
    doc = make("task-1", document="docs/guide.md")
    res, (doc,) = run(
        [{"op": "resolve", "taskId": "task-1", "result": "done"}], tasks=[doc], unwritten=["docs/guide.md"]
    )
    assert doc.pending and res.resolved == [] and res.advanced == set()
    assert res.refused == [
        "Your task [task-1] was not resolved: it delivers docs/guide.md, which is not written yet. "
        "Write it (write_document) first, or fail or release the task."
    ]
    other = make("task-2", document="docs/other.md")  # written (or written by this thought): resolved
    _, (other,) = run([{"op": "resolve", "taskId": "task-2"}], tasks=[other], unwritten=["docs/guide.md"])
    assert other.status == "resolved"
    failed = make("task-3", document="docs/guide.md")  # failing or releasing it is always open
    _, (failed,) = run(
        [{"op": "fail", "taskId": "task-3", "reason": "no time"}], tasks=[failed], unwritten=["docs/guide.md"]
    )
    assert failed.status == "failed"


def test_fail_sets_status_and_reason(run):
    t = make("task-1")
    res, (t,) = run([{"op": "fail", "taskId": "task-1", "reason": "Bob is away"}], tasks=[t])
    assert (t.status, t.result, t.resolved_at) == ("failed", "Bob is away", T0)
    assert res.failed == [t] and res.advanced == {"task-1"}


@pytest.mark.parametrize(
    ("op", "expected"),
    [
        ({"op": "resolve"}, "taskOps[0]: resolve without a taskId, dropped"),
        (
            {"op": "fail", "taskId": "task-99"},
            "taskOps[0]: fail of 'task-99': not one of your tasks, dropped",
        ),
        (
            {"op": "resolve", "taskId": "task-2"},
            "taskOps[0]: resolve of 'task-2': not one of your tasks, dropped",
        ),
        ({"op": "resolve", "taskId": "task-5"}, "taskOps[0]: resolve of task-5: already resolved, dropped"),
        ({"op": "fail", "taskId": "task-6"}, "taskOps[0]: fail of task-6: already failed, dropped"),
    ],
)
def test_resolve_and_fail_need_a_pending_task_of_this_owner(run, op, expected):
    closed = [make("task-5", status="resolved", result="x"), make("task-6", status="failed", result="y")]
    before = [t.to_dict() for t in closed]
    res, _ = run([op], tasks=closed, claims={"k": ("bob", "task-2")})
    assert res.corrections == [expected]
    assert res.resolved == res.failed == [] and res.advanced == set()
    assert [t.to_dict() for t in closed] == before


def test_a_bad_op_does_not_stop_the_others(run):
    t = make("task-1")
    res, tasks = run(
        [
            {"op": "resolve", "taskId": "nope"},
            {"op": "resolve", "taskId": "task-1"},
            {"op": "create", "description": "n"},
        ],
        tasks=[t],
    )
    assert tasks[0].status == "resolved" and len(tasks) == 2
    assert res.advanced == {"task-1", "task-10"} and len(res.corrections) == 1


def test_resolving_twice_in_one_batch_keeps_the_first(run):
    t = make("task-1")
    res, (t,) = run(
        [
            {"op": "resolve", "taskId": "task-1", "result": "A"},
            {"op": "fail", "taskId": "task-1", "reason": "B"},
        ],
        tasks=[t],
    )
    assert (t.status, t.result) == ("resolved", "A")
    assert res.corrections == ["taskOps[1]: fail of task-1: already resolved, dropped"]


def test_open_claims_lists_pending_claimed_tasks_only():
    tasks = [
        make("task-1", claim_key="a"),
        make("task-2", owner="bob", claim_key="b"),
        make("task-3", claim_key="c", status="resolved"),
        make("task-4"),
    ]
    assert open_claims(tasks) == {"a": ("alice", "task-1"), "b": ("bob", "task-2")}


# --------------------------------------------------------------------------- stalls


def test_stalled_after_three_quiet_thoughts_not_two_and_reported_once():
    tasks = [make("task-1")]
    assert note_thought(tasks, set()) == []
    assert note_thought(tasks, set()) == []
    assert (tasks[0].quiet_thoughts, tasks[0].stalled) == (2, False)
    assert note_thought(tasks, set()) == tasks
    assert (tasks[0].quiet_thoughts, tasks[0].stalled, tasks[0].status) == (3, True, "pending")
    assert note_thought(tasks, set()) == []  # reported once only
    assert tasks[0].stalled and tasks[0].quiet_thoughts == 4


def test_advancing_resets_the_count_and_the_stall():
    tasks = [make("task-1"), make("task-2")]
    for _ in range(2):
        note_thought(tasks, set())
    note_thought(tasks, {"task-1"})
    t, other = tasks
    assert (t.quiet_thoughts, other.quiet_thoughts) == (0, 3)
    assert other.stalled and not t.stalled
    note_thought(tasks, {"task-2"})
    assert (tasks[1].quiet_thoughts, tasks[1].stalled) == (0, False)
    # A new streak of three quiet thoughts reports it again.
    others = tasks[1:]
    assert [len(note_thought(others, set())) for _ in range(3)] == [0, 0, 1]


def test_closed_tasks_are_not_counted():
    tasks = [make("task-1", status="resolved")]
    for _ in range(5):
        assert note_thought(tasks, set()) == []
    assert (tasks[0].quiet_thoughts, tasks[0].stalled) == (0, False)


# --------------------------------------------------------------------------- counts and persistence


def test_counts_by_status_lists_every_status():
    assert counts_by_status([]) == {"pending": 0, "resolved": 0, "failed": 0}
    tasks = [make(), make(status="resolved"), make(status="resolved"), make(status="failed")]
    assert counts_by_status(tasks) == {"pending": 1, "resolved": 2, "failed": 1}


@pytest.mark.parametrize(
    "task",
    [
        make(),
        make(
            type="conditional",
            condition="when Bob replies",
            status="resolved",
            result="REST",
            on_resolve_target="dm:alice:bob",
            on_resolve_hint="thank him",
            claim_key="api-research",
            resolved_at=T0 + timedelta(minutes=3, microseconds=5),
            origin="bob",
            stalled=True,
            quiet_thoughts=4,
        ),
    ],
)
def test_round_trip_through_json(task):
    d = task.to_dict()
    again = Task.from_dict(json.loads(json.dumps(d)))
    assert again == task
    assert again.to_dict() == d
    assert d["created_at"] == "2026-01-05T09:00:00"


def test_only_the_most_recent_closed_tasks_are_kept_and_pending_ones_always() -> None:
    from ideaco.mind.tasks import prune_closed

    start = datetime(2026, 1, 5, 9, 0)
    tasks = [
        Task(
            id=f"task-{i}",
            owner="a",
            description="d",
            created_at=start,
            status="resolved",
            resolved_at=start + timedelta(minutes=i),
        )
        for i in range(1, 6)
    ] + [Task(id="task-9", owner="a", description="open", created_at=start)]
    assert prune_closed(tasks, keep=5) == 0 and len(tasks) == 6
    assert prune_closed(tasks, keep=3) == 2
    assert [t.id for t in tasks] == ["task-3", "task-4", "task-5", "task-9"]


# --------------------------------------------------------------------------- the bound on pending tasks


def test_one_more_task_than_the_bound_is_refused_with_a_reason_the_owner_reads(run):
    held = [make(f"task-{i}") for i in range(MAX_PENDING - 1)] + [make("done", status="resolved")]
    res, tasks = run([{"op": "create", "description": "the last one that fits"}], tasks=held)
    assert [t.description for t in res.created] == ["the last one that fits"] and not res.refused
    assert sum(t.pending for t in tasks) == MAX_PENDING  # a closed task does not count
    res, tasks = run(
        [
            {"op": "create", "description": "one too many"},
            {"op": "resolve", "taskId": "task-0", "result": "ok"},
        ],
        tasks=tasks,
    )
    assert res.created == [] and res.refused == [
        f"Your new task 'one too many' was refused: you already have {MAX_PENDING} open tasks. "
        "Resolve, fail or release one of them first."
    ]
    assert [t.id for t in res.resolved] == ["task-0"]  # the other ops still apply
    res, _ = run([{"op": "create", "description": "room again"}], tasks=tasks)
    assert [t.description for t in res.created] == ["room again"]  # one resolved: room for one


def test_a_flood_of_creates_stops_at_the_bound(run):
    tasks: list[Task] = []
    for _ in range(10):  # a model that creates five tasks every thought
        run([{"op": "create", "description": f"chore {len(tasks)}"}] * 5, tasks=tasks)
    assert len(tasks) == MAX_PENDING


def test_a_task_ids_number_is_read_where_it_is_made() -> None:
    from ideaco.mind.tasks import task_id, task_number

    assert task_number(task_id(12)) == 12
    assert task_number("write-spec-3") == 3 and task_number("7") == 7
    assert task_number("spec") is None and task_number("task-") is None
