"""User-facing failures: one line, exit code 2, no traceback."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.text import Text

from ideaco.errors import IdeacoError as UserError  # the CLI's name for it

EXIT_USAGE = 2

__all__ = ["EXIT_USAGE", "UserError", "fail"]


def fail(message: str) -> None:
    """Print `ideaco: error: <message>` on stderr and exit 2."""
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    console.print(
        Text("ideaco: error: ", style="bold red") + Text(message.splitlines()[0] if message else "failed")
    )
    sys.exit(EXIT_USAGE)
