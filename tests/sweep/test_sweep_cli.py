"""`ideaco sweep` end to end against a scripted fake endpoint: ordinary run directories, progress,
the comparison, resuming (also after a kill), a failed run reported while the rest go on, replays
of recorded runs, interviews; and one sweep through Ray local when Ray is installed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.metrics import SUMMARY
from tests.cli.test_run import CLEAN_ENV, SCENARIO, answer
from tests.fakes.openai_server import FakeOpenAIServer, Reply

ROOT = Path(__file__).resolve().parents[2]
VARY = ["--vary", "gates=on,off"]


def reply(body: dict):
    """Thoughts as in tests/cli/test_run.py; an interview gets a one-line answer."""
    if (body.get("response_format") or {}).get("json_schema", {}).get("name") == "interview":
        name = body["messages"][0]["content"].split(",", 1)[0].removeprefix("You are ")
        return {"answer": f"{name}: it went fine."}
    return answer(body)


@pytest.fixture
def fake():
    with FakeOpenAIServer(handler=reply) as server:
        yield server


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(SCENARIO)
    return path


def sweep(scenario: Path, out: Path, *args: str, env: dict | None = None):
    argv = ["sweep", str(scenario), "--out", str(out), "--duration", "6m", "--no-ray", *args]
    return CliRunner().invoke(app, argv, env={**CLEAN_ENV, **(env or {})})


def progress(out: Path) -> list[dict]:
    path = out / "progress.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_sweep_runs_every_variant_and_seed_and_compares_them(fake, scenario, tmp_path) -> None:
    out = tmp_path / "sweep"
    result = sweep(scenario, out, "--seeds", "1-2", *VARY, "--base-url", fake.base_url)
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert "2 variants x 2 seeds = 4 runs" in text and "0 finished before, 4 to run one by one" in text
    assert "[4/4] gates=off seed 2: done in" in text
    assert [p["status"] for p in progress(out)] == ["done"] * 4
    data = json.loads((out / "comparison.json").read_text())
    assert [v["name"] for v in data["variants"]] == ["gates-on", "gates-off"]
    assert list(data["metrics"]) == [m.key for m in SUMMARY]
    assert all(stats["n"] == 2 for stats in data["metrics"]["calls"]["by_variant"].values())
    table = (out / "comparison.md").read_text()
    assert "| metric | gates=on (n=2) | gates=off (n=2) |" in table
    assert "| boss lines replied to ↑ |" in table and "| boss lines answered by the addressee ↑ |" in table
    assert (out / "comparison.png").read_bytes()[:4] == b"\x89PNG"
    # Each run is an ordinary run directory: report and inspect read it, --resume could continue it.
    run = out / "runs" / "gates-off-s2"
    assert json.loads((run / "state.json").read_text())  # TinyDB state
    report = CliRunner().invoke(app, ["report", str(run), "--json", "--no-plots"], env=CLEAN_ENV)
    assert report.exit_code == 0, report.output
    assert json.loads(report.stdout)["collaboration"]["summary"]["calls"] == progress(out)[3]["calls"]
    inspect = CliRunner().invoke(app, ["inspect", str(run), "--json"], env=CLEAN_ENV)
    assert inspect.exit_code == 0, inspect.output


def test_the_same_command_again_redoes_nothing(fake, scenario, tmp_path) -> None:
    out = tmp_path / "sweep"
    args = ("--seeds", "1", *VARY, "--base-url", fake.base_url)
    assert sweep(scenario, out, *args).exit_code == 0
    stamps = {p: p.stat().st_mtime_ns for p in (out / "runs").glob("*/summary.json")}
    calls = fake.request_count
    again = sweep(scenario, out, *args)
    assert again.exit_code == 0, again.output
    assert "2 finished before, 0 to run" in " ".join(again.output.split())
    assert fake.request_count == calls
    assert {p: p.stat().st_mtime_ns for p in stamps} == stamps
    # More seeds: only the new runs go.
    more = sweep(scenario, out, "--seeds", "1-2", *VARY, "--base-url", fake.base_url)
    assert "2 finished before, 2 to run" in " ".join(more.output.split())
    assert len(progress(out)) == 4


# The reply figures' names before issue 37 (item 10), and what each is called now.
RENAMED = {
    "boss_answered_rate": "boss_replied_rate",
    "boss_addressee_rate": "boss_answered_rate",
    "boss_answer_latency_s": "boss_reply_latency_s",
    "mention_answered_rate": "mention_replied_rate",
}


def test_a_sweep_made_before_the_reply_figures_were_renamed_gets_them_by_the_same_command(
    fake, scenario, tmp_path
) -> None:
    """A sweep's figures are recomputed from its runs' logs, never read from an old comparison: the
    same command again redoes no run and writes the comparison under today's names."""
    out = tmp_path / "sweep"
    args = ("--seeds", "1", *VARY, "--base-url", fake.base_url)
    assert sweep(scenario, out, *args).exit_code == 0
    now = json.loads((out / "comparison.json").read_text())["metrics"]
    old = {next((o for o, n in RENAMED.items() if n == key), key): m for key, m in now.items()}
    (out / "comparison.json").write_text(json.dumps({"variants": [], "metrics": old}))
    assert "boss_addressee_rate" in json.loads((out / "comparison.json").read_text())["metrics"]
    calls = fake.request_count
    again = sweep(scenario, out, *args)
    assert again.exit_code == 0, again.output
    assert "2 finished before, 0 to run" in " ".join(again.output.split()) and fake.request_count == calls
    metrics = json.loads((out / "comparison.json").read_text())["metrics"]
    assert list(metrics) == [m.key for m in SUMMARY] and "boss_addressee_rate" not in metrics
    assert metrics == now
    assert metrics["boss_answered_rate"]["label"] == "boss lines answered by the addressee"


