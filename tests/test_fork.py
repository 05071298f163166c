"""`ideaco fork` (issue 39): the same past byte for byte, no model call for it, one change at the moment,
exact when nothing changes, and every bad input one line that writes nothing."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.fork import ForkChanges, open_fork
from ideaco.model_options import ModelOptions
from ideaco.store.forks import read_fork
from ideaco.store.lock import RunLock
from tests.fakes.openai_server import FakeOpenAIServer
from tests.guard.runs import ROOT, SCRIPTED_URL
from tests.guard.scripted import respond

OFFICE = ROOT / "tests" / "guard" / "office.yaml"
RECORDING = ROOT / "tests" / "guard" / "data" / "office-s1" / "replay.jsonl"
REPLAY = ["--replay", str(RECORDING), "--model", "scripted", "--base-url", SCRIPTED_URL]
LOGS = ("messages.jsonl", "thoughts.jsonl")


@dataclass(frozen=True)
class Done:
    returncode: int
    stdout: str
    stderr: str


def ideaco(*args: str) -> Done:
    """`ideaco ARGS` in this process (as a user runs it, a second faster): its exit code and output."""
    env = {"COLUMNS": "200", "OPENAI_API_KEY": None, "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None}
    result = CliRunner().invoke(app, list(args), env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return Done(result.exit_code, result.stdout, result.stderr)


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The guard office's recorded run (seed 1, two hours), replayed: no network."""
    out = tmp_path_factory.mktemp("original") / "run"
    done = ideaco(
        "run",
        str(OFFICE),
        "--seed",
        "1",
        "--duration",
        "2h",
        "--out",
        str(out),
        "--filters",
        "strict",
        *REPLAY,
    )
    assert done.returncode == 0, done.stderr
    return out


def fork_json(run: Path) -> dict:
    """The fork.json `ideaco fork` wrote, as written."""
    return json.loads((run / "fork.json").read_text(encoding="utf-8"))


def lines(run: Path, name: str) -> list[str]:
    return (run / name).read_text(encoding="utf-8").splitlines(keepends=True)


def records(run: Path, name: str) -> list[dict]:
    return [json.loads(line) for line in lines(run, name)]


@pytest.mark.parametrize("concurrency", ["1", "16"])
@pytest.mark.parametrize("at", ["09:03:35", "10:00", "10:45"])
def test_a_fork_with_no_change_continues_as_the_original_did(
    original: Path, tmp_path: Path, at: str, concurrency: str
) -> None:
    fork = tmp_path / "fork"
    done = ideaco(
        "fork", str(original), "--at", at, "--out", str(fork), "--concurrency", concurrency, *REPLAY
    )
    assert done.returncode == 0, done.stderr
    assert "retraced from the logs (no model call), then: no change" in done.stdout
    for name in LOGS:
        assert (fork / name).read_bytes() == (original / name).read_bytes(), name
    assert fork_json(fork)["changes"] == []


def test_the_past_costs_no_model_call(original: Path, tmp_path: Path) -> None:
    """A fork at the run's last event asks the model nothing: every think of the past is answered by its record."""
    last = records(original, "thoughts.jsonl")[-1]["applied"]["at"]
    asked: list[dict] = []

    def answer(body: dict) -> str:
        asked.append(body)
        return json.dumps(respond(body))

    with FakeOpenAIServer(handler=answer) as fake:
        opened = open_fork(
            original,
            at=last,
            model=ModelOptions(base_url=fake.base_url, model="scripted"),
            out=tmp_path / "fork",
            duration=timedelta(0),
        )

        async def go() -> None:
            await opened.begin()
            await opened.office.run(until=opened.office.end_at)

        try:
            asyncio.run(go())
            opened.finish(0.0)
        finally:
            opened.close()
    assert asked == []
    assert lines(tmp_path / "fork", "messages.jsonl") == lines(original, "messages.jsonl")


def test_a_boss_line_at_the_moment_changes_the_future_not_the_past(original: Path, tmp_path: Path) -> None:
    fork = tmp_path / "fork"
    with FakeOpenAIServer(handler=lambda body: json.dumps(respond(body))) as fake:
        done = ideaco(
            "fork",
            str(original),
            "--at",
            "10:00",
            "--out",
            str(fork),
            "--say",
            "sync=Stop everything: the sync bug ships as is.",
            "--drop-script",
            "--base-url",
            fake.base_url,
            "--model",
            "scripted",
        )
    assert done.returncode == 0, done.stderr
    mine, theirs = records(fork, "messages.jsonl"), records(original, "messages.jsonl")
    past = [m for m in theirs if m["at"] <= "2026-01-05T10:00:00"]
    assert lines(fork, "messages.jsonl")[: len(past)] == lines(original, "messages.jsonl")[: len(past)]
    said = mine[len(past)]
    assert (said["id"], said["sender"], said["conversation"], said["at"]) == (
        "fork-1",
        "boss",
        "sync",
        "2026-01-05T10:00:00",
    )
    assert mine[len(past) :] != theirs[len(past) :]
    # --drop-script: the scenario's boss lines after the moment are not posted; before it, they were
    later_script = [
        m["id"] for m in theirs if m["id"].startswith("script-") and m["at"] > "2026-01-05T10:00:00"
    ]
    assert later_script and not [m for m in mine if m["id"] in later_script]
    record = fork_json(fork)
    assert record["origin"] == str(original.resolve()) and record["at"] == "2026-01-05T10:00:00"
    assert record["changes"] == [
        {"kind": "drop_script"},
        {"kind": "say", "conversation": "sync", "text": "Stop everything: the sync bug ships as is."},
    ]
    assert "the boss says in sync" in done.stdout and "later boss lines dropped" in done.stdout


