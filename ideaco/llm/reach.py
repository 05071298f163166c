"""Is anything listening at the endpoint? Asked before anything is written or any call is paid."""

from __future__ import annotations

import socket
from urllib.parse import urlparse

from ideaco.errors import IdeacoError
from ideaco.redact import redact_url


def check_reachable(base_url: str, timeout: float = 3.0) -> None:
    """Fail fast, before anything is written, when nothing listens at the endpoint (URL shown redacted)."""
    shown = redact_url(base_url)
    try:
        parsed = urlparse(base_url)
        parsed.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        raise IdeacoError(f"--base-url {shown!r} is not a valid URL") from None
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise IdeacoError(f"--base-url {shown!r} is not an http(s) URL")
    port = parsed.port or (443 if parsed.scheme == "https" else 80)
    try:
        with socket.create_connection((parsed.hostname, port), timeout=timeout):
            pass
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise IdeacoError(f"cannot reach the model endpoint {shown} ({reason})") from None