def test_a_killed_sweep_finishes_only_what_was_missing_when_run_again(scenario, tmp_path) -> None:
    with FakeOpenAIServer(handler=lambda body: Reply(json.dumps(reply(body)), delay=0.02)) as slow:
        out = tmp_path / "sweep"
        argv = [
            sys.executable,
            "-m",
            "ideaco",
            "sweep",
            str(scenario),
            "--out",
            str(out),
            "--duration",
            "6m",
            "--no-ray",
            "--seeds",
            "1-3",
            *VARY,
            "--base-url",
            slow.base_url,
        ]
        env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 120
            while not any(p["status"] == "done" for p in progress(out)):
                assert proc.poll() is None, "the sweep ended before it could be killed"
                assert time.monotonic() < deadline, "no run finished in time"
                time.sleep(0.05)  # polling a real process, with a deadline
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(timeout=30)
        before = {p["run"] for p in progress(out) if p["status"] == "done"}
        assert 1 <= len(before) < 6
        stamps = {name: (out / "runs" / name / "summary.json").stat().st_mtime_ns for name in before}
        result = sweep(scenario, out, "--seeds", "1-3", *VARY, "--base-url", slow.base_url)
        assert result.exit_code == 0, result.output
        assert f"{len(before)} finished before, {6 - len(before)} to run" in " ".join(result.output.split())
    lines = progress(out)
    assert sorted(p["run"] for p in lines if p["status"] == "done") == sorted(
        f"gates-{g}-s{s}" for g in ("on", "off") for s in (1, 2, 3)
    )  # each run done exactly once
    assert {n: (out / "runs" / n / "summary.json").stat().st_mtime_ns for n in before} == stamps


def test_a_failed_run_is_reported_and_the_rest_go_on_and_replays_match(fake, scenario, tmp_path) -> None:
    recorded, recordings = tmp_path / "recorded", tmp_path / "calls"
    args = ("--seeds", "1", *VARY, "--model", "scripted", "--base-url", fake.base_url)
    assert sweep(scenario, recorded, *args, "--record-dir", str(recordings)).exit_code == 0
    assert sorted(p.name for p in recordings.iterdir()) == ["gates-off-s1.jsonl", "gates-on-s1.jsonl"]
    (recordings / "gates-on-s1.jsonl").unlink()  # this run cannot be replayed
    replayed = tmp_path / "replayed"
    result = sweep(scenario, replayed, *args, "--replay-dir", str(recordings))
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())
    assert "gates=on seed 1: FAILED" in text and "replay file not found" in text
    assert "gates=off seed 1: done" in text and "1 failed (run the same command again to retry them)" in text
    first = json.loads((recorded / "comparison.json").read_text())["metrics"]
    again = json.loads((replayed / "comparison.json").read_text())["metrics"]
    assert again["calls"]["by_variant"]["gates-off"] == first["calls"]["by_variant"]["gates-off"]
    assert again["calls"]["by_variant"]["gates-on"]["n"] == 0


def test_questions_are_asked_at_the_end_of_every_run_and_set_side_by_side(fake, scenario, tmp_path) -> None:
    out = tmp_path / "sweep"
    result = sweep(
        scenario, out, "--seeds", "1", *VARY, "--base-url", fake.base_url, "--question", "How did it go?"
    )
    assert result.exit_code == 0, result.output
    answers = json.loads((out / "interviews" / "gates-off-s1.json").read_text())
    assert {a["employee"] for a in answers} == {"alice", "bob", "secretary"}
    assert not any((out / "runs" / "gates-off-s1").glob("*interview*"))  # outside the run directory
    table = (out / "interviews.md").read_text()
    assert "## How did it go?" in table and "| Alice | Alice: it went fine. | Alice: it went fine. |" in table


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--vary", "loud=on,off"], "unknown switch 'loud'"),
        (["--seeds", "3-1"], "goes backwards"),
        (["--base-url", "http://127.0.0.1:9/v1"], "cannot reach the model endpoint"),
        (["--replay-dir", "/no/such/dir"], "not a directory"),
    ],
)
def test_a_bad_sweep_is_one_line_and_writes_nothing(scenario, tmp_path, args, says) -> None:
    out = tmp_path / "sweep"
    result = sweep(scenario, out, *args)
    assert result.exit_code == 2, result.output
    assert says in result.stderr and not out.exists()


