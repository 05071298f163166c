"""`--rate` / `IDEACO_RATE`: the requests a run sends start at most that often, evenly spaced."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app
from ideaco.llm import factory
from ideaco.llm.config import resolve_settings
from ideaco.llm.limits import Pacer
from tests.cli.test_run import CLEAN_ENV, fake, scenario  # noqa: F401 - fixtures
from tests.llm.test_limits import FakeTime


@pytest.fixture
def paced(monkeypatch) -> list[tuple[Pacer, FakeTime]]:
    """Every pacer the stack builds runs on a fake clock (no real waits); each with its clock."""
    made: list[tuple[Pacer, FakeTime]] = []

    class FakeClockPacer(Pacer):
        def __init__(self, requests_per_second: float) -> None:
            time = FakeTime()
            super().__init__(requests_per_second, clock=time.clock, sleep=time.sleep)
            made.append((self, time))

    monkeypatch.setattr(factory, "Pacer", FakeClockPacer)
    return made


def run(scenario, fake, tmp_path, *flags: str, env: dict | None = None):  # noqa: F811
    args = [
        "run",
        str(scenario),
        "--duration",
        "10m",
        "--base-url",
        fake.base_url,
        "--out",
        str(tmp_path / "run"),
    ]
    return CliRunner().invoke(app, [*args, *flags, "--concurrency", "1"], env={**CLEAN_ENV, **(env or {})})


def test_rate_spaces_every_request_the_run_sends(fake, scenario, tmp_path, paced) -> None:  # noqa: F811
    result = run(scenario, fake, tmp_path, "--rate", "30/min")
    assert result.exit_code == 0, result.output
    [(pacer, time)] = paced
    assert pacer.interval == 2.0
    calls = fake.request_count
    assert calls >= 3
    # The calls follow each other at once (the fake answers instantly): each but the first waited
    # for its start, two seconds after the one before, so n calls took 2 (n - 1) seconds.
    assert len(time.sleeps) == calls - 1 and time.now == pytest.approx(2.0 * (calls - 1))


def test_the_environment_gives_the_rate_when_no_flag_does(fake, scenario, tmp_path, paced) -> None:  # noqa: F811
    result = run(scenario, fake, tmp_path, env={"IDEACO_RATE": "120/min"})
    assert result.exit_code == 0, result.output
    assert [p.interval for p, _ in paced] == [0.5]


def test_without_a_rate_nothing_is_paced(fake, scenario, tmp_path, paced) -> None:  # noqa: F811
    assert run(scenario, fake, tmp_path).exit_code == 0
    assert paced == []


def test_a_bad_rate_is_one_line_naming_where_it_came_from(fake, scenario, tmp_path) -> None:  # noqa: F811
    result = run(scenario, fake, tmp_path, "--rate", "60")
    assert result.exit_code == 2 and "--rate: rate '60': expected" in result.output
    result = run(scenario, fake, tmp_path, env={"IDEACO_RATE": "lots"})
    assert result.exit_code == 2 and "IDEACO_RATE: rate 'lots'" in result.output
    assert fake.request_count == 0


def test_the_flag_beats_the_environment() -> None:
    env = {"IDEACO_RATE": "1/s"}
    assert resolve_settings(cli_base_url="http://h/v1", env=env, rate="60/h").requests_per_second == 1 / 60
    assert resolve_settings(cli_base_url="http://h/v1", env=env).requests_per_second == 1.0


@pytest.mark.parametrize("command", ["run", "chat", "sweep", "interview"])
def test_every_command_that_calls_the_model_takes_rate(command) -> None:
    result = CliRunner().invoke(app, [command, "--help"], env={"COLUMNS": "200"})
    assert "--rate" in result.output
