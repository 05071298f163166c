"""A sweep's interviews side by side: per question, one row per employee and one column per variant."""

from __future__ import annotations

import json
from typing import Any

from ideaco.sweep.plan import Plan

MAX_CELL = 300


def load_answers(plan: Plan) -> dict[str, dict[int, list[dict[str, Any]]]]:
    """variant -> seed -> the answers of that run (runs without answers are left out)."""
    out: dict[str, dict[int, list[dict[str, Any]]]] = {}
    for run in plan.runs():
        path = plan.interview_path(run)
        if path.exists():
            try:
                out.setdefault(run.variant.name, {})[run.seed] = json.loads(path.read_text(encoding="utf-8"))
            except ValueError:
                continue
    return out


def _lowest_seed(runs: dict[int, list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return runs[min(runs)] if runs else []


def _cell(text: str) -> str:
    text = " ".join(text.split()).replace("|", "\\|")
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def interviews_markdown(plan: Plan) -> str:
    """The answers of each variant's first finished seed, side by side (every answer is in interviews/)."""
    answers = load_answers(plan)
    variants = plan.variants
    lines = [
        "# Interviews",
        "",
        "Each variant's answers come from its lowest seed that finished; every run's "
        "answers are in `interviews/<run>.json`.",
        "",
    ]
    for question in plan.questions:
        lines += [f"## {question}", ""]
        first = {v.name: _lowest_seed(answers.get(v.name) or {}) for v in variants}
        people: dict[str, str] = {}
        for rows in first.values():
            for a in rows:
                people.setdefault(a["employee"], a["name"])
        head = [
            "employee",
            *(
                f"{plan.label(v)} (seed {min(answers[v.name])})" if answers.get(v.name) else plan.label(v)
                for v in variants
            ),
        ]
        lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for eid, name in people.items():
            cells = []
            for v in variants:
                said = next(
                    (
                        a["answer"]
                        for a in first[v.name]
                        if a["employee"] == eid and a["question"] == question
                    ),
                    "-",
                )
                cells.append(_cell(said))
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)
