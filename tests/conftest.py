"""The suite's own closing line (issue 37, item 9): how many tests skipped and why, in one line, so
a run without Chromium (the viewer's browser tests) or the embedded model says so."""

from __future__ import annotations

from collections import Counter
from typing import Any


def skip_reasons(reports: list[Any]) -> Counter[str]:
    """Skipped tests counted by their reason (a skip's `longrepr` is (file, line, reason))."""
    reasons: Counter[str] = Counter()
    for report in reports:
        longrepr = getattr(report, "longrepr", None)
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        reasons[reason.removeprefix("Skipped: ")] += 1
    return reasons


def pytest_terminal_summary(terminalreporter: Any) -> None:
    reasons = skip_reasons(terminalreporter.stats.get("skipped", []))
    if reasons:
        said = "; ".join(f"{n} {reason}" for reason, n in reasons.most_common())
        terminalreporter.write_line(f"skipped {sum(reasons.values())}: {said}")
