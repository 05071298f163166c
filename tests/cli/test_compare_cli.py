"""`ideaco compare A B`: tables by default, one JSON document with --json, a PNG with --plot, and
every refusal one line with exit code 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from tests.faults.processes import one_error_line
from tests.test_compare import SAY, SWITCH, fork_shaped, replay
from tests.test_plots import PNG_SIGNATURE


@pytest.fixture(scope="module")
def seeds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The guard office, seed 1 and seed 2 (two hours each, from 09:00), replayed."""
    work = tmp_path_factory.mktemp("compare-cli")
    return replay("office-s1", work / "s1"), replay("office-s2", work / "s2")


@pytest.fixture(scope="module")
def forked(seeds: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Seed 1's past up to 10:00, then seed 2's lines: a fork of seed 1 at 10:00 (tests/test_compare.py)."""
    return fork_shaped(seeds[0], seeds[1], tmp_path_factory.mktemp("fork-cli") / "b", changes=[SAY, SWITCH])


def ideaco(*args: str | Path):
    env = {"COLUMNS": "120", "IDEACO_BASE_URL": None, "OPENAI_BASE_URL": None, "OPENAI_API_KEY": None}
    return CliRunner().invoke(app, [str(a) for a in args], env=env)


def test_a_fork_is_said_with_its_changes_where_they_part_and_the_metrics_side_by_side(seeds, forked) -> None:
    result = ideaco("compare", seeds[0], forked)
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert f"A: {seeds[0]}" in out and f"B: {forked}" in out
    assert (
        'B is a fork of A at 10:00:00 with changes: the boss says in sync: "@Ana what is blocking the sync '
        'fix?"; switch gates=off'
    ) in " ".join(out.split())
    assert "Where they part: message" in out and "From 10:00:00 on (the fork's moment)" in out
    doc = json.loads(ideaco("compare", seeds[0], forked, "--json").stdout)
    first = doc["first_difference"]
    for side in ("a", "b"):  # the first differing message of each side, in its row
        assert first[side]["text"] in out
    calls = doc["metrics"]["calls"]
    row = next(line for line in out.splitlines() if "│ model calls " in line)
    assert [c.strip() for c in row.split("│")[2:5]] == [
        f"{calls['a']:,}",
        f"{calls['b']:,}",
        f"{calls['difference']:+,}" if calls["difference"] else "=",
    ]
    assert "thoughts begun in the red zone" in out and "Messages per person" in out
    assert "pp" in out  # a difference of rates reads in points


def test_json_is_one_document_with_the_fork_the_moment_and_each_metric_of_both(seeds, forked) -> None:
    result = ideaco("compare", seeds[0], forked, "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.stdout)  # nothing else on stdout
    assert set(doc) >= {"a", "b", "fork", "from", "first_difference", "metrics"}
    assert doc["a"] == str(seeds[0]) and doc["b"] == str(forked)
    assert doc["fork"]["relation"] == "b_of_a" and doc["fork"]["changes"]["b"] == [SAY, SWITCH]
    assert doc["from"] == "2026-01-05T10:00:00"
    for key in (
        "boss_answered_rate",
        "tasks_created",
        "documents_written",
        "stamina_green_rate",
        "messages.ana",
    ):
        row = doc["metrics"][key]
        assert set(row) == {"a", "b", "difference"}
        if row["a"] is not None and row["b"] is not None:
            assert row["difference"] == pytest.approx(row["b"] - row["a"])
    compact = ideaco("compare", seeds[0], forked, "--json", "--compact").stdout
    assert json.loads(compact) == doc and len(compact.splitlines()) == 1


def test_unrelated_runs_part_where_their_messages_do_and_from_start_on_request(seeds) -> None:
    doc = json.loads(ideaco("compare", *seeds, "--json").stdout)
    assert doc["fork"] is None and doc["from_reason"] == "first difference"
    assert doc["from"] == doc["first_difference"]["at"]
    whole = json.loads(ideaco("compare", *seeds, "--json", "--from", "start").stdout)
    assert whole["from"] == "2026-01-05T09:00:00" and whole["from_reason"] == "given"
    boss = whole["metrics"]["messages.boss"]  # the boss's first line (09:01) came before they part
    assert (boss["a"], boss["b"]) == (
        doc["metrics"]["messages.boss"]["a"] + 1,
        doc["metrics"]["messages.boss"]["b"] + 1,
    )
    at = json.loads(ideaco("compare", *seeds, "--json", "--from", "10:30").stdout)
    assert at["from"] == "2026-01-05T10:30:00"


def test_the_same_messages_say_so(seeds, tmp_path) -> None:
    copy = shutil.copytree(seeds[0], tmp_path / "copy")
    result = ideaco("compare", seeds[0], copy)
    assert result.exit_code == 0, result.output
    assert "Where they part: nowhere in the messages" in result.stdout
    assert "From 09:00:00 on (the start: the messages are the same)" in result.stdout


def test_plot_writes_a_png_of_both_runs(seeds, forked, tmp_path) -> None:
    png = tmp_path / "cmp.png"
    result = ideaco("compare", seeds[0], forked, "--plot", png)
    assert result.exit_code == 0, result.output
    assert png.read_bytes()[:8] == PNG_SIGNATURE and png.stat().st_size > 20_000
    assert f"Plot written: {png}" in result.stdout
    doc = json.loads(ideaco("compare", seeds[0], forked, "--plot", png, "--json").stdout)
    assert doc["plot"] == str(png)


def test_names_and_messages_are_shown_literally(seeds, tmp_path) -> None:
    b = shutil.copytree(seeds[1], tmp_path / "b")
    lines = (b / "messages.jsonl").read_text(encoding="utf-8").splitlines()
    second = json.loads(lines[1])
    second["text"] = "[bold red]loud[/bold red]\x1b[2J"
    lines[1] = json.dumps(second)
    (b / "messages.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = ideaco("compare", seeds[0], b).stdout
    assert "[bold red]loud[/bold red]\\x1b[2J" in out and "\x1b" not in out


def test_runs_of_two_scenarios_are_compared_with_one_warning_line(seeds, tmp_path) -> None:
    b = shutil.copytree(seeds[1], tmp_path / "b")
    state = json.loads((b / "state.json").read_text(encoding="utf-8"))
    state["office"]["1"]["scenario"]["name"] = "elsewhere"
    (b / "state.json").write_text(json.dumps(state), encoding="utf-8")
    result = ideaco("compare", seeds[0], b, "--json")
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == (
        "ideaco: warning: A ran scenario 'office' and B 'elsewhere': compared all the same"
    )
    assert json.loads(result.stdout)["metrics"]["calls"]["b"] > 0


def test_bad_input_is_one_line_exit_2(seeds, tmp_path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    cases = [
        ((seeds[0], seeds[0]), "are the same run directory: give two runs to compare"),
        ((seeds[0], Path(str(seeds[0]) + "/")), "are the same run directory"),
        ((seeds[0], tmp_path / "nope"), "does not exist"),
        ((empty, seeds[0]), "is not an ideaco run directory"),
        ((seeds[0], seeds[1], "--plot", tmp_path / "x.jpg"), "--plot"),
        ((seeds[0], seeds[1], "--from", "tea time"), "--from 'tea time' is not a moment"),
        ((seeds[0],), "Missing argument"),
    ]
    for args, said in cases:
        line = one_error_line(ideaco("compare", *args))
        assert said in line, line
    link = tmp_path / "link"
    link.symlink_to(seeds[0])
    assert "same run directory" in one_error_line(ideaco("compare", link, seeds[0]))
    png = tmp_path / "target.png"
    (tmp_path / "plot.png").symlink_to(png)
    assert "symbolic link" in one_error_line(ideaco("compare", *seeds, "--plot", tmp_path / "plot.png"))
    assert not png.exists()


def test_the_help_lists_compare() -> None:
    listing = " ".join(ideaco("--help").stdout.split())
    assert "compare Two runs side by side: where they part, and their metrics from that moment on" in listing
