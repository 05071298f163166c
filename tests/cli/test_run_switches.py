"""`ideaco run --switch`: an ablation's switches are kept in the run's state and a resume keeps them."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_run import fake, ideaco, one_error_line, read_jsonl, scenario  # noqa: F401 - fixtures


def test_switches_are_saved_and_a_resume_keeps_them(fake, scenario, tmp_path) -> None:  # noqa: F811
    out = tmp_path / "run"
    flags = ("--base-url", fake.base_url)
    result = ideaco(
        "run",
        scenario,
        "--duration",
        "5m",
        "--out",
        out,
        *flags,
        "--switch",
        "wake=broadcast",
        "--switch",
        "gates=off",
    )
    assert result.exit_code == 0, result.output
    state = _state(out)
    assert state["office"]["switches"]["wake"] == "broadcast"
    assert state["office"]["switches"]["gates"] == "off"
    # Broadcast: nobody ever wakes on a timer, before or after the resume.
    result = ideaco("run", "--resume", out, "--duration", "10m", *flags)
    assert result.exit_code == 0, result.output
    assert _state(out)["office"]["switches"]["wake"] == "broadcast"
    thoughts = read_jsonl(out / "thoughts.jsonl")
    assert thoughts and all(t["trigger"] != "timer" for t in thoughts)


def test_a_run_of_todays_engine_saves_no_switches(fake, scenario, tmp_path) -> None:  # noqa: F811
    out = tmp_path / "run"
    assert (
        ideaco("run", scenario, "--duration", "2m", "--out", out, "--base-url", fake.base_url).exit_code == 0
    )
    assert "switches" not in _state(out)["office"]


def test_a_bad_switch_is_one_line(fake, scenario, tmp_path) -> None:  # noqa: F811
    out = tmp_path / "run"
    line = one_error_line(
        ideaco("run", scenario, "--out", out, "--base-url", fake.base_url, "--switch", "gates=maybe")
    )
    assert "gates=maybe: expected on or off" in line
    assert not out.exists()
    line = one_error_line(ideaco("run", scenario, "--switch", "gates"))
    assert "expected NAME=VALUE" in line


def _state(out: Path) -> dict:
    from ideaco.store.runlog import RunLog

    return RunLog.open_state(out).state
