"""A run's model endpoints: whether they can be reached before anything starts, and their call counts."""

from __future__ import annotations

import socket
from collections.abc import Callable
from urllib.parse import urlparse

from ideaco.errors import IdeacoError


def add_counts(
    before: dict[str, dict[str, int]], now: dict[str, dict[str, int]]
) -> dict[str, dict[str, int]]:
    """Per-endpoint counts of earlier sessions plus this one's."""
    out = {url: dict(counts) for url, counts in before.items()}
    for url, counts in now.items():
        row = out.setdefault(url, {})
        for key, n in counts.items():
            row[key] = row.get(key, 0) + n
    return out


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


def check_some_reachable(urls: tuple[str, ...], status: Callable[[str], None]) -> None:
    """One endpoint: it must answer. Several: at least one must; the others are named and rested."""
    if len(urls) == 1:
        check_reachable(urls[0])
        return
    problems = []
    for url in urls:
        try:
            check_reachable(url)
        except IdeacoError as exc:
            problems.append(str(exc))
    if len(problems) == len(urls):
        raise IdeacoError(f"none of the {len(urls)} model endpoints can be reached ({problems[0]})")
    for problem in problems:
        status(f"{problem}: calls go to the other endpoints until it answers")
