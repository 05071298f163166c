"""`--help`: flags without a "<bool>" type, and the defaults said."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from ideaco.cli.main import app

COMMANDS = ("run", "chat", "inspect", "report", "sweep", "interview", "view", "reset-relationships")


def help_of(*command: str) -> str:
    result = CliRunner().invoke(app, [*command, "--help"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_flags_show_no_bool_type(command):
    text = help_of(command)
    assert "<bool>" not in text
    assert re.search(r"^\s+--help\s+Show this message and exit\.$", text, re.M)


def test_run_help_shows_its_defaults():
    text = " ".join(help_of("run").split())
    assert (
        "[default: (the scenario's; with --resume: to the run's end, or the scenario's again if it ended)]"
        in text
    )
    assert "--seed <int> Seed of the run's one random generator. [default: 7]" in text
    assert "--concurrency <int range> Model calls in flight at once. [default: 2; x>=1]" in text


def test_the_command_list_shows_each_first_sentence_whole():
    text = " ".join(help_of().split("Commands:")[1].split())
    for command in app.registered_commands:
        doc = " ".join((command.callback.__doc__ or "").split("\n\n")[0].split())
        first = doc[: doc.index(".") + 1]
        assert first in text, command.name or command.callback.__name__
    assert "..." not in text
