"""Junk shown and drafts refused in a run directory (issue 36, item 2).

`python -m benchmarks.junk [--until HH:MM] RUNDIR...`: `--until` counts only what happened before that
simulated time (to compare a run cut short with a longer one over the same span).

Read from the logs only (thoughts.jsonl, messages.jsonl):
- drafts refused per thought: thoughts whose gate is `filtered`, over all thoughts;
- junk shown: the texts people read, as the office kept them, holding one of `< > { } [ ] | \\`
  or no letter of any script (`\\p{L}`): the lines employees posted, each document version as
  written, review notes and rebuttals, task descriptions and results, and (apart) memory texts.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import regex

DEBRIS = regex.compile(r"[<>{}\[\]|\\]")
LETTER = regex.compile(r"\p{L}")
NOT_EMPLOYEES = {"boss", "system"}


def is_junk(text: str) -> bool:
    """A text people read that the small model should never have written: debris, or no letter."""
    return bool(DEBRIS.search(text)) or not LETTER.search(text)


def _records(path: Path, until: str = "") -> Iterator[dict[str, Any]]:
    """A JSONL log's records, those at `until` (a simulated HH:MM) or later left out."""
    if path.is_file():
        with path.open(encoding="utf-8") as handle:
            for line in handle:
                if line.strip():
                    record = json.loads(line)
                    if not until or str(record.get("at", ""))[11:16] < until:
                        yield record


def _texts(run: Path, until: str = "") -> dict[str, list[str]]:
    """The texts people read, by kind."""
    out: dict[str, list[str]] = {"posted": [], "documents": [], "reviews": [], "tasks": [], "memory": []}
    for message in _records(run / "messages.jsonl", until):
        if message.get("sender") not in NOT_EMPLOYEES and message.get("kind", "chat") == "chat":
            out["posted"].append(message.get("text") or "")
    for thought in _records(run / "thoughts.jsonl", until):
        for step in (thought.get("applied") or {}).get("steps", []):
            if step.get("step") == "document":
                if step.get("versions"):
                    out["documents"].append(step.get("content") or "")
                review = step.get("review") or {}
                if step.get("tool") == "review" and review.get("notes"):
                    out["reviews"].append(review["notes"])
                if step.get("tool") == "rebut" and review.get("argument"):
                    out["reviews"].append(review["argument"])
            if step.get("step") != "mind":
                continue
            tasks = step.get("tasks") or {}
            for task in tasks.get("added", []):
                out["tasks"].append(task.get("description") or "")
            for task in tasks.get("updated", []):
                if task.get("result"):
                    out["tasks"].append(task["result"])
            for kind in ("short_term", "long_term"):
                memory = (step.get("memory") or {}).get(kind) or {}
                for item in (*memory.get("added", []), *memory.get("updated", [])):
                    if item.get("content"):
                        out["memory"].append(item["content"])
    return out


def measure(run: Path, until: str = "") -> dict[str, Any]:
    thoughts = list(_records(run / "thoughts.jsonl", until))
    filtered = sum(1 for t in thoughts if t.get("gate") == "filtered")
    texts = _texts(run, until)
    junk = {kind: [t for t in items if is_junk(t)] for kind, items in texts.items()}
    return {
        "run": str(run),
        "until": until or "end",
        "thoughts": len(thoughts),
        "filtered": filtered,
        "refused_per_thought": round(filtered / len(thoughts), 3) if thoughts else 0.0,
        "shown": {kind: len(items) for kind, items in texts.items()},
        "junk": {kind: len(items) for kind, items in junk.items()},
        "junk_shown": sum(len(junk[k]) for k in ("posted", "documents", "reviews", "tasks")),
        "examples": {kind: items[:5] for kind, items in junk.items() if items},
    }


def main(argv: list[str]) -> None:
    until = ""
    if argv[:1] == ["--until"]:
        until, argv = argv[1], argv[2:]
    for arg in argv:
        print(json.dumps(measure(Path(arg), until), ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
