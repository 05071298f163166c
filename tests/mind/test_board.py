"""The task board (issue 13): offering work, claiming it, releasing a task, the red zone, the notes."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta

import pytest

from ideaco.mind import board
from ideaco.mind.apply import ThoughtFacts, apply_thought
from ideaco.mind.board import Offer
from ideaco.mind.mind import Mind
from ideaco.mind.stamina import Stamina
from ideaco.mind.tasks import Task, apply_ops
from ideaco.mind.thought import TaskOp, Thought

T0 = datetime(2026, 1, 5, 9, 0, 0)
PEOPLE = {"alice": "Alice", "bob": "Bob"}
RED = Stamina(patience=30, fatigue=60, stress=60)


def offer(**kw) -> Offer:
    base = {
        "id": "task-7",
        "description": "Quarterly report",
        "claim_key": "quarterly-report",
        "offered_by": "bob",
        "offered_at": T0,
        "room": "api-design",
        "department": "eng",
    }
    return Offer(**(base | kw))


def run(
    tasks: list[Task], *ops: dict, claims=None, claimable=None, not_yet=None, may_claim=True, owner="alice"
):
    ids = itertools.count(10)
    return apply_ops(
        tasks,
        [TaskOp.model_validate(op) for op in ops],
        T0,
        owner=owner,
        origin="self",
        new_id=lambda: f"task-{next(ids)}",
        claims=claims or {},
        conversations=("api-design",),
        employees=tuple(PEOPLE),
        people=PEOPLE,
        claimable=claimable,
        not_yet=not_yet,
        may_claim=may_claim,
    )


def test_a_claim_takes_the_board_task_with_its_id_and_no_description_needed() -> None:
    tasks: list[Task] = []
    taken = board.claimed(offer(), "alice", T0 + timedelta(minutes=3))
    res = run(tasks, {"op": "create", "claimKey": "Quarterly Report"}, claimable={"quarterly-report": taken})
    assert tasks == [taken] and res.claimed == [taken] and res.created == [taken]
    assert (taken.id, taken.owner, taken.claim_key, taken.origin) == (
        "task-7",
        "alice",
        "quarterly-report",
        "self",
    )
    assert taken.created_at == T0 + timedelta(minutes=3)  # its urgency counts from the claim


def test_a_second_claim_in_the_same_thought_is_refused() -> None:
    tasks: list[Task] = []
    taken = board.claimed(offer(), "alice", T0)
    res = run(
        tasks,
        {"op": "create", "claimKey": "quarterly-report"},
        {"op": "create", "claimKey": "quarterly-report"},
        claimable={"quarterly-report": taken},
    )
    assert len(tasks) == 1 and "you already own it as task-7" in res.refused[0]


@pytest.mark.parametrize(("may_claim", "claimed"), [(True, 1), (False, 0)])
def test_the_red_zone_may_not_claim_but_may_still_create_plain_tasks(may_claim: bool, claimed: int) -> None:
    tasks: list[Task] = []
    res = run(
        tasks,
        {"op": "create", "claimKey": "quarterly-report"},
        {"op": "create", "description": "Reply to Bob"},
        claimable={"quarterly-report": board.claimed(offer(), "alice", T0)},
        may_claim=may_claim,
    )
    assert len(res.claimed) == claimed
    assert any(t.description == "Reply to Bob" for t in tasks)
    if not may_claim:
        assert res.refused == [
            "Your task claim 'quarterly-report' was refused: you are worn out. Finish or release what you "
            "have before you claim more."
        ]


def test_an_owned_key_is_refused_before_the_board_is_looked_at() -> None:
    res = run([], {"op": "create", "claimKey": "api"}, claims={"api": ("bob", "task-2")}, may_claim=False)
    assert res.refused == ["Your task claim 'api' was refused: Bob (bob) already owns it as task-2."]


def test_release_gives_a_task_up_with_its_reason() -> None:
    mine = Task(id="task-3", owner="alice", description="Docs", created_at=T0, claim_key="docs")
    other = Task(id="task-4", owner="alice", description="Tests", created_at=T0)
    tasks = [mine, other]
    res = run(
        tasks,
        {"op": "release", "taskId": "[task-3]", "reason": "no time"},
        claims={"docs": ("alice", "task-3")},
    )
    assert tasks == [other] and res.released == [(mine, "no time")]
    again = run([other], {"op": "release", "taskId": "task-4", "result": "blocked"})
    assert again.released == [(other, "blocked")]
    assert run([other], {"op": "release", "taskId": "task-4"}).released[0][1] == "no reason given"
    missing = run([], {"op": "release", "taskId": "task-9"})
    assert missing.corrections == ["taskOps[0]: release of 'task-9': not one of your tasks, dropped"]


def test_offer_puts_new_work_on_the_board_and_refuses_a_key_in_use() -> None:
    tasks: list[Task] = []
    res = run(tasks, {"op": "offer", "description": "Write the backup script", "claimKey": "backup"})
    assert tasks == [] and [(t.id, t.owner, t.claim_key) for t in res.offered] == [("task-10", "", "backup")]
    owned = run([], {"op": "offer", "description": "x", "claimKey": "api"}, claims={"api": ("bob", "task-2")})
    assert owned.offered == [] and "Bob (bob) already owns it" in owned.refused[0]
    listed = run(
        [],
        {"op": "offer", "description": "x", "claimKey": "quarterly-report"},
        claimable={"quarterly-report": board.claimed(offer(), "alice", T0)},
    )
    assert listed.offered == [] and listed.refused == [
        "Your offer 'quarterly-report' was refused: that key is on the board already."
    ]
    assert run([], {"op": "offer"}).corrections == ["taskOps[0]: offer without a description, dropped"]


def test_a_claim_before_ones_dibs_is_refused_with_when_it_opens() -> None:
    opens = T0 + timedelta(seconds=96)
    res = run([], {"op": "create", "claimKey": "quarterly-report"}, not_yet={"quarterly-report": opens})
    assert res.claimed == [] and res.created == []
    assert res.refused == [
        "Your task claim 'quarterly-report' was refused: keener colleagues have first dibs; it opens to you at 09:01:36."
    ]
    offered = run(
        [],
        {"op": "offer", "description": "x", "claimKey": "quarterly-report"},
        not_yet={"quarterly-report": opens},
    )
    assert offered.offered == []


@pytest.mark.parametrize(("opens_in", "claimed"), [(timedelta(seconds=1), False), (timedelta(0), True)])
def test_apply_thought_claims_only_what_is_open_to_the_thinker(opens_in: timedelta, claimed: bool) -> None:
    facts = _facts(opens={"quarterly-report": T0 + opens_in})
    out = apply_thought(Mind(), _thought({"op": "create", "claimKey": "quarterly-report"}), facts, T0)
    assert (out.claimed == ["task-7"]) is claimed


def test_key_for_makes_a_unique_key() -> None:
    assert board.key_for("Write the backup script", None, ()) == "write-the-backup-script"
    assert board.key_for("Docs", "API Docs", ()) == "api-docs"
    assert board.key_for("Docs", None, ("docs",)) == "docs-2"
    assert board.key_for("Docs", None, ("docs", "docs-2")) == "docs-3"
    # Issue 29, item 3: a key made from a description is a slug people can read (it was "spec,-v2.").
    assert board.key_for("Write the API spec, v2.", None, ()) == "write-the-api-spec-v2"
    assert board.key_for("<span>Fix</span> it", None, ()) == "span-fix-span-it"
    assert board.key_for("!!!", None, ()) == "task"
    assert board.key_for("", None, ()) == "task"


def test_an_offer_round_trips() -> None:
    o = offer(reason="no time", hint="ask Bob")
    assert Offer.from_dict(o.to_dict()) == o
    assert o.released and not offer().released


def test_notice_and_unowned_note() -> None:
    assert board.notice(offer(), "Bob") == (
        "Bob offers [task-7] Quarterly report (claim key quarterly-report). Anyone here can claim it."
    )
    assert board.notice(offer(reason="no time"), "Bob").startswith("Bob released [task-7] Quarterly report")
    assert board.unowned_due(offer()) == T0 + timedelta(minutes=30)
    assert "As the lead of Engineering" in board.unowned_note(offer(), "Engineering")


def test_board_block() -> None:
    now = T0 + timedelta(minutes=4)
    block = board.board_block([offer(), offer(id="task-8", offered_at=now, reason="busy")], now, str.title)
    assert block.splitlines() == [
        "## Claimable tasks (nobody owns them yet)",
        "[task-7] Quarterly report — claim key quarterly-report, offered by Bob 4 min ago",
        "[task-8] Quarterly report — claim key quarterly-report, released by Bob just now: busy",
        'To take one: taskOps [{"op": "create", "claimKey": "quarterly-report"}].',
    ]
    worn = board.board_block([offer()], now, str.title, may_claim=False)
    assert worn.endswith("You are worn out: finish or release your own tasks before you claim another.")
    assert board.board_block([], now, str.title) == ""
    many = board.board_block([offer(id=f"task-{i}") for i in range(9)], now, str.title)
    assert len(many.splitlines()) == board.SHOWN + 2


def _thought(*ops: dict) -> Thought:
    return Thought.model_validate(
        {
            "innerThoughts": "x",
            "topicSaturation": 3,
            "interestLevel": 5,
            "shouldSpeak": False,
            "taskOps": list(ops),
        }
    )


def _facts(**kw) -> ThoughtFacts:
    base = dict(
        employee="alice",
        conversation="boss:alice",
        origin="boss",
        people=PEOPLE,
        conversations=("api-design", "boss:alice"),
        employees=tuple(PEOPLE),
        claims={},
        board={"quarterly-report": offer()},
        offer_room="api-design",
        department="eng",
        task_counter=20,
    )
    return ThoughtFacts(**(base | kw))


def test_apply_thought_turns_releases_and_offers_into_offers_for_its_room() -> None:
    mind = Mind(tasks=[Task(id="task-3", owner="alice", description="Docs", created_at=T0, origin="boss")])
    out = apply_thought(
        mind,
        _thought(
            {"op": "release", "taskId": "task-3", "reason": "no time"}, {"op": "offer", "description": "Docs"}
        ),
        _facts(),
        T0,
    )
    assert out.mind.tasks == [] and mind.tasks  # the mind given is untouched
    released, offered = out.offers
    assert (released.id, released.claim_key, released.reason, released.origin) == (
        "task-3",
        "docs",
        "no time",
        "boss",
    )
    assert (offered.id, offered.claim_key, offered.origin, offered.offered_by) == (
        "task-21",
        "docs-2",
        "boss",
        "alice",
    )
    assert {o.room for o in out.offers} == {"api-design"} and {o.department for o in out.offers} == {"eng"}
    assert out.tasks_touched


def test_apply_thought_claims_from_the_board_unless_red() -> None:
    claim = _thought({"op": "create", "claimKey": "quarterly-report"})
    out = apply_thought(Mind(), claim, _facts(), T0)
    assert out.claimed == ["task-7"] and out.mind.tasks[0].owner == "alice"
    assert "task_assigned" in out.events
    tired = apply_thought(Mind(stamina=RED), claim, _facts(), T0)
    assert tired.claimed == [] and tired.mind.tasks == [] and "worn out" in tired.mind.notes[0]
