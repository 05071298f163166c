"""`ideaco sweep --from RUNDIR --at TIME` (issue 39, item 5): every run of the sweep is a fork of one
run's past at one moment, its variant's switches and its seed the changes made there, measured from
the moment on; the bad combinations of flags are one line each; a re-run resumes.

The original is the guard's office replayed from its recording (no model); the arms' future is
answered by the same scripted model (`tests/guard/scripted.py`) behind a fake endpoint."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

import ideaco.sweep
from ideaco.cli.main import app
from ideaco.ids import BOSS, SYSTEM
from ideaco.metrics import SUMMARY
from ideaco.store.runlog import applied_at
from ideaco.store.usage import usage_totals
from tests.fakes.openai_server import FakeOpenAIServer
from tests.guard.runs import RUNS
from tests.guard.scripted import as_content, respond

CLEAN_ENV = {name: None for name in ("IDEACO_BASE_URL", "OPENAI_BASE_URL", "OPENAI_API_KEY", "IDEACO_MODEL")}
AT = "09:30"
MOMENT = datetime(2026, 1, 5, 9, 30)
ARMS = [f"gates-{g}-s{s}" for s in (1, 2) for g in ("on", "off")]


@pytest.fixture(scope="module")
def original(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The guard office, seed 1, two hours, replayed from its recording."""
    (guarded,) = [r for r in RUNS if r.name == "office-s1"]
    out = tmp_path_factory.mktemp("original") / "office"
    result = CliRunner().invoke(app, guarded.args(out), env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=lambda body: as_content(respond(body))) as server:
        yield server


def sweep(out: Path, *args: str | Path):
    argv = ["sweep", "--out", str(out), "--no-ray", *map(str, args)]
    return CliRunner().invoke(app, argv, env=CLEAN_ENV)


def forked(original: Path, fake: FakeOpenAIServer, out: Path, *args: str, at: str = AT):
    return sweep(
        out,
        "--from",
        original,
        "--at",
        at,
        "--duration",
        "20m",
        "--model",
        "scripted",
        "--base-url",
        fake.base_url,
        *args,
    )


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in lines(path)]


def past(original: Path) -> bytes:
    """The original's messages.jsonl lines up to the moment, as they are on disk."""
    kept = [line for line in lines(original / "messages.jsonl") if _at(json.loads(line)) <= MOMENT]
    return b"".join(kept)


def _at(record: dict) -> datetime:
    return datetime.fromisoformat(record["at"])


def test_every_arm_shares_the_past_byte_for_byte_and_differs_after(original, fake, tmp_path) -> None:
    out = tmp_path / "sweep"
    result = forked(original, fake, out, "--seeds", "1-2", "--vary", "gates=on,off")
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert f"every run forks {original} at 09:30:00 and is measured from then on" in text
    assert "2 variants x 2 seeds = 4 runs" in text and "[4/4] gates=off seed 2: done in" in text
    shared = past(original)
    assert shared.count(b"\n") > 10  # a real past: the boss's first lines and their replies
    futures = {}
    for name in ARMS:
        run = out / "runs" / name
        mine = (run / "messages.jsonl").read_bytes()
        assert mine.startswith(shared), name
        futures[name] = mine[len(shared) :]
        assert futures[name] and all(_at(json.loads(line)) > MOMENT for line in futures[name].splitlines())
        fork = json.loads((run / "fork.json").read_text())
        assert fork["origin"] == str(original.resolve()) and fork["at"] == MOMENT.isoformat()
        gates, seed = name.removeprefix("gates-").split("-s")
        assert fork["changes"] == [
            {"kind": "switch", "name": "gates", "value": gates},
            {"kind": "seed", "seed": int(seed)},
        ]
        assert json.loads((run / "summary.json").read_text())["stop_reason"]
    # After the moment the arms part: another switch, another seed, another future.
    assert len(set(futures.values())) == len(ARMS)


def test_the_table_measures_each_arm_from_the_moment_with_intervals(original, fake, tmp_path) -> None:
    out = tmp_path / "sweep"
    result = forked(original, fake, out, "--seeds", "1-3", "--vary", "gates=on,off")
    assert result.exit_code == 0, result.output
    data = json.loads((out / "comparison.json").read_text())
    assert data["sweep"]["from"] == str(original.resolve()) and data["sweep"]["at"] == MOMENT.isoformat()
    assert list(data["metrics"]) == [m.key for m in SUMMARY]
    calls = data["metrics"]["calls"]["by_variant"]
    messages = data["metrics"]["agent_messages"]["by_variant"]
    for gates in ("on", "off"):
        stats = calls[f"gates-{gates}"]
        assert stats["n"] == 3 and stats["low"] <= stats["mean"] <= stats["high"]
        for seed, value in zip((1, 2, 3), stats["values"], strict=True):
            run = out / "runs" / f"gates-{gates}-s{seed}"
            thoughts = records(run / "thoughts.jsonl")
            since = [t for t in thoughts if applied_at(t) >= MOMENT]
            assert value == usage_totals(since)["calls"] < usage_totals(thoughts)["calls"]
            posted = [m for m in records(run / "messages.jsonl") if _at(m) >= MOMENT]
            agents = [m for m in posted if m["sender"] not in (BOSS, SYSTEM)]
            assert messages[f"gates-{gates}"]["values"][seed - 1] == len(agents)
    table = (out / "comparison.md").read_text()
    assert f"Forks of `{original}` at 2026-01-05 09:30:00, seeds 1, 2, 3, 20m each from then." in table
    assert "Each run's metrics are from that moment on: the past every run shares is left out." in table
    assert "| metric | gates=on (n=3) | gates=off (n=3) |" in table
    row = next(line for line in table.splitlines() if line.startswith("| model calls ↓ |"))
    assert row.count("[") == 2  # a mean and its 95% interval in each arm
    assert (out / "comparison.png").read_bytes()[:4] == b"\x89PNG"


