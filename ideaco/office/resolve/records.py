"""The thought record (thoughts.jsonl, spec 1.5) with what the thought did under `applied`, and back.

`thought_record` writes a resolved think; `result_from_record` reads one back into a
`ThinkResult` that `Office.resolve` can apply again (a resume). `RunStats` counts what the run
did as records are written.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ideaco.cycle import Gate, Trigger
from ideaco.llm.base import ChatResult
from ideaco.mind.thought import Thought
from ideaco.office.core.steps import DraftStep, MindStep, Step, step_from_record
from ideaco.office.core.think import ThinkContext, ThinkResult

APPLIED_FORMAT = 1


def llm_record(results: Sequence[ChatResult] | None) -> dict[str, Any] | None:
    if not results:
        return None
    return {
        "model": results[0].model,
        "prompt_tokens": sum(r.usage.prompt_tokens for r in results),
        "completion_tokens": sum(r.usage.completion_tokens for r in results),
        "cached_tokens": sum(r.usage.cached_tokens for r in results),
        "latency_ms": round(sum(r.latency_ms for r in results), 1),
        "calls": len(results),
    }


def thought_record(
    result: ThinkResult, steps: Sequence[Step], next_look_at: datetime | None, landed_at: datetime
) -> dict[str, Any]:
    """The thought's line in thoughts.jsonl: spec 1.5's fields, then `applied` (its steps as they landed)."""
    ctx = result.ctx
    record: dict[str, Any] = {
        "id": ctx.thought_id,
        "at": ctx.at.isoformat(),
        "employee": ctx.employee,
        "conversation": ctx.conversation,
        "trigger": ctx.trigger.value,
        "thought": result.thought.to_record() if result.thought else None,
        "spoke": bool(result.posted),
        "gate": result.gate.value if result.gate else None,
        "llm": llm_record(result.results) if result.results is not None else result.usage,
        "corrections": result.corrections,
        "next_look_at": next_look_at.isoformat() if next_look_at else None,
        "messages": result.posted,
        "rethink": ctx.rethinks > 0,
    }
    if result.error:
        record["error"] = result.error
    record["applied"] = {
        "format": APPLIED_FORMAT,
        "at": landed_at.isoformat(),
        "note": ctx.note,
        "rethinks": ctx.rethinks,
        "began": ctx.began,
        "steps": [step.to_record() for step in steps],
    }
    if result.rethink is not None:
        record["applied"]["rethink_note"] = result.rethink
    if result.stop is not None:
        record["applied"]["stop"] = {"reason": result.stop[0], "failed": result.stop[1]}
    return record


def result_from_record(record: dict[str, Any]) -> ThinkResult:
    """A logged thought as a `ThinkResult` that resolves to what it did (nothing is drawn again)."""
    applied = record.get("applied") or {}
    steps = [step_from_record(s) for s in applied.get("steps") or ()]
    read_upto = next((s.read[1] for s in steps if isinstance(s, MindStep) and s.read), 0)
    ctx = ThinkContext(
        thought_id=record["id"],
        employee=record["employee"],
        conversation=record["conversation"],
        trigger=Trigger(record["trigger"]),
        at=datetime.fromisoformat(record["at"]),
        read_upto=read_upto,
        mentioned=False,
        call=None,  # type: ignore[arg-type]  # a logged think has no call in flight
        note=applied.get("note") or "",
        rethinks=int(applied.get("rethinks") or 0),
        began=applied.get("began") or {},
    )
    stop = applied.get("stop")
    next_look = record.get("next_look_at")
    result = ThinkResult(
        ctx,
        Thought.model_validate(record["thought"]) if record.get("thought") else None,
        None,
        Gate(record["gate"]) if record.get("gate") else None,
        steps=steps,
        corrections=list(record.get("corrections") or ()),
        posted=[s.message_id for s in steps if isinstance(s, DraftStep) and s.message_id],
        error=record.get("error"),
        look_at=datetime.fromisoformat(next_look) if next_look else None,
        rethink=applied.get("rethink_note"),
        stop=(stop["reason"], bool(stop["failed"])) if stop else None,
        usage=record.get("llm"),
    )
    return result
