"""A sweep's plot: for a few metrics, one bar per variant (its mean) with its 95% interval."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ideaco.metrics.units import is_percent
from ideaco.plots import label

KEYS = (
    "calls",
    "tokens",
    "agent_messages",
    "calls_per_agent_message",
    "boss_replied_rate",
    "boss_answered_rate",
    "boss_reply_latency_s",
    "near_duplicate_rate",
    "echo",
    "speak_rate",
)
COLOURS = ("#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363", "#d6616b", "#8c6d31", "#17becf")


def comparison_png(data: Mapping[str, Any], path: Path, keys: Sequence[str] = KEYS) -> Path:
    """A grid of bar charts (mean per variant, whiskers: the 95% interval over seeds)."""
    variants = data["variants"]
    keys = [k for k in keys if k in data["metrics"]]
    cols = 3
    rows = max(1, math.ceil(len(keys) / cols))
    fig = Figure(figsize=(4.2 * cols, 3.0 * rows + 0.6))  # no pyplot: the host's backend is left alone
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False)
    xs = list(range(len(variants)))
    colours = [COLOURS[i % len(COLOURS)] for i in xs]
    for ax, key in zip(axes.flat, keys, strict=False):
        metric = data["metrics"][key]
        scale = 100.0 if is_percent(key) else 1.0
        means, errors = [], [[], []]
        for v in variants:
            stats = metric["by_variant"][v["name"]]
            mean = (stats["mean"] or 0.0) * scale
            means.append(mean)
            low = stats["low"] * scale if stats["low"] is not None else mean
            high = stats["high"] * scale if stats["high"] is not None else mean
            errors[0].append(max(0.0, mean - low))
            errors[1].append(max(0.0, high - mean))
        ax.bar(xs, means, color=colours, yerr=errors, capsize=4, alpha=0.85)
        ax.set_title(label(metric["label"]) + (" (%)" if is_percent(key) else ""), fontsize=9)
        ax.set_xticks(xs, [str(i + 1) for i in xs], fontsize=8)
        ax.tick_params(axis="y", labelsize=8)
    for ax in list(axes.flat)[len(keys) :]:
        ax.axis("off")
    legend = [f"{i + 1}: {label(v['label'])} (n={len(v['seeds'])})" for i, v in enumerate(variants)]
    fig.suptitle("Variants compared: mean over seeds, whiskers the 95% interval", fontsize=11)
    fig.text(0.5, 0.01, "   ".join(legend), ha="center", fontsize=8)
    fig.tight_layout(rect=(0, 0.04, 1, 0.96))
    fig.savefig(path, dpi=100)
    return path