def test_another_sweep_in_the_same_directory_is_refused(fake, scenario, tmp_path) -> None:
    out = tmp_path / "sweep"
    assert sweep(scenario, out, "--seeds", "1", *VARY, "--base-url", fake.base_url).exit_code == 0
    other = sweep(scenario, out, "--seeds", "1", "--vary", "stamina=on,off", "--base-url", fake.base_url)
    assert other.exit_code == 2 and "holds another sweep (vary was" in other.stderr


def test_a_sweep_on_ray_local_gives_the_same_table(fake, scenario, tmp_path) -> None:
    pytest.importorskip("ray")
    args = ("--seeds", "1", *VARY, "--base-url", fake.base_url)
    serial, parallel = tmp_path / "serial", tmp_path / "ray"
    assert sweep(scenario, serial, *args).exit_code == 0
    argv = ["sweep", str(scenario), "--out", str(parallel), "--duration", "6m", *args]
    result = CliRunner().invoke(app, argv, env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    assert "on Ray (local" in " ".join(result.output.split())
    one = json.loads((serial / "comparison.json").read_text())["metrics"]
    two = json.loads((parallel / "comparison.json").read_text())["metrics"]
    assert one == two


def test_a_torn_progress_line_is_cut_like_a_run_logs_and_the_sweep_goes_on(fake, scenario, tmp_path) -> None:
    """A sweep killed while writing progress.jsonl left a torn line every later re-run crashed on."""
    out = tmp_path / "sweep"
    args = ("--seeds", "1", *VARY, "--base-url", fake.base_url)
    assert sweep(scenario, out, *args).exit_code == 0
    with open(out / "progress.jsonl", "a", encoding="utf-8") as f:
        f.write('{"run": "gates-on-s2", "sta')  # the kill came mid-line
    for _ in range(2):  # the first re-run mends it; the second must find it whole
        result = sweep(scenario, out, "--seeds", "1-2", *VARY, "--base-url", fake.base_url)
        assert result.exit_code == 0, result.output
    assert sorted(p["run"] for p in progress(out)) == sorted(
        f"gates-{g}-s{s}" for g in ("on", "off") for s in (1, 2)
    )


def test_a_sweep_runs_a_shipped_scenario_by_name_as_run_does(fake, tmp_path) -> None:
    out = tmp_path / "sweep"
    argv = [
        "sweep",
        "startup",
        "--out",
        str(out),
        "--duration",
        "1m",
        "--no-ray",
        "--seeds",
        "1",
        "--base-url",
        fake.base_url,
    ]
    result = CliRunner().invoke(app, argv, env=CLEAN_ENV)
    assert result.exit_code == 0, result.output
    assert [p["status"] for p in progress(out)] == ["done"]


def test_an_out_that_is_a_file_is_one_line(fake, scenario, tmp_path) -> None:
    out = tmp_path / "notes.txt"
    out.write_text("mine")
    result = sweep(scenario, out, "--seeds", "1", "--base-url", fake.base_url)
    assert result.exit_code == 2, result.output
    [line] = result.stderr.splitlines()
    assert (
        line == f"ideaco: error: --out {out}: is a file; a sweep's --out is a directory (created if missing)"
    )
    assert out.read_text() == "mine"


class Stops:
    """An executor that receives `signum` as its first run starts (as a kill or a Ctrl-C would)."""

    description = "here"

    def __init__(self, signum: int) -> None:
        self.signum = signum
        self.closed = False

    def run(self, jobs):
        os.kill(os.getpid(), self.signum)
        time.sleep(5)  # the handler raises in this thread before this ends
        yield from ()

    def close(self) -> None:
        self.closed = True


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stopped_sweep_exits_as_run_and_chat_do(
    fake, scenario, tmp_path, monkeypatch, signum, code
) -> None:
    executor = Stops(signum)
    monkeypatch.setattr("ideaco.cli.sweep.executor_for", lambda address, use_ray: (executor, None))
    result = sweep(scenario, tmp_path / "sweep", "--seeds", "1", "--base-url", fake.base_url)
    assert result.exit_code == code, result.output
    assert "run the same command again" in result.output and executor.closed


def test_each_run_of_a_sweep_paces_its_requests_at_the_rate_given(
    fake, scenario, tmp_path, monkeypatch
) -> None:
    from ideaco.llm import factory
    from ideaco.llm.limits import Pacer
    from tests.llm.test_limits import FakeTime

    intervals: list[float] = []

    class FakeClockPacer(Pacer):
        def __init__(self, requests_per_second: float) -> None:
            time = FakeTime()
            super().__init__(requests_per_second, clock=time.clock, sleep=time.sleep)
            intervals.append(self.interval)

    monkeypatch.setattr(factory, "Pacer", FakeClockPacer)
    result = sweep(
        scenario, tmp_path / "sweep", "--seeds", "1", *VARY, "--base-url", fake.base_url, "--rate", "30/min"
    )
    assert result.exit_code == 0, result.output
    assert intervals == [2.0, 2.0]  # one pacer per run, each at the sweep's rate
