"""What `ideaco --help` lists for each command: the first sentence of its docstring, whole."""

from __future__ import annotations

import re

import typer


def first_sentence(doc: str | None) -> str:
    """A docstring's first sentence (its first paragraph, up to the first full stop), on one line."""
    paragraph = " ".join((doc or "").strip().split("\n\n")[0].split())
    found = re.match(r"(.+?[.!?])(?=\s|$)", paragraph)
    return found.group(1) if found else paragraph


def list_first_sentences(app: typer.Typer) -> None:
    """Give every command without a short help its docstring's first sentence (click cuts at 45 characters)."""
    for command in app.registered_commands:
        if command.short_help is None and command.callback is not None:
            command.short_help = first_sentence(command.callback.__doc__)
