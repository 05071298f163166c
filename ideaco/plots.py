"""PNG plots of a run, written into its run directory: relationships, stamina, activity, who talks to whom.

matplotlib only, through its object API (a `Figure` rendered by the Agg canvas), never pyplot: the
host process's backend and pyplot's figures (a notebook's) are left as they are.
"""

from __future__ import annotations

import io
import math
from datetime import datetime
from pathlib import Path
from typing import Any

import matplotlib
import matplotlib.dates as mdates
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch

from ideaco.analysis import NO_TEXT, History, RunData, history
from ideaco.cycle import Gate
from ideaco.ids import BOSS, display_name
from ideaco.metrics.social import talk_edges
from ideaco.mind import relationships, stamina
from ideaco.store.atomic import atomic_write_bytes
from ideaco.store.rundir import check_regular_or_missing

DPI = 100
PLOTS = ("relationships.png", "stamina.png", "activity.png", "talk.png")
AFFINITY_CMAP = "RdYlGn"
# Thought outcomes, in legend order: spoke first, then the gates of spec 1.5.
OUTCOME_COLOURS = {
    "spoke": "#1a9850",
    Gate.CHOSE_SILENCE.value: "#9e9e9e",
    Gate.SATURATION.value: "#fdae61",
    Gate.ANTI_SPAM.value: "#d73027",
    Gate.COOLDOWN.value: "#f46d43",
    Gate.LOOP_BREAKER.value: "#762a83",
    Gate.FILTERED.value: "#8c510a",
    Gate.SUPERSEDED.value: "#4575b4",
    Gate.BUDGET.value: "#000000",
    Gate.ERROR.value: "#e7298a",
    NO_TEXT: "#c2a5cf",
}


def label(text: str) -> str:
    """Agent-chosen text drawn literally: no mathtext ($), no control characters."""
    return "".join(c if c.isprintable() else "?" for c in text).replace("$", r"\$")


def _save(fig: Any, path: Path) -> Path:
    """Render in memory, then replace the file atomically: never written through a link left there."""
    buffer = io.BytesIO()
    fig.savefig(buffer, dpi=DPI, format="png")  # by the Agg canvas `_figure` attached
    check_regular_or_missing(path)
    atomic_write_bytes(path, buffer.getvalue())
    return path


def _figure(figsize: tuple[float, float]) -> tuple[Figure, Any]:
    """A figure of its own with one axes, drawn by the Agg canvas (no pyplot, no global state)."""
    fig = Figure(figsize=figsize)
    FigureCanvasAgg(fig)
    return fig, fig.subplots()


def _time_axis(ax: Any) -> None:
    ax.xaxis.set_major_formatter(mdates.DateFormatter("%H:%M"))
    ax.set_xlabel("simulated time")


def relationships_png(run: RunData, hist: History, path: Path) -> Path:
    """Employees on a circle; an arrow A -> B for what A thinks of B, coloured and labelled by affinity."""
    people = run.employees
    n = max(len(people), 1)
    pos = {
        e.id: (math.cos(math.pi / 2 - 2 * math.pi * i / n), math.sin(math.pi / 2 - 2 * math.pi * i / n))
        for i, e in enumerate(people)
    }
    cmap, norm = matplotlib.colormaps[AFFINITY_CMAP], Normalize(1, 100)
    fig, ax = _figure((7.5, 7.5))
    end, edges = run.end, 0
    for emp in people:
        for other, row in sorted(hist.relations.get(emp.id, {}).items()):
            if other not in pos or other == emp.id or row["relation"] is None:
                continue
            value = relationships.current_affinity(relationships.Relation.from_dict(row["relation"]), end)
            (x1, y1), (x2, y2) = pos[emp.id], pos[other]
            # Curved the same way for both directions, so A->B and B->A lie on opposite sides.
            ax.add_patch(
                FancyArrowPatch(
                    (x1, y1),
                    (x2, y2),
                    connectionstyle="arc3,rad=0.18",
                    arrowstyle="-|>",
                    mutation_scale=16,
                    shrinkA=24,
                    shrinkB=24,
                    color=cmap(norm(value)),
                    linewidth=2,
                    zorder=1,
                )
            )
            # arc3 bends toward mid + rad*(dy, -dx); a quadratic curve's middle is half-way there.
            mx, my, dx, dy = (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1
            ax.text(
                mx + 0.09 * dy,
                my - 0.09 * dx,
                f"{relationships.shown(value)}",
                fontsize=8,
                ha="center",
                va="center",
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": cmap(norm(value)), "lw": 0.8},
                zorder=3,
            )
            edges += 1
    for emp in people:
        x, y = pos[emp.id]
        ax.scatter([x], [y], s=1400, color="#deebf7", edgecolors="#3182bd", zorder=2)
        ax.text(x, y, label(emp.name), ha="center", va="center", fontsize=9, zorder=4)
    if not edges:
        ax.text(0, 0, "no impressions recorded", ha="center", va="center", color="grey")
    fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, shrink=0.6, label="affinity (1-100)")
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title(f"Relationships at {end:%H:%M} (A \u2192 B: what A thinks of B)")
    fig.tight_layout()
    return _save(fig, path)


