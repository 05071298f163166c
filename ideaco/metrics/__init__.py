"""Collaboration metrics of a run, read from its logs and never re-simulated (docs/evaluation.md).

`evaluate(run)` returns the report's `collaboration` section: boss lines replied to (any later
message of an employee they name) and answered (by the employee they address, in person), tasks and
what a resolved one cost, repetition and echo, silences by gate, words per message, mention latency,
who talks to whom, persona spread, mood and affinity over time, and `summary`: one number per
metric (what a sweep compares across variants, `SUMMARY` lists them).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ideaco import reviews
from ideaco.analysis import History, history, relationship_table
from ideaco.cycle import Gate
from ideaco.ids import BOSS, SECRETARY
from ideaco.kinds import StepKind
from ideaco.metrics import responses, social, text
from ideaco.mind.tasks import FAILED, PENDING, RESOLVED
from ideaco.office.core.documents import APPROVED
from ideaco.store.runlog import RunLog, applied_at
from ideaco.store.usage import usage_totals

# The gates `summary` gives a silence rate for (a superseded, failed or over-budget thought is no silence).
SILENCE_GATES = tuple(g.value for g in Gate if g not in (Gate.SUPERSEDED, Gate.BUDGET, Gate.ERROR))


@dataclass(frozen=True)
class Metric:
    """One number of `summary`: its key, a label for tables, and whether more is better (None: neither)."""

    key: str
    label: str
    better: str | None = None  # "higher", "lower" or None
    kind: str = "behaviour"  # "cost" or "behaviour"


SUMMARY = (
    Metric("calls", "model calls", "lower", "cost"),
    Metric("tokens", "tokens (prompt + completion)", "lower", "cost"),
    Metric("calls_per_employee_hour", "calls per employee-hour", "lower", "cost"),
    Metric("calls_per_agent_message", "calls per agent message", "lower", "cost"),
    Metric("agent_messages", "agent messages"),
    Metric("speak_rate", "thoughts that spoke"),
    Metric("silence_saturation", "silenced by saturation"),
    Metric("silence_anti_spam", "silenced by anti-spam"),
    Metric("silence_cooldown", "silenced by cooldown"),
    Metric("silence_loop_breaker", "silenced by a loop breaker"),
    Metric("silence_filtered", "drafts filtered (echo, placeholder, degenerate)"),
    Metric("silence_chose_silence", "chose silence"),
    Metric("boss_replied_rate", "boss lines replied to", "higher"),
    Metric("boss_answered_rate", "boss lines answered by the addressee", "higher"),
    Metric("boss_reply_latency_s", "boss reply latency, median", "lower"),
    Metric("mention_replied_rate", "mentions replied to", "higher"),
    Metric("mention_latency_s", "mention reply latency, median", "lower"),
    Metric("tasks_created", "tasks created"),
    Metric("tasks_resolved", "tasks resolved", "higher"),
    Metric("task_resolve_s", "time to resolve a task, median", "lower"),
    Metric("calls_per_resolved_task", "calls per resolved task", "lower", "cost"),
    Metric("documents_approved", "documents approved", "higher"),
    Metric("review_rejection_rate", "review verdicts that rejected"),
    Metric("calls_per_approved_document", "calls per approved document", "lower", "cost"),
    Metric("requirement_approval_s", "requirement to the boss's approval, median", "lower"),
    Metric("duplicate_rate", "duplicate messages", "lower"),
    Metric("near_duplicate_rate", "near-duplicate messages", "lower"),
    Metric("echo", "echo of earlier text", "lower"),
    Metric("words_per_message", "words per message"),
    Metric("talk_pairs", "pairs who talk"),
    Metric("talk_reciprocity", "pairs who talk back", "higher"),
    Metric("persona_spread", "persona spread (CV)"),
    Metric("interest_mean", "mean interest"),
    Metric("saturation_mean", "mean saturation"),
    Metric("comfort_end_mean", "comfort at the end (mean)", "higher"),
    Metric("affinity_end_mean", "affinity at the end (mean)"),
)


def evaluate(run: RunLog, hist: History | None = None) -> dict[str, Any]:
    """The collaboration section of a run's report (JSON-ready)."""
    hist = hist or history(run)
    employees = {e.id: e for e in run.employees}
    agents = set(employees)
    messages = run.messages
    hours = max((run.end - run.start).total_seconds() / 3600, 1e-9)
    staff = [e for e in employees if e != SECRETARY]

    thoughts_by = _count(t["employee"] for t in run.thoughts)
    spoke_by = _count(t["employee"] for t in run.thoughts if t.get("spoke"))
    messages_by = _count(m["sender"] for m in messages)
    usage = usage_totals(run.thoughts)
    calls, tokens = usage["calls"], usage["tokens"]
    agent_messages = sum(n for who, n in messages_by.items() if who in agents)

    boss = responses.boss_lines(messages, agents, {e.id: e.name for e in run.employees})
    mentions = responses.mention_latency(messages, agents)
    words = text.repetition(messages, agents)
    edges = social.talk_edges(messages, agents | {BOSS})
    archetypes = {e: _archetype(employees[e].persona) for e in staff}
    spread = social.persona_spread(archetypes, messages_by, thoughts_by, spoke_by, hours)
    mood = social.mood(run.thoughts)
    task = _tasks(hist, run, calls, tokens)
    silences = _silences(run.thoughts)
    comfort = {e: pts[-1].comfort for e, pts in hist.stamina.items() if e in agents and pts}
    affinities = [row["affinity"] for e in staff for row in relationship_table(hist, e, run.end).values()]
    work = reviews.documents(run.thoughts)
    approved = sum(d["status"] == APPROVED for d in work["documents"])
    verdicts = sum(t["reviews"] for t in work["reviewers"].values())
    rejections = sum(t["rejections"] for t in work["reviewers"].values())
    summary = {
        "calls": calls,
        "tokens": tokens,
        "calls_per_employee_hour": round(calls / max(len(staff), 1) / hours, 3),
        "calls_per_agent_message": round(calls / agent_messages, 3) if agent_messages else None,
        "agent_messages": agent_messages,
        "speak_rate": round(sum(spoke_by.values()) / len(run.thoughts), 4) if run.thoughts else None,
        **{f"silence_{g}": silences["rates"].get(g, 0.0) for g in SILENCE_GATES},
        "boss_replied_rate": boss["replied_rate"],
        "boss_answered_rate": boss["answered_rate"],
        "boss_reply_latency_s": boss["latency"]["median_s"],
        "mention_replied_rate": mentions["replied_rate"],
        "mention_latency_s": mentions["latency"]["median_s"],
        "tasks_created": task["created"],
        "tasks_resolved": task[RESOLVED],
        "task_resolve_s": task["time_to_resolve"]["median_s"],
        "calls_per_resolved_task": task["per_resolved"]["calls"],
        "documents_approved": approved,
        "review_rejection_rate": round(rejections / verdicts, 4) if verdicts else None,
        "calls_per_approved_document": round(calls / approved, 3) if approved else None,
        "requirement_approval_s": responses.latency_summary(
            [
                r["approved_after_s"]
                for r in reviews.requirements(run.thoughts, run.changes)
                if r["approved_after_s"] is not None
            ]
        )["median_s"],
        "duplicate_rate": words["duplicate_rate"],
        "near_duplicate_rate": words["near_duplicate_rate"],
        "echo": words["echo"],
        "words_per_message": words["words_per_message"]["mean"],
        **{f"talk_{k}": v for k, v in social.graph_summary(edges).items() if k != "to_boss_share"},
        "persona_spread": spread["spread"],
        "interest_mean": mood["interest_mean"],
        "saturation_mean": mood["saturation_mean"],
        "comfort_end_mean": round(statistics.fmean(comfort.values()), 3) if comfort else None,
        "affinity_end_mean": round(statistics.fmean(affinities), 3) if affinities else None,
    }
    return {
        "summary": {m.key: summary[m.key] for m in SUMMARY},
        "boss": boss,
        "mentions": mentions,
        "tasks": task,
        "silences": silences,
        "messages": words,
        "talk": {"edges": edges, **social.graph_summary(edges)},
        "personas": spread,
        "mood": mood,
        "affinity": affinity_trajectories(run),
        "comfort_end": {e: round(c, 3) for e, c in sorted(comfort.items())},
    }


