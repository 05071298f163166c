"""A sweep's comparison: per metric and variant, the mean and 95% interval over seeds (Markdown and JSON).

Built from the finished runs' directories alone: each run's metrics are `ideaco.metrics.evaluate`
of its logs, as `ideaco report` computes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ideaco.metrics import SUMMARY
from ideaco.metrics.units import is_percent
from ideaco.sweep.stats import interval


def comparison(
    variants: Sequence[tuple[str, str]],  # (name, label), in order
    per_run: Mapping[str, Mapping[int, Mapping[str, Any]]],  # variant name -> seed -> summary metrics
) -> dict[str, Any]:
    """{metrics: {key: {label, better, kind, by_variant: {name: {n, mean, low, high, values}}}}, variants}."""
    metrics = {}
    for metric in SUMMARY:
        by_variant = {}
        for name, _label in variants:
            runs = per_run.get(name, {})
            values = [runs[seed].get(metric.key) for seed in sorted(runs)]
            # Every metric is >= 0 and a rate <= 1: an interval is clipped to what the metric can be.
            bounds = interval(values).clipped(0.0, 1.0 if is_percent(metric.key) else None)
            by_variant[name] = {**bounds.to_dict(), "values": values}
        metrics[metric.key] = {
            "label": metric.label,
            "better": metric.better,
            "kind": metric.kind,
            "by_variant": by_variant,
        }
    return {
        "variants": [
            {"name": name, "label": label, "seeds": sorted(per_run.get(name, {}))} for name, label in variants
        ],
        "metrics": metrics,
    }


def cell(key: str, stats: Mapping[str, Any], runs: int | None = None) -> str:
    """`12.3 [10.1, 14.5]`: the mean and its 95% interval (rates in %); `-` when no run has a value.

    `(n=k)` follows when only k of the variant's `runs` have a value (a reply latency with nothing
    replied to).
    """
    if stats["mean"] is None:
        return "-"
    fmt = _formatter(key)
    if stats["low"] is None:
        return f"{fmt(stats['mean'])} (n=1)"
    partial = f" (n={stats['n']})" if runs is not None and stats["n"] < runs else ""
    return f"{fmt(stats['mean'])} [{fmt(stats['low'])}, {fmt(stats['high'])}]{partial}"


def _formatter(key: str):
    if is_percent(key):
        return lambda x: f"{100 * x:.1f}%"
    if key.endswith("_s"):
        return lambda x: f"{x:.0f} s"
    return lambda x: f"{x:,.0f}" if abs(x) >= 100 else f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"


def markdown(data: Mapping[str, Any], *, title: str, notes: Sequence[str] = ()) -> str:
    """The comparison as a Markdown document: one row per metric, one column per variant."""
    variants = data["variants"]
    head = ["metric", *(f"{v['label']} (n={len(v['seeds'])})" for v in variants)]
    lines = [
        f"# {title}",
        "",
        *(f"{note}  " for note in notes),
        "",
        "| " + " | ".join(head) + " |",
        "|" + "|".join(["---"] + ["---:"] * len(variants)) + "|",
    ]
    for key, metric in data["metrics"].items():
        arrow = {"higher": " ↑", "lower": " ↓"}.get(metric["better"] or "", "")
        cells = [cell(key, metric["by_variant"][v["name"]], len(v["seeds"])) for v in variants]
        lines.append(f"| {metric['label']}{arrow} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "Each cell: the mean over seeds [95% interval: mean ± t(0.975, n−1)·s/√n, clipped to what the "
        "metric can be: 0 and up, rates up to 100%]. ↑/↓: which way is better, where one is. Metrics are "
        "defined in docs/evaluation.md.",
    ]
    return "\n".join(lines) + "\n"
