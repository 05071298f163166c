"""What a thought changed in a mind, as data (mind/changes.py): diff, apply, and the logged form."""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

import pytest

from ideaco.mind import changes
from ideaco.mind.apply import ThoughtFacts, apply_thought
from ideaco.mind.mind import Mind
from ideaco.mind.thought import validate_thought

T0 = datetime(2026, 1, 5, 9, 0)
PEOPLE = {"ana": "Ana", "ben": "Ben", "cyd": "Cyd"}


def facts(counter: int) -> ThoughtFacts:
    return ThoughtFacts(
        employee="ana",
        conversation="room",
        origin="self",
        people=PEOPLE,
        conversations=["room", "boss:ana"],
        employees=PEOPLE.keys(),
        claims={},
        task_counter=counter,
    )


def random_thought(rng: random.Random, mind: Mind) -> dict:
    ids = [m.id for m in (*mind.memory.long_term, *mind.memory.short_term)]
    pending = [t.id for t in mind.pending_tasks]
    memory_op = rng.choice(
        [
            {
                "op": "add",
                "type": rng.choice(["long_term", "short_term"]),
                "content": f"fact {rng.randrange(40)}",
                "category": "fact",
                "importance": rng.randint(1, 10),
            },
            {"op": "update", "id": rng.choice(ids or ["mem-1"]), "importance": rng.randint(1, 10)},
            {"op": "delete", "id": rng.choice(ids or ["mem-1"])},
        ]
    )
    task_op = rng.choice(
        [
            {
                "op": "create",
                "description": f"task {rng.randrange(9)}",
                "claimKey": rng.choice(["", "k1", "k2"]),
            },
            {"op": "resolve", "taskId": rng.choice(pending or ["task-0"]), "result": "ok"},
            {"op": "fail", "taskId": rng.choice(pending or ["task-0"]), "reason": "no"},
        ]
    )
    return {
        "innerThoughts": "x",
        "topicSaturation": rng.randint(1, 10),
        "interestLevel": rng.randint(1, 10),
        "shouldSpeak": False,
        "memorySummary": rng.choice([None, f"summary {rng.randrange(5)}"]),
        "memoryOps": [memory_op],
        "relationshipOps": [
            {"employeeId": rng.choice(["ben", "cyd"]), "impression": "hm", "affinity": rng.randint(1, 100)}
        ],
        "taskOps": [task_op],
    }


@pytest.mark.parametrize("seed", range(5))
def test_a_diff_applied_live_or_read_back_from_its_record_gives_the_mind_the_thought_left(seed: int) -> None:
    rng = random.Random(seed)
    mind, counter, now = Mind(), 0, T0
    live, replayed = Mind(), Mind()
    for _ in range(60):
        now += timedelta(minutes=rng.randint(1, 30))
        thought, _ = validate_thought(random_thought(rng, mind))
        result = apply_thought(mind, thought, facts(counter), now)
        diff = changes.diff(mind, result.mind, now, result.events)
        changes.apply(live, diff)
        changes.apply(replayed, changes.MindChanges.from_record(json.loads(json.dumps(diff.to_record()))))
        mind, counter = result.mind, result.task_counter
        assert live.to_dict() == mind.to_dict()
        assert replayed.to_dict() == mind.to_dict()


def test_a_changed_task_is_logged_as_a_patch_not_the_whole_task() -> None:
    mind = Mind()
    created, _ = validate_thought(
        {
            **random_thought(random.Random(1), mind),
            "taskOps": [
                {"op": "create", "description": "Write the release notes for the launch, with screenshots"}
            ],
        }
    )
    first = apply_thought(mind, created, facts(0), T0).mind
    quiet, _ = validate_thought(
        {"innerThoughts": "x", "topicSaturation": 3, "interestLevel": 3, "shouldSpeak": False}
    )
    second = apply_thought(first, quiet, facts(1), T0 + timedelta(minutes=1)).mind
    record = changes.diff(first, second, T0).to_record()
    assert record["tasks"] == {"updated": [{"id": "task-1", "quiet_thoughts": 1}]}


def test_nothing_changed_is_an_empty_diff() -> None:
    mind = Mind()
    assert not changes.diff(mind, mind.copy(), T0)
    assert changes.diff(mind, mind.copy(), T0).to_record() == {}
