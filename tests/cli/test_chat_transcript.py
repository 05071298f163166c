"""The chat's transcript (issue 37, item 8): the scenario's own boss lines read `★ Boss (script)`,
unlike what the boss types; a message printed after a command's output says its room again."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.cli.test_chat import SCENARIO, chat
from tests.fakes.openai_server import FakeOpenAIServer, last_user_content
from tests.office.conftest import thought

SCRIPTED = SCENARIO + 'script:\n  - {at: "00:00", to: launch, text: "Morning, team."}\n'


def answer(body: dict) -> dict:
    """Alice answers the boss's question; everyone else stays quiet."""
    who = re.search(r"You are (\w+)", body["messages"][0]["content"]).group(1)  # type: ignore[union-attr]
    asked = "Are we on track?" in last_user_content(body)
    return thought(True, "On track, the checklist is half done.") if who == "Alice" and asked else thought()


@pytest.fixture(scope="module")
def fake():
    with FakeOpenAIServer(handler=answer) as server:
        yield server


def test_script_lines_are_marked_and_a_message_after_a_command_says_its_room(fake, tmp_path: Path) -> None:
    scenario = tmp_path / "scripted.yaml"
    scenario.write_text(SCRIPTED)
    lines = ["/room launch", "/wait 10s", "Are we on track?", "/who", "/wait 2m", "/quit"]
    result = chat(scenario, fake, lines, "--out", str(tmp_path / "run"))
    assert result.returncode == 0, result.stderr
    out = result.stdout.splitlines()
    assert any(line.endswith("★ Boss (script): Morning, team.") for line in out)
    assert any(line.endswith("★ Boss: Are we on track?") for line in out)  # typed: no mark
    assert not any("(script): Are we on track?" in line for line in out)
    # Alice answers after the /who table: her line comes under the room's header again.
    first = next(i for i, line in enumerate(out) if "Alice: On track" in line)
    assert out[first - 1] == "── Launch [launch]", out[first - 3 : first + 1]


def test_run_prints_script_lines_as_the_boss(fake, tmp_path: Path) -> None:
    """`ideaco run` has no typed lines: its transcript is as before (the README's captures)."""
    import subprocess
    import sys

    from tests.cli.test_chat import CLEAN_ENV, ROOT

    scenario = tmp_path / "scripted.yaml"
    scenario.write_text(SCRIPTED)
    env = {k: v for k, v in __import__("os").environ.items() if k not in CLEAN_ENV} | {"PYTHONPATH": str(ROOT)}
    args = ["run", str(scenario), "--base-url", fake.base_url, "--duration", "2m", "--out", str(tmp_path / "r")]
    done = subprocess.run([sys.executable, "-m", "ideaco", *args], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "★ Boss: Morning, team." in done.stdout and "(script)" not in done.stdout
