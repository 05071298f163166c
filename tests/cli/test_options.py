"""The model flags are listed once (issue 38, item 4): `ModelOptions`'s fields name them, and every
command that runs an office takes each of them."""

from __future__ import annotations

from dataclasses import fields

import typer

from ideaco.cli.main import app
from ideaco.cli.options import model_flags
from ideaco.model_options import ModelOptions

FLAGS = {f.name for f in fields(ModelOptions)}


def test_every_command_that_runs_an_office_takes_every_model_flag() -> None:
    commands = typer.main.get_command(app).commands  # type: ignore[attr-defined]
    for name in ("run", "chat", "fork"):
        assert FLAGS <= {p.name for p in commands[name].params}, name


def test_model_flags_takes_the_flags_out_of_a_commands_parameters() -> None:
    params = {name: None for name in FLAGS} | {"seed": 3, "out": None}
    assert set(model_flags(params)) == FLAGS
    assert model_flags({"seed": 3, "model": "m"}) == {"model": "m"}
