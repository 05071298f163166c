"""One thought of `ideaco inspect`'s timeline: what the employee thought, and what that did.

A record with `applied` (state format 2) shows what landed: each draft's verdict (posted, or the
gate and the loop-breaker rule that held it), memories added/changed/removed, each affinity
before -> after, task transitions, stamina events with the zone after, thinks owed, tool outcomes.
An older record shows the ops the model asked for. Agent text is always shown literally.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import datetime
from typing import Any, Protocol

from rich.console import Group
from rich.table import Table
from rich.text import Text

from ideaco.cli.display import safe_text
from ideaco.cycle import Gate
from ideaco.kinds import StepKind
from ideaco.mind.tasks import FAILED, RESOLVED

# Gates under which a thought held no draft back: `inspect` shows them as "silent".
SILENT_GATES = (Gate.CHOSE_SILENCE, Gate.SUPERSEDED, Gate.ERROR, Gate.BUDGET)

CLIP = 160  # ops are shown in compact form; thoughts, messages and reasons in full


class View(Protocol):
    """What the timeline needs to know of the run: names, colours, the first day, posted messages."""

    names: dict[str, str]
    first_day: Any

    def name_of(self, emp: str) -> str: ...

    def colour(self, emp: str) -> str: ...

    def posted(self, record: dict[str, Any]) -> list[dict[str, Any]]: ...


def _at(text: str) -> datetime:
    """A record's simulated time; the simulated clock is naive, so any offset is dropped."""
    try:
        return datetime.fromisoformat(text).replace(tzinfo=None)
    except (TypeError, ValueError):
        return datetime.min


def _clip(text: Any, limit: int = CLIP) -> str:
    text = safe_text(str(text)).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _when(text: str | None, view: View) -> str:
    moment = _at(text or "")
    if moment == datetime.min:
        return safe_text(str(text))
    return moment.strftime("%H:%M:%S" if moment.date() == view.first_day else "%Y-%m-%d %H:%M:%S")


# ---------------------------------------------------------------------------- what was applied


def applied_lines(record: dict[str, Any], view: View) -> Iterable[tuple[str, list[str]]]:
    """(label, lines) for what a thought's `applied` steps did, in the order they landed."""
    rows: dict[str, list[str]] = {}
    emp = str(record.get("employee"))
    for step in (record.get("applied") or {}).get("steps") or ():
        kind = step.get("step")
        whose = (
            ""
            if step.get("employee") in (None, emp)
            else f"{_clip(view.name_of(str(step['employee'])), 40)}: "
        )
        if kind == StepKind.DRAFT and not step.get("posted"):
            rule = f" ({step['rule']})" if step.get("rule") else ""
            reopens = f", reopens {_when(step['reopens_at'], view)}" if step.get("reopens_at") else ""
            detail = f": {_clip(step['detail'], 80)}" if step.get("detail") else ""
            rows.setdefault("held", []).append(
                f"{step.get('where')} in {_clip(step.get('conversation'), 40)}: {step.get('gate')}{rule}{reopens}{detail}"
            )
        elif kind == StepKind.DRAFT and step.get("rule"):
            rows.setdefault("reach", []).append(f"{step['posted']}: {step['rule']}, woke fewer")
        elif kind == StepKind.MIND:
            for label, lines in _mind_lines(step, view):
                rows.setdefault(label, []).extend(whose + line for line in lines)
        elif kind == StepKind.OWE:
            rows.setdefault("owed", []).append(
                f"{whose}{step.get('trigger')} in {_clip(step.get('conversation'), 40)}: {_clip(step.get('note'), 80)}"
            )
        elif kind == StepKind.GATE_HOLD:
            rows.setdefault("owed", []).append(
                f"{whose}a reply in {_clip(step.get('conversation'), 40)} when the gate reopens"
            )
        elif kind == StepKind.TOOL:
            mark = "✓" if step.get("ok") else "✗"
            rows.setdefault("tools", []).append(f"{mark} {_clip(step.get('message'))}")
        elif kind == StepKind.EMPLOYEE and step.get("joined"):
            joined = step["joined"]
            rows.setdefault("company", []).append(
                f"+ {_clip(joined.get('name'), 40)} ({joined.get('id')}), {_clip(joined.get('role'), 60)}"
            )
        elif kind == StepKind.EMPLOYEE and step.get("fields", {}).get("dismissed"):
            rows.setdefault("company", []).append(f"- {_clip(view.name_of(str(step.get('id'))), 40)} left")
        elif kind == StepKind.CONVERSATION and step.get("opened"):
            rows.setdefault("company", []).append(f"+ room {_clip(step['opened'].get('id'), 40)}")
        elif kind == StepKind.CONVERSATION and step.get("fields", {}).get("closed_until"):
            rows.setdefault("held", []).append(
                f"{_clip(step.get('id'), 40)} closed until {_when(step['fields']['closed_until'], view)}"
            )
    yield from rows.items()


