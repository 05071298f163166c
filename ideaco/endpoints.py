"""A run's model endpoints: whether they can be reached before anything starts, and their call counts."""

from __future__ import annotations

from collections.abc import Callable

from ideaco.errors import IdeacoError
from ideaco.llm.reach import check_reachable


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