def stamina_png(run: RunData, hist: History, path: Path) -> Path:
    """Comfort over simulated time per employee, over the red / yellow / green zone bands."""
    fig, ax = _figure((10, 5))
    ax.axhspan(0, stamina.RED_BELOW, color="#f4cccc", alpha=0.6, lw=0)
    ax.axhspan(stamina.RED_BELOW, stamina.GREEN_ABOVE, color="#fff2cc", alpha=0.6, lw=0)
    ax.axhspan(stamina.GREEN_ABOVE, 100, color="#d9ead3", alpha=0.6, lw=0)
    names = run.names
    for eid, points in hist.stamina.items():
        if len(points) < 2:
            continue
        ax.plot(
            [p.at for p in points],
            [p.comfort for p in points],
            marker=".",
            markersize=3,
            linewidth=1.3,
            label=label(names.get(eid, eid)),
        )
    ax.set_xlim(run.start, run.end)
    ax.set_ylim(0, 102)
    ax.set_ylabel("comfort")
    _time_axis(ax)
    ax.set_title("Comfort over simulated time (as each thought applied it)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    return _save(fig, path)


def activity_png(run: RunData, path: Path) -> Path:
    """A row per employee: each thought a tick at its time, coloured by outcome (spoke or gate)."""
    people = run.employees
    rows = {e.id: i for i, e in enumerate(reversed(people))}
    fig, ax = _figure((11, 1.2 + 0.55 * max(len(rows), 1)))
    seen: dict[str, list[datetime]] = {}
    ys: dict[str, list[int]] = {}
    for rec in run.thoughts:
        if rec["employee"] not in rows:
            continue
        outcome = "spoke" if rec.get("spoke") else rec.get("gate") or NO_TEXT
        seen.setdefault(outcome, []).append(datetime.fromisoformat(rec["at"]))
        ys.setdefault(outcome, []).append(rows[rec["employee"]])
    for outcome, colour in OUTCOME_COLOURS.items():
        if outcome in seen:
            ax.scatter(
                seen[outcome], ys[outcome], marker="|", s=220, linewidths=2, color=colour, label=outcome
            )
    for outcome in sorted(set(seen) - set(OUTCOME_COLOURS)):
        ax.scatter(seen[outcome], ys[outcome], marker="|", s=220, linewidths=2, label=outcome)
    boss = [datetime.fromisoformat(m["at"]) for m in run.messages if m.get("sender") == BOSS]
    for at in boss:
        ax.axvline(at, color="#d62728", alpha=0.25, lw=1)
    ax.set_yticks(list(rows.values()), [label(e.name) for e in reversed(people)])
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlim(run.start, run.end)
    _time_axis(ax)
    ax.set_title("Thoughts by outcome" + (" (red lines: boss messages)" if boss else ""))
    if seen:
        ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8, frameon=False)
    fig.tight_layout()
    return _save(fig, path)


def talk_png(run: RunData, path: Path) -> Path:
    """Who talks to whom: people on a circle (the boss at the top), an arrow A -> B as wide as A's messages to B."""
    edges = talk_edges(run.messages, {e.id for e in run.employees} | {BOSS})
    names = {**run.names, BOSS: display_name(BOSS)}
    people = [BOSS, *(e.id for e in run.employees)]
    n = len(people)
    pos = {
        p: (math.cos(math.pi / 2 - 2 * math.pi * i / n), math.sin(math.pi / 2 - 2 * math.pi * i / n))
        for i, p in enumerate(people)
    }
    most = max((e["count"] for e in edges), default=1)
    fig, ax = _figure((7.5, 7.5))
    for edge in edges:
        (x1, y1), (x2, y2) = pos[edge["from"]], pos[edge["to"]]
        ax.add_patch(
            FancyArrowPatch(
                (x1, y1),
                (x2, y2),
                connectionstyle="arc3,rad=0.18",
                arrowstyle="-|>",
                mutation_scale=14,
                shrinkA=24,
                shrinkB=24,
                color="#3182bd",
                alpha=0.75,
                linewidth=0.6 + 5.4 * edge["count"] / most,
                zorder=1,
            )
        )
        mx, my, dx, dy = (x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1
        ax.text(
            mx + 0.09 * dy,
            my - 0.09 * dx,
            str(edge["count"]),
            fontsize=8,
            ha="center",
            va="center",
            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "#3182bd", "lw": 0.6},
            zorder=3,
        )
    for who, (x, y) in pos.items():
        face = "#fde0dd" if who == BOSS else "#deebf7"
        ax.scatter([x], [y], s=1400, color=face, edgecolors="#3182bd", zorder=2)
        ax.text(x, y, label(names.get(who, who)), ha="center", va="center", fontsize=9, zorder=4)
    if not edges:
        ax.text(0, 0, "nobody talked", ha="center", va="center", color="grey")
    ax.set_xlim(-1.35, 1.35)
    ax.set_ylim(-1.35, 1.35)
    ax.set_aspect("equal")
    ax.axis("off")
    ax.set_title("Who talks to whom (A \u2192 B: messages from A to B; docs/evaluation.md)")
    fig.tight_layout()
    return _save(fig, path)


def write_plots(run: RunData, hist: History | None = None, out_dir: Path | None = None) -> list[Path]:
    """Write relationships.png, stamina.png, activity.png and talk.png (into the run directory); return their paths."""
    out = Path(out_dir or run.path)
    for name in PLOTS:  # all four checked first: a refused plot leaves none replaced
        check_regular_or_missing(out / name)
    hist = hist or history(run)
    relationships, stamina, activity, talk = (out / name for name in PLOTS)
    return [
        relationships_png(run, hist, relationships),
        stamina_png(run, hist, stamina),
        activity_png(run, activity),
        talk_png(run, talk),
    ]
