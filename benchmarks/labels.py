"""Legitimate labels refused (issue 36, items 5-7): names, roles, missions, requirement titles,
people's names and claim keys in many scripts, each given to the tool that takes it.

The battery is `tests/office/rules/data/labels_legit.tsv` (kind, text). A department's, team's or
room's name opens a department and a room with it; a role or a person's name hires someone; a
mission opens a department; a title is handed to a department as a requirement; a claim key is
normalized and checked as an offer's would be. Each goes through `run_tool` on a scratch copy of an
office with one department and one employee, as the secretary's (or the boss's) call would.
Runs as `python -m benchmarks --only labels` or `python -m benchmarks.labels` (well under a second).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.table import Row
from ideaco.mind.tasks import normalize_claim_key
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.tools.org import ToolContext, run_tool
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import SimClock
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.office.rules.labels import claim_key_problem
from ideaco.scenario import Scenario

NAME = "labels"
BATTERY = Path(__file__).resolve().parent.parent / "tests" / "office" / "rules" / "data" / "labels_legit.tsv"
START = datetime(2026, 1, 5, 9, 0)
TARGET = 0.02  # at most 2% of legitimate labels refused
MAIN = "53 of 141 (37.6%) on main e9e53e2"  # measured with this battery before issue 36's labels
_OFFICE = {
    "name": "labels",
    "company": "LabelCo",
    "start": START.isoformat(),
    "departments": [{"id": "base", "name": "Base", "members": ["kim"]}],
    "employees": [{"id": "kim", "name": "Kim", "role": "Lead", "archetype": "old-hand"}],
}


def battery(path: Path = BATTERY) -> list[tuple[str, str]]:
    """(kind, text) rows of a battery file; `#` lines are comments."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            kind, text = line.split("\t", 1)
            rows.append((kind, text))
    return rows


class _NoModel:
    """No thought is asked: the tools are called directly."""

    async def complete(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - never called
        raise AssertionError("no model call in the labels benchmark")


def _office() -> Any:
    scenario = Scenario.model_validate(_OFFICE)
    return office_from_scenario(
        scenario,
        ".",
        llm=_NoModel(),
        clock=SimClock(START),
        seed=1,
        journal=MemoryJournal(),  # type: ignore[arg-type]
    )


def _call(kind: str, text: str) -> tuple[str, dict[str, Any]]:
    hire = {"archetype": "idealist", "department": "base"}
    return {
        "name": ("create_department", {"name": text}),
        "role": ("hire_employee", {"name": "Robin", "role": text, **hire}),
        "person": ("hire_employee", {"name": text, "role": "Engineer", **hire}),
        "mission": ("create_department", {"name": "Ops", "mission": text}),
        "description": ("assign_requirement", {"to": "base", "description": text}),
    }[kind]


def refusal(office: Any, kind: str, text: str) -> str | None:
    """Why this label is refused where it is given (None: it is taken)."""
    if kind == "claim_key":
        return claim_key_problem(normalize_claim_key(text) or "")
    ctx = ToolContext(office.company, START)
    org = Scratch(office.state)
    if kind == "name":  # a name opens a department, then a room and a team with it
        for tool, args in (
            ("create_department", {"name": text}),
            ("create_room", {"name": text, "members": ["kim"]}),
            ("create_team", {"name": text, "department": "base", "members": ["kim"]}),
        ):
            result = run_tool(Scratch(office.state), tool, args, ctx)
            if not result.ok:
                return result.message
        return None
    tool, args = _call(kind, text)
    result = run_tool(org, tool, args, ctx)
    return None if result.ok else result.message


def refused(rows: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    office = _office()
    return [(kind, text, why) for kind, text in rows if (why := refusal(office, kind, text)) is not None]


async def measure(quick: bool = False) -> list[Row]:
    rows = battery()
    bad = refused(rows)
    share = len(bad) / len(rows)
    note = "; ".join(f"{text} ({why})" for _, text, why in bad[:3])
    return [
        Row(
            NAME,
            f"legitimate labels refused (of {len(rows)}, {len({k for k, _ in rows})} kinds, many scripts)",
            f"{len(bad)} ({share:.1%})",
            MAIN,
            target=f"<= {TARGET:.0%}",
            met=share <= TARGET,
            note=note,
        )
    ]


if __name__ == "__main__":
    rows = battery()
    bad = refused(rows)
    for kind, text, why in bad:
        print(f"{kind}\t{text}\t{why}")
    print(f"legitimate labels refused: {len(bad)} of {len(rows)} ({len(bad) / len(rows):.1%})")