def test_the_same_command_again_resumes_the_sweep_from_the_fork(original, fake, tmp_path) -> None:
    out = tmp_path / "sweep"
    args = ("--seeds", "1", "--vary", "gates=on,off")
    assert forked(original, fake, out, *args).exit_code == 0
    calls = fake.request_count
    again = forked(original, fake, out, *args)
    assert again.exit_code == 0, again.output
    assert "2 finished before, 0 to run" in " ".join(again.output.split()) and fake.request_count == calls
    # A run cut short is forked again from the start (its directory made anew), the others are kept.
    cut = out / "runs" / "gates-off-s1"
    (cut / "summary.json").unlink()
    kept = (out / "runs" / "gates-on-s1" / "summary.json").stat().st_mtime_ns
    more = forked(original, fake, out, "--seeds", "1-2", "--vary", "gates=on,off")
    assert more.exit_code == 0, more.output
    assert "1 finished before, 3 to run" in " ".join(more.output.split())
    assert (cut / "messages.jsonl").read_bytes().startswith(past(original))
    assert (out / "runs" / "gates-on-s1" / "summary.json").stat().st_mtime_ns == kept
    # Another moment is another sweep.
    other = forked(original, fake, out, "--seeds", "1", "--vary", "gates=on,off", at="09:40")
    assert other.exit_code == 2
    assert "holds another sweep (at was '2026-01-05T09:30:00', now '2026-01-05T09:40:00')" in other.stderr


def test_the_python_api_sweeps_from_a_fork_and_a_seed_only_arm_reads_no_change(
    original, fake, tmp_path
) -> None:
    said: list[str] = []
    result = ideaco.sweep.sweep(
        origin=original,
        at=AT,
        out=tmp_path / "sweep",
        seeds="1-2",
        duration="10m",
        model="scripted",
        base_url=fake.base_url,
        use_ray=False,
        say=said.append,
    )
    assert sorted(result.done) == ["default-s1", "default-s2"] and not result.failed
    table = (tmp_path / "sweep" / "comparison.md").read_text()
    assert "| metric | no change (n=2) |" in table


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--from", "{original}"], "--from RUNDIR needs --at TIME: the moment every run forks it"),
        (["--at", AT], "--at TIME needs --from RUNDIR: the run whose past every run shares"),
        (["{scenario}", "--at", AT], "--at TIME needs --from RUNDIR: the run whose past every run shares"),
        (
            ["{scenario}", "--from", "{original}", "--at", AT],
            "give a SCENARIO or --from RUNDIR, not both: a fork of {original} goes on with its scenario",
        ),
        ([], "a sweep needs a SCENARIO, or --from RUNDIR --at TIME to fork a run's past"),
        (["--from", "{original}", "--at", "half past nine"], "--at 'half past nine' is not a moment"),
        (["--from", "{original}", "--at", "08:00"], "--at 08:00:00 is before the run's start (09:00:00)"),
        (["--from", "{original}", "--at", "12:00"], "--at 12:00:00 is after the run's last event"),
        (["--from", "{nowhere}", "--at", AT], "--from {nowhere} does not exist"),
    ],
)
def test_a_bad_combination_is_one_line_and_writes_nothing(original, tmp_path, args, says) -> None:
    where = {"original": original, "scenario": RUNS[3].scenario, "nowhere": tmp_path / "nowhere"}
    out = tmp_path / "sweep"
    result = sweep(out, *(a.format(**where) for a in args), "--base-url", "http://127.0.0.1:9/v1")
    assert result.exit_code == 2, result.output
    [line] = result.stderr.splitlines()
    assert line.startswith("ideaco: error: ") and says.format(**where) in line
    assert not out.exists()


def test_a_sweeps_text_filters_reach_each_run(original, fake, tmp_path) -> None:
    """`--filters` was read and then dropped: every run of a sweep used the endpoint's default."""
    out = tmp_path / "sweep"
    result = sweep(
        out,
        RUNS[3].scenario,
        "--seeds",
        "1",
        "--duration",
        "5m",
        "--filters",
        "strict",
        "--model",
        "scripted",
        "--base-url",
        fake.base_url,
    )
    assert result.exit_code == 0, result.output
    assert json.loads((out / "runs" / "default-s1" / "summary.json").read_text())["filters"] == "strict"
