"""What a run's thoughts cost in tokens, and where the model's answers spend them (issue 30, item 1).

    python -m benchmarks.answers RUNDIR [RECORDING]

Reads a run directory (and, if given, the `--record` file of that run) and prints one table:
thoughts, messages, completion tokens a thought, prompt tokens a thought and those not served
from the server's cache, drafts the filters refused a thought (so fewer tokens are never bought
by saying less), and, from the recording, how many characters of the answers each field of the
Flow-of-Thought took (its key and punctuation included): the scaffold the grammar forces is the
difference between a field's characters and its content's.
Counts, read off the logs: run the README's first command with `--record` on the embedded model,
then this, before and after a change of the compact wire.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.table import Row
from ideaco.cycle import Gate
from ideaco.kinds import StepKind
from ideaco.store.runlog import RunLog

NAME = "answers"


def answer_fields(recording: Path) -> tuple[int, Counter[str], Counter[str]]:
    """(answers, characters per field, characters of content per field) over a recording's answers."""
    whole: Counter[str] = Counter()
    content: Counter[str] = Counter()
    n = 0
    opener = __import__("gzip").open if recording.suffix == ".gz" else open
    with opener(recording, "rt", encoding="utf-8") as f:
        for line in f:
            try:
                raw = json.loads(json.loads(line)["response"]["content"])
            except (ValueError, KeyError, TypeError):
                continue
            if not isinstance(raw, dict):
                continue
            n += 1
            for key, value in raw.items():
                whole[key] += len(json.dumps({key: value}, ensure_ascii=False, separators=(",", ":"))) - 1
                content[key] += len(_strings(value))
    return n, whole, content


def _strings(value: Any) -> str:
    """The text a value holds (what the model chose to write, not the JSON around it)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "".join(_strings(v) for v in value.values())
    if isinstance(value, list):
        return "".join(_strings(v) for v in value)
    return ""


def rows(run_dir: Path, recording: Path | None = None) -> list[Row]:
    log = RunLog.open(run_dir)
    thoughts = [t for t in log.thoughts if t.get("llm")]
    n = max(1, len(thoughts))
    prompt = sum(t["llm"]["prompt_tokens"] for t in thoughts)
    cached = sum(t["llm"].get("cached_tokens") or 0 for t in thoughts)
    completion = sum(t["llm"]["completion_tokens"] for t in thoughts)
    messages = [m for m in log.messages if m.get("sender") not in ("boss", "system")]
    refused = sum(
        1
        for t in thoughts
        for s in (t.get("applied") or {}).get("steps") or ()
        if s.get("step") == StepKind.DRAFT and s.get("gate") == Gate.FILTERED
    )
    out = [
        Row(NAME, "thoughts (with a model call), employee messages", len(thoughts), len(messages)),
        Row(NAME, "completion tokens a thought", completion / n),
        Row(NAME, "prompt tokens a thought / not served from the cache", prompt / n, (prompt - cached) / n),
        Row(NAME, "drafts refused by the filters a thought", refused / n),
    ]
    if recording is not None:
        answers, whole, content = answer_fields(recording)
        for key, chars in whole.most_common():
            out.append(
                Row(
                    NAME,
                    f"characters an answer: {key}",
                    chars / max(1, answers),
                    content[key] / max(1, answers),
                    note="field, then its content",
                )
            )
    return out


if __name__ == "__main__":
    from benchmarks.table import markdown

    args = [Path(a) for a in sys.argv[1:]]
    if not args:
        sys.exit("usage: python -m benchmarks.answers RUNDIR [RECORDING]")
    print(markdown(rows(args[0], args[1] if len(args) > 1 else None)))
