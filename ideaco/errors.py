"""The one exception users see: something they can fix (a file, a flag, an endpoint), in one line."""

from __future__ import annotations


class IdeacoError(Exception):
    """A user-facing failure; `str()` is one line naming the file, field or URL."""
