"""`ideaco.compare` (issue 39): where two runs part, how they are related by forking, and their
metrics from that moment on, on the guard office's recorded runs (seeds 1 and 2, replayed: no
network) and fork-shaped directories made from them as `ideaco fork` makes one."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ideaco.analysis import history
from ideaco.cli.main import app
from ideaco.compare import (
    Kinship,
    compare,
    first_difference,
    kinship,
    measure,
    since,
)
from ideaco.mind.tasks import RESOLVED
from ideaco.store.forks import change_text, read_fork
from ideaco.store.rundir import FORK as FORK_FILE
from ideaco.store.runlog import RunLog, applied_at
from tests.guard.runs import RUNS

CLEAN_ENV = {"OPENAI_API_KEY": None, "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "IDEACO_MODEL": None}
MOMENT = datetime(2026, 1, 5, 10, 0)
SAY = {"kind": "say", "conversation": "sync", "text": "@Ana what is blocking the sync fix?"}
SWITCH = {"kind": "switch", "name": "gates", "value": "off"}


def replay(name: str, out: Path) -> Path:
    guarded = next(r for r in RUNS if r.name == name)
    result = CliRunner().invoke(app, guarded.args(out), env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The guard office, seed 1 and seed 2 (two hours each, from 09:00)."""
    work = tmp_path_factory.mktemp("compare")
    return replay("office-s1", work / "s1"), replay("office-s2", work / "s2")


def _lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines(keepends=True) if path.exists() else []


def _at(record: dict[str, Any]) -> datetime:
    return datetime.fromisoformat(record["at"])


