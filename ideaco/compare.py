"""Two runs side by side (issue 39): where they part, and their metrics from that moment on.

Pure functions over `RunLog`, nothing written and nothing re-simulated. `compare(a, b)` walks both
messages.jsonl in order to the first message that differs (by `at`, conversation, sender and text),
reads each run's `fork.json` (a fork's origin, moment and changes; a missing or malformed one means
"not a fork") and measures both runs from the moment they part: the fork's moment when one is a fork
of the other (or both of one run at one moment), else the first difference, else their start. The
metrics are `metrics.evaluate`'s summary on a copy of each run whose logs begin at that moment
(`since`), with a few counts beside it (messages per person, thoughts per stamina zone, documents
written). End states (comfort, affinity) are each run's at its end; `docs/evaluation.md` says how
to read an intervention against its control.
"""

from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ideaco import reviews
from ideaco.analysis import History, history
from ideaco.ids import BOSS, SYSTEM
from ideaco.metrics import SUMMARY, Metric, evaluate
from ideaco.metrics.units import value_text
from ideaco.mind.stamina import Zone
from ideaco.store.forks import Fork, change_text, changes_text, read_fork
from ideaco.store.runlog import RunLog, applied_at

MESSAGE_FIELDS = ("at", "conversation", "sender", "text")  # what makes two messages the same
PERSON = "messages."  # the key prefix of a person's messages (`messages.<id>`)

# The counts shown beside `metrics.SUMMARY`, each before the summary key it is listed under.
EXTRA = {
    "agent_messages": (Metric("thoughts", "thoughts"),),
    "documents_approved": (Metric("documents_written", "documents written"),),
    "comfort_end_mean": tuple(
        Metric(f"stamina_{z.value}_rate", f"thoughts begun in the {z.value} zone") for z in Zone
    ),
}
METRICS = tuple(m for s in SUMMARY for m in (*EXTRA.get(s.key, ()), s))


# ----------------------------------------------------------------------------- forks


