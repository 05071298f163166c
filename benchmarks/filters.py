"""The text rules on two batteries (issue 36): how much good text they refuse, how much junk.

- good: tests/office/rules/text/good_messages.yaml, ordinary office talk a capable model writes in
  many scripts (Chinese, Japanese, Korean, Hindi, Thai, Arabic, Russian, European languages with
  accents; Markdown, code, URLs, numbers, bracketed tags). Every text refused is a message a
  person never saw; target: at most 2% under either setting.
- junk: tests/office/rules/text/junk_messages.yaml, what the embedded SmolLM2 really wrote
  (recorded runs). Refused under `strict`; `standard` (an endpoint's default) holds only the
  guarantees, so shows most of it.

`python -m benchmarks --only filters` (well under a second; nothing timed).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import yaml

from benchmarks.table import Row
from ideaco.office.rules.text import FILTERS, STRICT, check

NAME = "filters"
BATTERIES = Path(__file__).resolve().parent.parent / "tests" / "office" / "rules" / "text"
TARGET = 0.02  # good text refused, at most


def battery(name: str) -> dict[str, list[str]]:
    return yaml.safe_load((BATTERIES / name).read_text(encoding="utf-8"))


def refused(texts: list[str], filters: str) -> tuple[int, Counter[str]]:
    rules: Counter[str] = Counter()
    for text in texts:
        verdict = check(text, filters=filters)
        if verdict is not None:
            rules[f"{verdict.kind}:{verdict.rule.value}"] += 1
    return sum(rules.values()), rules


async def measure(quick: bool = False) -> list[Row]:
    good = battery("good_messages.yaml")
    junk = battery("junk_messages.yaml")
    texts = [t for group in good.values() for t in group]
    bad = [t for group in junk.values() for t in group]
    rows = []
    for filters in FILTERS:
        n, rules = refused(texts, filters)
        by_group = {g: refused(ts, filters)[0] for g, ts in good.items()}
        worst = ", ".join(f"{g} {k}/{len(good[g])}" for g, k in by_group.items() if k) or "none"
        rows.append(
            Row(
                NAME,
                f"good text refused, --filters {filters} ({len(texts)} messages, {len(good)} groups)",
                f"{n / len(texts):.1%}",
                target=f"<= {TARGET:.0%}",
                met=n / len(texts) <= TARGET,
                note=f"by group: {worst}; by rule: {dict(rules) or 'none'}",
            )
        )
    for filters in FILTERS:
        n, rules = refused(bad, filters)
        kept, _ = refused(junk["refused"], filters)
        rows.append(
            Row(
                NAME,
                f"junk the embedded model wrote refused, --filters {filters} ({len(bad)} texts)",
                f"{n / len(bad):.1%}",
                note=f"{kept} of {len(junk['refused'])} 'refused', "
                f"{n - kept} of {len(junk['still_shown'])} 'still_shown'; by rule: {dict(rules) or 'none'}",
                met=None if filters != STRICT else None,
            )
        )
    return rows