def _mind_lines(step: dict[str, Any], view: View) -> Iterable[tuple[str, list[str]]]:
    memory = step.get("memory") or {}
    lines = []
    for layer in ("long_term", "short_term"):
        short = layer.split("_")[0]
        for item in (memory.get(layer) or {}).get("added") or ():
            lines.append(
                f"+ {item['id']} {short} {item.get('category')} ({item.get('importance')}): {_clip(item.get('content'))}"
            )
        for patch in (memory.get(layer) or {}).get("updated") or ():
            changed = ", ".join(
                f"{k} {_clip(v, 60)}" for k, v in patch.items() if k not in ("id", "updated_at")
            )
            lines.append(f"~ {patch['id']} {short}" + (f": {changed}" if changed else ""))
        for gone in (memory.get(layer) or {}).get("removed") or ():
            lines.append(f"- {gone} {short}")
    if memory.get("summaries"):
        lines += [f"summary of {_clip(c, 40)}: {_clip(t)}" for c, t in memory["summaries"].items()]
    if lines:
        yield "memory", lines
    people = [
        f"{_clip(r.get('name') or view.name_of(r['employee']), 40)} {r['before']:.0f} → {r['after']:.0f}"
        + (f": {_clip(r.get('impression'))}" if r.get("impression") else "")
        for r in step.get("relationships") or ()
        if not r.get("removed")
    ]
    if people:
        yield "people", people
    tasks = step.get("tasks") or {}
    lines = [f"+ [{t['id']}] {_clip(t.get('description'))}" for t in tasks.get("added") or ()]
    for patch in tasks.get("updated") or ():
        if patch.get("status") in (RESOLVED, FAILED):
            lines.append(
                f"{'✓' if patch['status'] == RESOLVED else '✗'} [{patch['id']}] {patch['status']}: {_clip(patch.get('result') or '')}"
            )
        elif patch.get("stalled"):
            lines.append(f"! [{patch['id']}] stalled")
    if lines:
        yield "tasks", lines
    if step.get("stamina"):
        st = step["stamina"]
        delta = " ".join(f"{k} {v:+g}" for k, v in st.get("delta", {}).items() if v)
        yield (
            "stamina",
            [
                f"{' '.join(st.get('events') or []) or 'recovery'}: {delta or 'no change'} → {st['after'].get('zone')}"
            ],
        )


# ---------------------------------------------------------------------------- what the model asked for (format 1)