def test_switches_a_personality_and_a_seed_are_changed_at_the_moment(original: Path, tmp_path: Path) -> None:
    fork = tmp_path / "fork"
    with FakeOpenAIServer(handler=lambda body: json.dumps(respond(body))) as fake:
        opened = open_fork(
            original,
            at="10:00",
            changes=ForkChanges(
                switches={"gates": "off"}, archetypes={"ben": "anxious-perfectionist"}, seed=9
            ),
            model=ModelOptions(base_url=fake.base_url, model="scripted"),
            out=fork,
            duration="10m",
        )

        async def go() -> None:
            await opened.begin()
            office = opened.office
            assert office.config.switches.gates is False
            assert office.employees["ben"].persona["archetype"] == "anxious-perfectionist"
            assert office.streams.seed == 9
            await office.run(until=office.end_at)

        try:
            asyncio.run(go())
            opened.finish(0.0)
        finally:
            opened.close()
    state = json.loads((fork / "state.json").read_text())
    office = next(iter(state["office"].values())) if "1" in state["office"] else state["office"]
    assert office["seed"] == 9 and office["switches"]["gates"] == "off"
    kinds = [c["kind"] for c in fork_json(fork)["changes"]]
    assert kinds == ["switch", "archetype", "seed"]


def test_a_fork_of_a_fork_names_its_whole_lineage(original: Path, tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    assert ideaco("fork", str(original), "--at", "10:30", "--out", str(first), *REPLAY).returncode == 0
    done = ideaco("fork", str(first), "--at", "10:00", "--out", str(second), *REPLAY)
    assert done.returncode == 0, done.stderr
    lineage = fork_json(second)["lineage"]
    assert [(Path(x["origin"]).name, x["at"][11:]) for x in lineage] == [
        ("run", "10:30:00"),
        ("first", "10:00:00"),
    ]
    assert (second / "messages.jsonl").read_bytes() == (original / "messages.jsonl").read_bytes()
    read = read_fork(second)
    assert read is not None and [p.name for p, _ in read.lineage] == ["run", "first"]
    assert read.describe().startswith(f"a fork of {first.resolve()} at 10:00:00; changes: none")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--at", "08:00"], "is before the run's start (09:00:00)"),
        (["--at", "23:00"], "is after the run's last event"),
        (["--at", "noon"], "--at 'noon' is not a moment"),
        (["--at", "10:00", "--say", "nowhere=hello"], "--say 'nowhere': no such room or employee"),
        (["--at", "10:00", "--say", "no equals sign"], "expected ROOM=TEXT"),
        (["--at", "10:00", "--archetype", "zed=cynic"], "no employee 'zed'"),
        (["--at", "10:00", "--archetype", "ben=wizard"], "unknown archetype"),
        (["--at", "10:00", "--switch", "gates=maybe"], "--switch"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(
    original: Path, tmp_path: Path, args: list[str], says: str
) -> None:
    before = {p.name: p.read_bytes() for p in original.iterdir() if p.is_file() and p.name != ".lock"}
    fork = tmp_path / "fork"
    done = ideaco("fork", str(original), "--out", str(fork), *args, *REPLAY)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("ideaco: error: ") and says in done.stderr
    assert not fork.exists()
    assert {p.name: p.read_bytes() for p in original.iterdir() if p.is_file() and p.name != ".lock"} == before


def test_an_out_that_exists_a_locked_run_and_a_damaged_log_are_refused(
    original: Path, tmp_path: Path
) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    done = ideaco("fork", str(original), "--at", "10:00", "--out", str(taken), *REPLAY)
    assert done.returncode == 2 and "exists: a fork goes into a new directory" in done.stderr
    assert list(taken.iterdir()) == []

    lock = RunLock.acquire(original)  # another process writes it
    try:
        done = ideaco("fork", str(original), "--at", "10:00", "--out", str(tmp_path / "f1"), *REPLAY)
    finally:
        lock.release()
    assert done.returncode == 2 and "fork it once that run has stopped" in done.stderr
    assert not (tmp_path / "f1").exists()

    damaged = tmp_path / "damaged"
    damaged.mkdir()
    for p in original.iterdir():
        if p.is_file():
            (damaged / p.name).write_bytes(p.read_bytes())
    text = lines(damaged, "messages.jsonl")
    text[3] = "{not json\n"
    (damaged / "messages.jsonl").write_text("".join(text))
    done = ideaco("fork", str(damaged), "--at", "10:00", "--out", str(tmp_path / "f2"), *REPLAY)
    assert done.returncode == 2 and "messages.jsonl" in done.stderr and "line 4" in done.stderr
    assert not (tmp_path / "f2").exists()


def test_a_past_the_office_cannot_retrace_is_one_line(original: Path, tmp_path: Path) -> None:
    """A log edited by hand (a thought's next look moved) is not silently a different office."""
    edited = tmp_path / "edited"
    edited.mkdir()
    for p in original.iterdir():
        if p.is_file():
            (edited / p.name).write_bytes(p.read_bytes())
    thoughts = records(edited, "thoughts.jsonl")
    moved = next(t for t in thoughts if t["next_look_at"] and t["at"] > "2026-01-05T09:10")
    moved["next_look_at"] = moved["next_look_at"][:17] + "59.000001"  # a next look the office never drew
    (edited / "thoughts.jsonl").write_text(
        "".join(json.dumps(t, separators=(",", ":"), ensure_ascii=False) + "\n" for t in thoughts)
    )
    done = ideaco("fork", str(edited), "--at", "10:30", "--out", str(tmp_path / "fork"), *REPLAY)
    assert done.returncode == 2
    assert done.stderr.startswith("ideaco: error: ") and "cannot be retraced" in done.stderr


def test_the_api_forks_a_simulation_it_is_running(tmp_path: Path) -> None:
    import ideaco

    with FakeOpenAIServer(handler=lambda body: json.dumps(respond(body))) as fake:
        flags = {"base_url": fake.base_url, "model": "scripted"}
        sim = ideaco.load(OFFICE, out=tmp_path / "control", seed=1, **flags)
        try:
            sim.run("40m")
            fork = sim.fork(
                at="09:30", out=tmp_path / "intervention", say=[("sync", "Drop the bug for now.")]
            )
            try:
                fork.run("10m")
                sim.run("10m")  # the original goes on as it was
                mine, theirs = fork.messages, sim.messages
            finally:
                fork.close()
        finally:
            sim.close()
    past = [m for m in theirs if m["at"] <= "2026-01-05T09:30:00"]
    assert mine[: len(past)] == past
    assert mine[len(past)]["id"] == "fork-1" and mine[len(past)]["text"] == "Drop the bug for now."
    assert [m for m in theirs if m["at"] > "2026-01-05T09:30:00"]  # the control went on
    assert fork_json(tmp_path / "intervention")["changes"][0]["kind"] == "say"


def test_report_inspect_and_the_viewer_say_a_run_is_a_fork(original: Path, tmp_path: Path) -> None:
    from ideaco.store.runlog import RunLog
    from ideaco.viewer.data import gather

    fork = tmp_path / "fork"
    assert ideaco("fork", str(original), "--at", "10:30", "--out", str(fork), *REPLAY).returncode == 0
    said = f"a fork of {original.resolve()} at 10:30:00; changes: none"
    report = ideaco("report", str(fork), "--json", "--no-plots")
    assert json.loads(report.stdout)["fork"]["at"] == "2026-01-05T10:30:00"
    assert f"A fork of {original.resolve()} at 10:30:00" in ideaco("report", str(fork), "--no-plots").stdout
    assert f"This run is {said}." in ideaco("inspect", str(fork)).stdout
    assert json.loads(ideaco("inspect", str(fork), "--json").stdout)["fork"]["origin"] == str(
        original.resolve()
    )
    assert gather(RunLog.open(fork))[0]["meta"]["fork"] == said
    assert gather(RunLog.open(original))[0]["meta"]["fork"] is None
    assert json.loads(ideaco("report", str(original), "--json", "--no-plots").stdout)["fork"] is None


def test_a_scenario_whose_persona_file_is_gone_is_one_line(original: Path, tmp_path: Path) -> None:
    moved = tmp_path / "moved"
    moved.mkdir()
    for p in original.iterdir():
        if p.is_file():
            (moved / p.name).write_bytes(p.read_bytes())
    state = json.loads((moved / "state.json").read_text())
    office = state["office"]["1"] if "1" in state["office"] else state["office"]
    office["scenario"]["employees"][0]["persona"] = "personas/gone.yaml"
    office["scenario"]["employees"][0]["archetype"] = None
    (moved / "state.json").write_text(json.dumps(state))
    done = ideaco("fork", str(moved), "--at", "10:00", "--out", str(tmp_path / "fork"), *REPLAY)
    assert done.returncode == 2 and "personas cannot be read again" in done.stderr
    assert not (tmp_path / "fork").exists()