def _count(items: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for item in items:
        out[item] = out.get(item, 0) + 1
    return out


def _archetype(persona: dict[str, Any]) -> str:
    return str(persona.get("archetype") or persona.get("id") or "none")


def _silences(thoughts: list[dict[str, Any]]) -> dict[str, Any]:
    """Thoughts held by each gate, as counts and as shares of all thoughts."""
    gates = _count(t.get("gate") for t in thoughts if not t.get("spoke") and t.get("gate"))
    n = len(thoughts)
    return {
        "thoughts": n,
        "silent": sum(1 for t in thoughts if not t.get("spoke")),
        "rate": round(sum(1 for t in thoughts if not t.get("spoke")) / n, 4) if n else None,
        "by_gate": dict(sorted(gates.items())),
        "rates": {g: round(c / n, 4) for g, c in sorted(gates.items())} if n else {},
    }


def _tasks(hist: History, run: RunLog, calls: int, tokens: int) -> dict[str, Any]:
    """Tasks created, claimed (with a claim key), refused claims, resolved and failed; time and cost."""
    rows = list(hist.tasks.values())
    status = _count(r.get("status", PENDING) for r in rows)
    resolved = [r for r in rows if r.get("status") == RESOLVED]
    times = [
        (datetime.fromisoformat(r["resolved_at"]) - datetime.fromisoformat(r["created_at"])).total_seconds()
        for r in resolved
        if r.get("resolved_at") and r.get("created_at")
    ]
    n = len(resolved)
    return {
        "created": len(rows),
        "claimed": sum(1 for r in rows if r.get("claim_key")),
        "claims_refused": _claims_refused(run),
        RESOLVED: n,
        FAILED: status.get(FAILED, 0),
        PENDING: status.get(PENDING, 0),
        "time_to_resolve": responses.latency_summary(times),
        "per_resolved": {
            "calls": round(calls / n, 2) if n else None,
            "tokens": round(tokens / n, 1) if n else None,
        },
    }


REFUSED_CLAIM = "Your task claim '"


def _claims_refused(run: RunLog) -> int:
    """Claims refused: the engine's note to a claimant, counted when it first lands in its notes."""
    seen: dict[str, list[str]] = {}
    refused = 0
    for rec in sorted(run.thoughts, key=applied_at):
        for step in (rec.get("applied") or {}).get("steps") or ():
            if step.get("step") != StepKind.MIND or "notes" not in step:
                continue
            before = seen.get(step["employee"], [])
            refused += sum(1 for n in step["notes"] if n.startswith(REFUSED_CLAIM) and n not in before)
            seen[step["employee"]] = step["notes"]
    return refused


def affinity_trajectories(run: RunLog) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Each affinity as it changed: employee -> colleague -> [{at, before, after}], from `applied`."""
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for rec in sorted(run.thoughts, key=applied_at):
        at = applied_at(rec).isoformat()
        for step in (rec.get("applied") or {}).get("steps") or ():
            if step.get("step") != StepKind.MIND:
                continue
            for change in step.get("relationships") or ():
                if change.get("removed"):
                    continue
                out.setdefault(step["employee"], {}).setdefault(change["employee"], []).append(
                    {"at": at, "before": change["before"], "after": change["after"]}
                )
    return out
