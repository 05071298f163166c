"""Is anything listening at the endpoint? Asked before anything is written or any call is paid."""

from __future__ import annotations

import socket
from urllib.parse import urlparse

from ideaco.errors import IdeacoError


def check_reachable(base_url: str, timeout: float = 3.0) -> None:
    """Fail fast, before anything is written, when nothing listens at the endpoint."""
    parsed = urlparse(base_url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise IdeacoError(f"--base-url {base_url!r} is not an http(s) URL")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((parsed.hostname, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise IdeacoError(f"cannot reach the model endpoint {base_url} ({reason})") from None
