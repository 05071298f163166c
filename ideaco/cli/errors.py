"""User-facing failures: one line, exit code 2, no traceback."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.text import Text

EXIT_USAGE = 2


class UserError(Exception):
    """Something the user can fix (a file, a flag, an endpoint); shown as one line."""


def fail(message: str) -> None:
    """Print `ideaco: error: <message>` on stderr and exit 2."""
    console = Console(stderr=True, highlight=False, soft_wrap=True)
    console.print(
        Text("ideaco: error: ", style="bold red") + Text(message.splitlines()[0] if message else "failed")
    )
    sys.exit(EXIT_USAGE)