def op_lines(thought: dict[str, Any], view: View) -> Iterable[tuple[str, list[str]]]:
    """(label, lines) for each kind of op the thought asked for, in compact form."""
    memory = []
    for op in thought.get("memoryOps") or []:
        kind = op.get("op")
        if kind == "add":
            layer = "long" if op.get("type") == "long_term" else "short"
            ttl = f" ttl {op['ttl']}s" if op.get("ttl") else ""
            imp = f" ({op['importance']})" if op.get("importance") is not None else ""
            memory.append(f"+ {layer} {op.get('category')}{imp}{ttl}: {_clip(op.get('content'))}")
        elif kind == "update":
            imp = f" ({op['importance']})" if op.get("importance") is not None else ""
            memory.append(f"~ {_clip(op.get('id'), 40)}{imp}: {_clip(op.get('content') or '')}")
        else:
            memory.append(f"- {_clip(op.get('id'), 40)}")
    people = []
    for op in thought.get("relationshipOps") or []:
        emp = str(op.get("employeeId"))
        who = op.get("name") or view.names.get(emp) or emp
        people.append(f"{_clip(who, 40)} {op.get('affinity')}/100: {_clip(op.get('impression') or '')}")
    tasks = []
    for op in thought.get("taskOps") or []:
        kind = op.get("op")
        if kind == "create":
            extra = "".join(
                f" {label}{_clip(op[key], 40)}"
                for key, label in (("claimKey", "claim "), ("onResolveTarget", "→ "), ("condition", "if "))
                if op.get(key)
            )
            tasks.append(f"+ {op.get('type')}{extra}: {_clip(op.get('description') or '')}")
        else:
            mark = "✓" if kind == "resolve" else "✗"
            why = op.get("result") if kind == "resolve" else op.get("reason")
            tasks.append(f"{mark} {kind} {_clip(op.get('taskId'), 40)}: {_clip(why or '')}")
    for label, lines in (("memory", memory), ("people", people), ("tasks", tasks)):
        if lines:
            yield label, lines


def _action_lines(thought: dict[str, Any]) -> list[str]:
    actions = []
    for act in thought.get("actions") or []:
        args = act.get("args") or {}
        if "to" in args and "content" in args:
            rest = {k: v for k, v in args.items() if k not in ("to", "content")}
            more = f" {_clip(json.dumps(rest, ensure_ascii=False), 60)}" if rest else ""
            actions.append(
                f"{_clip(act.get('tool'), 40)} → {_clip(args['to'], 40)}{more}: {_clip(args['content'])}"
            )
        else:
            actions.append(f"{_clip(act.get('tool'), 40)} {_clip(json.dumps(args, ensure_ascii=False))}")
    return actions


# ---------------------------------------------------------------------------- one thought


def render(record: dict[str, Any], view: View) -> Group:
    """One thought of the timeline: a header line, then labelled rows (empty ones left out)."""
    emp = str(record.get("employee"))
    thought = record.get("thought") if isinstance(record.get("thought"), dict) else {}
    head = Text()
    head.append(_when(record.get("at"), view), style="dim")
    head.append("  ")
    head.append(safe_text(view.name_of(emp)), style=f"bold {view.colour(emp)}")
    head.append(f" in {safe_text(str(record.get('conversation')))}")
    head.append(f" · {safe_text(str(record.get('trigger')))}", style="dim")
    if record.get("rethink"):
        head.append(" · re-think", style="dim")
    head.append(f"  {safe_text(str(record.get('id')))}", style="dim")

    rows = Table.grid(padding=(0, 1))
    rows.add_column(width=9, no_wrap=True, style="dim")
    rows.add_column(overflow="fold")

    def row(label: str, *parts: str | tuple[str, str]) -> None:
        rows.add_row(Text("  " + label), Text.assemble(*parts))

    if thought.get("innerThoughts"):
        row("thinks", (safe_text(str(thought["innerThoughts"])), "italic"))
    if thought:
        row(
            "mood",
            f"interest {thought.get('interestLevel')}/10 · saturation {thought.get('topicSaturation')}/10",
        )
    if record.get("spoke"):
        posted = view.posted(record)
        for message in posted:
            where = message.get("conversation")
            to = f"→ {safe_text(str(where))}: " if where != record.get("conversation") else ""
            row("spoke" if message is posted[0] else "", to, (safe_text(str(message.get("text"))), "green"))
        if not posted:
            ids = ", ".join(safe_text(str(i)) for i in record.get("messages") or [])
            row("spoke", (f"{ids} (not in messages.jsonl)", "green"))
    elif record.get("gate") and "applied" not in record:
        row("held", (safe_text(str(record["gate"])), "bold yellow"))
    elif record.get("gate") in SILENT_GATES:
        row("silent", (safe_text(str(record["gate"])), "bold yellow"))
    if thought.get("reason"):
        row("reason", safe_text(str(thought["reason"])))
    details = applied_lines(record, view) if "applied" in record else op_lines(thought, view)
    for label, lines in details:
        row(label, ("\n".join(lines), "bold yellow" if label == "held" else ""))
    if "applied" not in record and thought.get("memorySummary"):
        row("summary", _clip(thought["memorySummary"], 2 * CLIP))
    if actions := _action_lines(thought):
        row("actions", "\n".join(actions))
    if record.get("corrections"):
        row("fixed", "\n".join(safe_text(str(c)) for c in record["corrections"]))
    if record.get("error"):
        row("error", (safe_text(str(record["error"])), "red"))
    row("", (" · ".join(safe_text(t) for t in _tail(record, view)), "dim"))
    return Group(head, rows, Text())