def fork_shaped(
    past: Path,
    future: Path,
    out: Path,
    at: datetime = MOMENT,
    changes: list[dict[str, Any]] | None = None,
    lineage: list[dict[str, str]] | None = None,
) -> Path:
    """A directory as `ideaco fork` makes one: `past`'s log lines up to `at` byte for byte (messages
    and changes dated up to it, thoughts that landed by it), then `future`'s lines after it (another
    seed of the same office stands in for what the change brought), `future`'s state and a fork.json."""
    out.mkdir(parents=True)
    for name, when in (("messages.jsonl", _at), ("thoughts.jsonl", applied_at), ("changes.jsonl", _at)):
        kept = [line for line in _lines(past / name) if when(json.loads(line)) <= at]
        after = [line for line in _lines(future / name) if when(json.loads(line)) > at]
        (out / name).write_text("".join(kept + after), encoding="utf-8")
    shutil.copy(future / "state.json", out / "state.json")
    fork = {"format": 1, "origin": str(past.resolve()), "at": at.isoformat(), "changes": changes or [SAY]}
    fork["lineage"] = lineage or [{"origin": fork["origin"], "at": fork["at"]}]
    (out / FORK_FILE).write_text(json.dumps(fork), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def forked(seeds: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Seed 1's past up to 10:00, then seed 2's lines: a fork of seed 1 at 10:00 with a boss line."""
    return fork_shaped(seeds[0], seeds[1], tmp_path_factory.mktemp("fork") / "b", changes=[SAY, SWITCH])


# ----------------------------------------------------------------------------- where they part


def _message(at: str, text: str, sender: str = "ana") -> dict[str, Any]:
    return {
        "id": f"m-{text}",
        "at": at,
        "conversation": "sync",
        "sender": sender,
        "text": text,
        "mentions": [],
    }


def test_the_first_difference_is_the_first_message_that_differs_by_time_room_sender_or_text() -> None:
    a = [_message("2026-01-05T09:00:00", "hi"), _message("2026-01-05T09:01:00", "yes")]
    same_but_id = [dict(m, id="other", mentions=["ben"]) for m in a]
    assert first_difference(a, same_but_id) is None  # ids and mentions are no difference
    b = [a[0], _message("2026-01-05T09:00:30", "no", sender="ben")]
    found = first_difference(a, b)
    assert found is not None
    assert found["index"] == 1 and found["at"] == "2026-01-05T09:00:30"  # the earlier of the two
    assert found["a"]["text"] == "yes" and found["b"] == {
        "at": "2026-01-05T09:00:30",
        "conversation": "sync",
        "sender": "ben",
        "text": "no",
    }
    ended = first_difference(a, a[:1])
    assert ended is not None and ended["index"] == 1 and ended["b"] is None and ended["a"]["text"] == "yes"
    assert first_difference([], a)["a"] is None  # type: ignore[index]


def test_two_seeds_part_at_their_first_differing_message_and_are_measured_from_it(seeds) -> None:
    a, b = (RunLog.open(p) for p in seeds)
    result = compare(a, b)
    assert result.kinship is None
    n = result.first["index"]  # type: ignore[index]
    assert [m["text"] for m in a.messages[:n]] == [m["text"] for m in b.messages[:n]]
    assert a.messages[n]["text"] != b.messages[n]["text"]
    assert result.reason == "first difference"
    assert result.moment == min(_at(a.messages[n]), _at(b.messages[n]))
    agents = {e.id for e in a.employees}
    later = [m for m in a.messages if _at(m) >= result.moment and m["sender"] in agents]
    assert result.metrics["agent_messages"]["a"] == len(later)


def test_runs_with_the_same_messages_are_compared_from_the_start_and_differ_in_nothing(
    seeds, tmp_path
) -> None:
    copy = shutil.copytree(seeds[0], tmp_path / "copy")
    result = compare(RunLog.open(seeds[0]), RunLog.open(copy))
    assert result.first is None and result.kinship is None
    assert result.reason == "start" and result.moment == RunLog.open(seeds[0]).start
    assert result.metrics["calls"]["a"] == RunLog.open(seeds[0]).summary["calls"]["made"]
    for key, row in result.metrics.items():
        assert row["a"] == row["b"], key
        assert row["difference"] in (0, None), key


# ----------------------------------------------------------------------------- forks


def test_a_fork_is_compared_from_its_moment_with_its_changes_said(seeds, forked) -> None:
    a, b = RunLog.open(seeds[0]), RunLog.open(forked)
    result = compare(a, b)
    assert result.kinship is not None and result.kinship.relation == "b_of_a"
    assert result.kinship.sentence(a.start.date()) == (
        'B is a fork of A at 10:00:00 with changes: the boss says in sync: "@Ana what is blocking '
        'the sync fix?"; switch gates=off'
    )
    assert result.reason == "fork" and result.moment == MOMENT
    assert result.first is not None and datetime.fromisoformat(result.first["at"]) > MOMENT
    assert result.warnings == []
    agents = {e.id for e in a.employees}
    for side, run in (("a", a), ("b", b)):
        said = [m for m in run.messages if _at(m) >= MOMENT]
        assert result.metrics["agent_messages"][side] == sum(m["sender"] in agents for m in said)
        assert result.metrics["messages.ana"][side] == sum(m["sender"] == "ana" for m in said)
        landed = [t for t in run.thoughts if applied_at(t) >= MOMENT]
        assert result.metrics["thoughts"][side] == len(landed)
        assert result.metrics["calls"][side] == sum(t["llm"]["calls"] for t in landed if t.get("llm"))
    for row in result.metrics.values():
        if isinstance(row["a"], int) and isinstance(row["b"], int):
            assert row["difference"] == row["b"] - row["a"]
    doc = json.loads(json.dumps(result.to_json()))
    assert doc["fork"]["relation"] == "b_of_a" and doc["fork"]["changes"]["b"] == [SAY, SWITCH]
    assert doc["from"] == "2026-01-05T10:00:00" and doc["from_reason"] == "fork"


def test_the_fork_is_known_from_either_side_and_between_siblings(seeds, forked, tmp_path) -> None:
    back = kinship(forked, seeds[0])
    assert back is not None and back.relation == "a_of_b" and back.changes == {"a": (SAY, SWITCH), "b": ()}
    assert back.sentence().startswith("A is a fork of B at 10:00:00 with changes: the boss says in sync")
    other = fork_shaped(seeds[0], seeds[0], tmp_path / "other", changes=[{"kind": "seed", "seed": 9}])
    sisters = kinship(forked, other)
    assert sisters is not None and sisters.relation == "siblings" and sisters.at == MOMENT
    assert sisters.sentence().endswith(
        "A's changes: the boss says in sync: \"@Ana what is blocking "
        "the sync fix?\"; switch gates=off; B's: seed 9"
    )
    later = fork_shaped(seeds[0], seeds[0], tmp_path / "later", at=datetime(2026, 1, 5, 10, 30))
    assert kinship(forked, later) is None  # forks of one run at two moments: no moment to share
    assert kinship(seeds[0], seeds[1]) is None


def test_a_fork_of_a_fork_parts_from_its_grandparent_where_the_first_fork_did(
    seeds, forked, tmp_path
) -> None:
    then = datetime(2026, 1, 5, 10, 30)
    lineage = [
        {"origin": str(seeds[0].resolve()), "at": MOMENT.isoformat()},
        {"origin": str(forked.resolve()), "at": then.isoformat()},
    ]
    grandchild = fork_shaped(
        forked, seeds[1], tmp_path / "g", at=then, changes=[{"kind": "drop_script"}], lineage=lineage
    )
    found = kinship(seeds[0], grandchild)
    assert found == Kinship(
        "b_of_a", seeds[0].resolve(), MOMENT, {"a": (), "b": (SAY, SWITCH, {"kind": "drop_script"})}, 1
    )
    assert "at 10:00:00 (by way of 1 other fork) with changes:" in found.sentence()
    direct = kinship(forked, grandchild)
    assert direct is not None and direct.at == then and direct.through == 0
    assert direct.changes["b"] == ({"kind": "drop_script"},)


@pytest.mark.parametrize(
    "content",
    [
        None,
        "{",
        "[]",
        json.dumps({"origin": 3, "at": "2026-01-05T10:00:00"}),
        json.dumps({"origin": "/somewhere", "at": "yesterday"}),
        json.dumps({"at": "2026-01-05T10:00:00", "changes": []}),
    ],
    ids=["missing", "not-json", "not-an-object", "origin-not-a-path", "at-not-a-moment", "no-origin"],
)
def test_a_missing_or_malformed_fork_json_means_not_a_fork(seeds, tmp_path, content) -> None:
    b = shutil.copytree(seeds[1], tmp_path / "b")
    if content is not None:
        (b / FORK_FILE).write_text(content, encoding="utf-8")
    assert read_fork(b) is None
    result = compare(RunLog.open(seeds[0]), RunLog.open(b))
    assert result.kinship is None and result.reason == "first difference"


def test_a_fork_json_read_tolerantly_keeps_what_it_can(tmp_path) -> None:
    (tmp_path / FORK_FILE).write_text(
        json.dumps(
            {
                "origin": "/runs/a",
                "at": "2026-01-05T10:00:00+01:00",
                "changes": [SAY, "junk", 3],
                "lineage": "x",
            }
        ),
        encoding="utf-8",
    )
    fork = read_fork(tmp_path)
    assert fork is not None and fork.at == MOMENT and fork.changes == (SAY,)
    assert fork.lineage == ((Path("/runs/a").resolve(), MOMENT),)


def test_messages_that_part_before_the_forks_moment_are_warned_of(seeds, tmp_path) -> None:
    b = shutil.copytree(seeds[1], tmp_path / "b")  # seed 2 parts from seed 1 at 09:01
    (b / FORK_FILE).write_text(
        json.dumps({"origin": str(seeds[0]), "at": MOMENT.isoformat()}), encoding="utf-8"
    )
    result = compare(RunLog.open(seeds[0]), RunLog.open(b))
    assert result.reason == "fork" and result.moment == MOMENT
    assert any("before the fork's moment 10:00:00" in w for w in result.warnings), result.warnings


@pytest.mark.parametrize(
    "change, said",
    [
        (SAY, 'the boss says in sync: "@Ana what is blocking the sync fix?"'),
        ({"kind": "say", "conversation": "launch", "text": "word " * 30}, None),
        (SWITCH, "switch gates=off"),
        ({"kind": "archetype", "employee": "zoe", "archetype": "perfectionist"}, "zoe becomes perfectionist"),
        ({"kind": "drop_script"}, "the scenario's later boss lines dropped"),
        ({"kind": "seed", "seed": 9}, "seed 9"),
        (
            {"kind": "model", "flags": {"model": "qwen", "base_url": "http://me:hunter22@gpu:8000/v1"}},
            "model qwen at http://***@gpu:8000/v1",
        ),
        (
            {"kind": "model", "flags": {"base_url": ["http://a:1/v1", "http://b:2/v1"]}},
            "model at http://a:1/v1, http://b:2/v1",
        ),
        ({"kind": "model", "flags": {}}, "another model"),
        ({"kind": "teleport"}, "teleport"),
    ],
)
def test_each_change_reads_as_one_short_phrase(change, said) -> None:
    text = change_text(change)
    if said is not None:
        assert text == said
    else:  # a long boss line is cut, on one line
        assert text.startswith('the boss says in launch: "word word') and text.endswith('…"')
        assert len(text) < 100 and "\n" not in text
    assert "hunter22" not in text


# ----------------------------------------------------------------------------- from the moment on


def test_since_keeps_what_happened_from_the_moment_on_and_leaves_the_run_alone(seeds) -> None:
    run = RunLog.open(seeds[0])
    counts = (len(run.messages), len(run.thoughts), len(run.changes), run.start)
    part = since(run, MOMENT)
    assert part.start == MOMENT and part.end == run.end
    assert part.messages == [m for m in run.messages if _at(m) >= MOMENT] and part.messages
    assert part.thoughts == [t for t in run.thoughts if applied_at(t) >= MOMENT]
    assert all(_at(c) >= MOMENT for c in part.changes)
    assert (len(run.messages), len(run.thoughts), len(run.changes), run.start) == counts
    for whole in (since(run, None), since(run, run.start)):
        assert (whole.messages, whole.thoughts, whole.start, whole.end) == (
            run.messages,
            run.thoughts,
            run.start,
            run.end,
        )


def test_rates_are_per_hour_from_the_moment(seeds) -> None:
    run = RunLog.open(seeds[0])
    got = measure(run, MOMENT)
    staff = [e for e in run.employees if e.id != "secretary"]
    hours = (run.end - MOMENT).total_seconds() / 3600
    assert got["calls_per_employee_hour"] == round(got["calls"] / len(staff) / hours, 3)
    whole = measure(run, None)
    assert whole["calls"] == run.summary["calls"]["made"]
    assert got["calls"] < whole["calls"] and got["thoughts"] < whole["thoughts"]


def test_tasks_count_from_the_moment_created_or_closed(seeds) -> None:
    run = RunLog.open(seeds[0])
    rows = history(run).tasks.values()

    def after(value: str | None) -> bool:
        return value is not None and datetime.fromisoformat(value) >= MOMENT

    created = sum(after(t.get("created_at")) for t in rows)
    resolved = sum(t.get("status") == RESOLVED and after(t.get("resolved_at")) for t in rows)
    closed_later = [t for t in rows if not after(t.get("created_at")) and after(t.get("resolved_at"))]
    got = measure(run, MOMENT)
    assert (got["tasks_created"], got["tasks_resolved"]) == (created, resolved)
    assert closed_later, "the recorded run has a task created before 10:00 and closed after"
    assert measure(run, None)["tasks_created"] == len(rows)


def test_stamina_zones_are_shares_of_the_thoughts_by_the_zone_they_began_in(seeds) -> None:
    run = RunLog.open(seeds[0])
    got = measure(run, MOMENT)
    landed = [t for t in run.thoughts if applied_at(t) >= MOMENT]
    zones = [t["applied"]["began"]["stamina"]["zone"] for t in landed]
    for zone in ("green", "yellow", "red"):
        assert got[f"stamina_{zone}_rate"] == round(zones.count(zone) / len(zones), 4)
    assert {"yellow", "red"} & set(zones)  # the recorded office does tire


def test_runs_of_two_scenarios_are_compared_with_a_warning(seeds, tmp_path) -> None:
    b = shutil.copytree(seeds[1], tmp_path / "b")
    state = json.loads((b / "state.json").read_text(encoding="utf-8"))
    state["office"]["1"]["scenario"]["name"] = "elsewhere"
    (b / "state.json").write_text(json.dumps(state), encoding="utf-8")
    result = compare(RunLog.open(seeds[0]), RunLog.open(b))
    assert [w for w in result.warnings if "scenario" in w] == [
        "A ran scenario 'office' and B 'elsewhere': compared all the same"
    ]
    assert result.metrics["calls"]["b"] is not None