def _moment(value: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(value).replace(tzinfo=None) if isinstance(value, str) else None
    except ValueError:
        return None


@dataclass(frozen=True)
class Kinship:
    """How two runs are related by forking: B a fork of A (`b_of_a`), A of B (`a_of_b`), or both
    forks of one run at one moment (`siblings`); `changes` each side's, in the order made."""

    relation: str
    origin: Path
    at: datetime
    changes: dict[str, tuple[dict[str, Any], ...]]
    through: int = 0  # forks between the origin and the fork (a fork of a fork): 0 when direct

    def sentence(self, first_day: Any = None, origin: str | None = None) -> str:
        """One line: "B is a fork of A at 10:30:00 with changes: ..." (`origin`: how to name the
        run both siblings come from; its absolute path by default)."""
        when = moment_text(self.at, first_day)
        via = (
            f" (by way of {self.through} other fork{'s' if self.through > 1 else ''})" if self.through else ""
        )
        if self.relation == "siblings":
            return (
                f"A and B are forks of {origin or self.origin} at {when}; "
                f"A's changes: {changes_text(self.changes['a'])}; B's: {changes_text(self.changes['b'])}"
            )
        fork, of = ("B", "A") if self.relation == "b_of_a" else ("A", "B")
        return f"{fork} is a fork of {of} at {when}{via} with changes: {changes_text(self.changes[fork.lower()])}"

    def to_json(self) -> dict[str, Any]:
        return {
            "relation": self.relation,
            "origin": str(self.origin),
            "at": self.at.isoformat(),
            "through": self.through,
            "changes": {side: list(c) for side, c in self.changes.items()},
            "said": {side: [change_text(c) for c in cs] for side, cs in self.changes.items()},
        }


def _descent(child: Fork, ancestor: Path) -> tuple[datetime, tuple[dict[str, Any], ...], int] | None:
    """Where `child` parts from `ancestor` (a run in its lineage): the moment, the changes made from
    there on (each fork's along the chain, read from its own fork.json), the forks between."""
    chain = child.lineage
    for n in range(len(chain) - 1, -1, -1):
        if chain[n][0] == ancestor:
            made = [chain[k + 1][0] for k in range(n, len(chain) - 1)]  # the forks between, in order
            forks = [read_fork(run) for run in made]
            changes = [c for fork in forks if fork is not None for c in fork.changes]
            return chain[n][1], (*changes, *child.changes), len(made)
    return None


def kinship(a: str | Path, b: str | Path) -> Kinship | None:
    """How B and A are related by forking, from their fork.json files; None if neither is a fork of
    the other nor both are forks of one run at one moment."""
    pa, pb = Path(a).resolve(), Path(b).resolve()
    fa, fb = read_fork(pa), read_fork(pb)
    if fb is not None and (found := _descent(fb, pa)):
        return Kinship("b_of_a", pa, found[0], {"a": (), "b": found[1]}, found[2])
    if fa is not None and (found := _descent(fa, pb)):
        return Kinship("a_of_b", pb, found[0], {"a": found[1], "b": ()}, found[2])
    if fa is not None and fb is not None and (fa.origin, fa.at) == (fb.origin, fb.at):
        return Kinship("siblings", fa.origin, fa.at, {"a": fa.changes, "b": fb.changes})
    return None


def moment_text(at: datetime, first_day: Any = None) -> str:
    """A moment as the comparison says it: its time of day, with its date when not the first day."""
    return f"{at:%H:%M:%S}" if first_day is None or at.date() == first_day else f"{at:%Y-%m-%d %H:%M:%S}"


# ----------------------------------------------------------------------------- where they part


def _said(message: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if message is None else {k: message.get(k) for k in MESSAGE_FIELDS}


def first_difference(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The first message, in posting order, where the two runs differ (at, conversation, sender or
    text), each side's (None where a run has no more messages); None if they are the same."""
    for n in range(max(len(a), len(b))):
        x, y = _said(a[n] if n < len(a) else None), _said(b[n] if n < len(b) else None)
        if x != y:
            ats = [datetime.fromisoformat(m["at"]).replace(tzinfo=None) for m in (x, y) if m]
            return {"index": n, "at": min(ats).isoformat(), "a": x, "b": y}
    return None


# ----------------------------------------------------------------------------- from a moment on


def _after(records: list[dict[str, Any]], moment: datetime, when: Any = None) -> list[dict[str, Any]]:
    when = when or (lambda r: datetime.fromisoformat(r["at"]))
    return [r for r in records if when(r).replace(tzinfo=None) >= moment]


@dataclass
class Window(RunLog):
    """A run read from a moment on (`since`); its end is the whole run's, computed once (`evaluate`
    reads `end` once per employee, and `RunLog.end` walks every record: 2 s of 4 on 200 people)."""

    last: datetime | None = None

    @property
    def end(self) -> datetime:
        return self.last if self.last is not None else super().end


def since(run: RunLog, moment: datetime | None) -> Window:
    """A copy of `run` whose logs begin at `moment`: the messages and changes dated from it on, the
    thoughts that landed from it on (`applied.at`: where a fork cuts its past), and whose start is
    that moment, so that rates are per hour from it (None, or a moment not after the start: the
    whole run); `run` itself unchanged."""
    whole = moment is None or moment <= run.start
    state = (
        run.state if whole else dict(run.state) | {"office": dict(run.office) | {"start": moment.isoformat()}}
    )
    return Window(
        run.path,
        state,
        run.messages if whole else _after(run.messages, moment),
        run.thoughts if whole else _after(run.thoughts, moment, applied_at),
        run.summary,
        run.changes if whole else _after(run.changes, moment),
        [],
        last=run.end,
    )


def _tasks_since(hist: History, moment: datetime | None) -> History:
    """The whole run's history (stamina and feelings are states, read at the end) with the tasks
    created or closed from `moment` on."""
    if moment is None:
        return hist

    def touched(task: dict[str, Any]) -> bool:
        return any(
            (when := _moment(task.get(k))) is not None and when >= moment
            for k in ("created_at", "resolved_at")
        )

    return replace(hist, tasks={k: t for k, t in hist.tasks.items() if touched(t)})


def measure(run: RunLog, moment: datetime | None) -> dict[str, Any]:
    """The run's metrics from `moment` on (None: the whole run): `evaluate`'s summary and the counts
    of `EXTRA`, then `messages.<sender>` for everyone who wrote (the system aside)."""
    part = since(run, moment)
    hist = _tasks_since(history(run), moment)
    summary = dict(evaluate(part, hist)["summary"])
    if moment is not None:  # a task created before and closed after counts as closed, not as created
        summary["tasks_created"] = sum(
            1 for t in hist.tasks.values() if (when := _moment(t.get("created_at"))) and when >= moment
        )
    zones = Counter(
        (((t.get("applied") or {}).get("began") or {}).get("stamina") or {}).get("zone")
        for t in part.thoughts
    )
    zones.pop(None, None)
    seen = sum(zones.values())
    summary |= {
        "thoughts": len(part.thoughts),
        "documents_written": reviews.documents(part.thoughts)["written"],
        **{f"stamina_{z.value}_rate": round(zones[z.value] / seen, 4) if seen else None for z in Zone},
    }
    out = {m.key: summary[m.key] for m in METRICS}
    senders = Counter(m["sender"] for m in part.messages if m["sender"] != SYSTEM)
    return out | {f"{PERSON}{who}": n for who, n in sorted(senders.items())}


def difference(a: Any, b: Any) -> Any:
    """b - a, or None when either is missing; floats rounded past their noise."""
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return None
    d = b - a
    return round(d, 6) if isinstance(d, float) else d


# ----------------------------------------------------------------------------- the comparison


@dataclass
class Comparison:
    """Two runs compared: their kinship, where they part, from when they are measured, the metrics."""

    a: RunLog
    b: RunLog
    kinship: Kinship | None
    first: dict[str, Any] | None  # the first differing message (`first_difference`)
    moment: datetime  # measured from here on
    reason: str  # why from then: "fork", "first difference", "start" or "given"
    metrics: dict[str, dict[str, Any]]  # key -> {"a", "b", "difference"}
    warnings: list[str] = field(default_factory=list)

    @property
    def first_day(self) -> Any:
        return min(self.a.start, self.b.start).date()

    def label(self, key: str) -> str:
        """A metric's words: its label, or for `messages.<id>` the person's name."""
        if key.startswith(PERSON):
            who = key.removeprefix(PERSON)
            names = self.b.names | self.a.names | {BOSS: "Boss"}
            return f"messages by {names.get(who, who)}"
        return LABELS.get(key, key)

    def to_json(self) -> dict[str, Any]:
        return {
            "a": str(self.a.path),
            "b": str(self.b.path),
            "fork": self.kinship.to_json() if self.kinship else None,
            "from": self.moment.isoformat(),
            "from_reason": self.reason,
            "first_difference": self.first,
            "metrics": self.metrics,
            "warnings": self.warnings,
        }


LABELS = {m.key: m.label for m in METRICS}
BETTER = {m.key: m.better for m in METRICS}


def scenario_name(run: RunLog) -> str | None:
    scenario = run.office.get("scenario")
    return scenario.get("name") if isinstance(scenario, dict) else None


def compare(a: RunLog, b: RunLog, moment: datetime | None = None) -> Comparison:
    """Compare run B with run A: from `moment` if given, else from where they part (see module)."""
    warnings = [f"A: {w}" for w in a.warnings] + [f"B: {w}" for w in b.warnings]
    if scenario_name(a) != scenario_name(b):
        warnings.append(
            f"A ran scenario {scenario_name(a)!r} and B {scenario_name(b)!r}: compared all the same"
        )
    kin = kinship(a.path, b.path)
    first = first_difference(a.messages, b.messages)
    parted = datetime.fromisoformat(first["at"]) if first else None
    if kin is not None and parted is not None and parted < kin.at:
        warnings.append(
            f"the messages differ at {moment_text(parted)}, before the fork's moment {moment_text(kin.at)}"
        )
    if moment is not None:
        reason = "given"
    elif kin is not None:
        moment, reason = kin.at, "fork"
    elif parted is not None:
        moment, reason = parted, "first difference"
    else:
        moment, reason = min(a.start, b.start), "start"
    ma, mb = measure(a, moment), measure(b, moment)
    keys = [m.key for m in METRICS] + sorted({k for k in (*ma, *mb) if k.startswith(PERSON)})
    metrics = {
        k: {
            "a": ma.get(k, 0 if k.startswith(PERSON) else None),
            "b": mb.get(k, 0 if k.startswith(PERSON) else None),
        }
        for k in keys
    }
    for row in metrics.values():
        row["difference"] = difference(row["a"], row["b"])
    return Comparison(a, b, kin, first, moment, reason, metrics, warnings)


# ----------------------------------------------------------------------------- the plot

COLOURS = ("#3182bd", "#e6550d")  # A, B
ROW_INCHES = 0.34  # the height of one metric's pair of bars


def plot_png(comparison: Comparison) -> bytes:
    """The summary metrics of both runs side by side, a PNG in memory: one row per metric, A's bar
    and B's, each as long as its share of the larger of the two and labelled with its value (a
    metric neither run has a value for is left out). matplotlib's object API, never pyplot; one
    axes, so that a figure of forty rows draws in a fraction of a second."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ideaco.plots import label

    rows = [
        (m.key, [comparison.metrics[m.key][s] for s in ("a", "b")])
        for m in METRICS
        if any(isinstance(comparison.metrics[m.key][s], (int, float)) for s in ("a", "b"))
    ]
    fig = Figure(figsize=(10.0, ROW_INCHES * len(rows) + 1.2))
    FigureCanvasAgg(fig)
    ax = fig.add_axes(
        (0.36, 0.6 / (ROW_INCHES * len(rows) + 1.2), 0.56, 1 - 1.1 / (ROW_INCHES * len(rows) + 1.2))
    )
    for side, (colour, offset) in enumerate(zip(COLOURS, (-0.2, 0.2), strict=True)):
        for y, (key, values) in enumerate(rows):
            top = max((v or 0) for v in values)
            length = (values[side] or 0) / top if top else 0.0
            ax.barh(
                y + offset,
                length,
                height=0.38,
                color=colour,
                alpha=0.85,
                label="AB"[side] if y == 0 else None,
            )
            ax.text(length + 0.01, y + offset, value_text(key, values[side]), va="center", fontsize=7)
    ax.set_yticks(range(len(rows)), [label(comparison.label(k)) for k, _ in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # the first metric at the top
    ax.set_xlim(0, 1.25)
    ax.set_xticks([])
    ax.legend(loc="upper right", bbox_to_anchor=(1.0, 0.0), ncol=2, frameon=False, fontsize=8)  # below
    when = moment_text(comparison.moment, comparison.first_day)
    ax.set_title(
        f"A: {label(str(comparison.a.path.name))}   B: {label(str(comparison.b.path.name))}   from {when}"
        " (each bar: its share of the larger value)",
        fontsize=9,
    )
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=100, format="png")
    return buffer.getvalue()