CAUSES = {"command": "the boss's command", "release": "released from a hold", "begun": "a think begun"}


def render_change(record: dict[str, Any], view: View) -> Group:
    """One change between thoughts (changes.jsonl): what caused it, then what it applied."""
    head = Text()
    head.append(_when(record.get("at"), view), style="dim")
    head.append("  between thoughts: ")
    cause = str(record.get("cause"))
    head.append(safe_text(CAUSES.get(cause, cause)), style="bold")
    if record.get("tool"):
        head.append(f" {safe_text(str(record['tool']))}")
    if record.get("employee"):
        emp = str(record["employee"])
        head.append(" · ")
        head.append(safe_text(view.name_of(emp)), style=f"bold {view.colour(emp)}")
    if record.get("thought"):
        head.append(
            f"  {safe_text(str(record['thought']))} (not logged when the state was saved)", style="dim"
        )
    rows = Table.grid(padding=(0, 1))
    rows.add_column(width=9, no_wrap=True, style="dim")
    rows.add_column(overflow="fold")
    stamina = (record.get("began") or {}).get("stamina")
    if isinstance(stamina, dict):
        axes = " · ".join(f"{axis} {stamina.get(axis, 0):.1f}" for axis in ("patience", "fatigue", "stress"))
        rows.add_row(Text("  stamina"), Text(f"recovered for the idle time: {axes}"))
    as_thought = {"employee": record.get("employee"), "applied": {"steps": record.get("steps") or []}}
    for label, lines in applied_lines(as_thought, view):
        rows.add_row(Text("  " + label), Text(safe_text("\n".join(lines))))
    for step in record.get("steps") or ():
        if step.get("step") == StepKind.MIND and step.get("notes"):
            rows.add_row(Text("  note"), Text(_clip(step["notes"][-1], 2 * CLIP)))
    return Group(head, rows, Text())


def _tail(record: dict[str, Any], view: View) -> list[str]:
    tail = []
    if record.get("next_look_at"):
        tail.append(f"next look {_when(record['next_look_at'], view)}")
    llm = record.get("llm")
    if isinstance(llm, dict):
        cost = f"{llm.get('prompt_tokens', 0)}+{llm.get('completion_tokens', 0)} tok ({llm.get('cached_tokens', 0)} cached)"
        calls = f", {llm['calls']} calls" if (llm.get("calls") or 1) > 1 else ""
        tail.append(f"{cost} · {(llm.get('latency_ms') or 0) / 1000:.1f} s{calls}")
    else:
        tail.append("no model call")
    return tail
