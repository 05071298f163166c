"""The sweep's statistic (mean and 95% interval over seeds) and its table."""

from __future__ import annotations

import pytest

from ideaco.metrics import SUMMARY
from ideaco.sweep.stats import Interval, interval, t95
from ideaco.sweep.table import cell, comparison, markdown


def test_t_quantiles() -> None:
    assert t95(1) == 12.706 and t95(4) == 2.776 and t95(35) == 2.042 and t95(500) == 1.96
    with pytest.raises(ValueError):
        t95(0)


def test_interval_is_mean_plus_minus_t_s_over_root_n() -> None:
    got = interval([1, 2, 3, 4, 5])  # s = 1.5811, t(4) = 2.776
    assert got.n == 5 and got.mean == 3.0
    assert got.low == pytest.approx(3 - 2.776 * 1.5811388 / 5**0.5, abs=1e-5)
    assert got.high == pytest.approx(3 + 2.776 * 1.5811388 / 5**0.5, abs=1e-5)
    assert interval([2.0, None, 2.0]) == Interval(2, 2.0, 2.0, 2.0)  # None: not defined in that run
    assert interval([4.0]) == Interval(1, 4.0, None, None)
    assert interval([None]) == Interval(0, None, None, None)


def test_an_interval_is_clipped_to_what_the_metric_can_be() -> None:
    assert Interval(2, 0.5, -0.4, 1.3).clipped(0.0, 1.0) == Interval(2, 0.5, 0.0, 1.0)
    assert Interval(2, 5.0, -1.0, 11.0).clipped(0.0, None) == Interval(2, 5.0, 0.0, 11.0)


def test_cells_show_mean_and_interval_in_the_metric_s_unit() -> None:
    assert cell("calls", {"mean": 123.4, "low": 100.0, "high": 146.8}) == "123 [100, 147]"
    assert cell("speak_rate", {"mean": 0.25, "low": 0.2, "high": 0.3}) == "25.0% [20.0%, 30.0%]"
    assert cell("boss_reply_latency_s", {"mean": 31.2, "low": 20.0, "high": 42.0}) == "31 s [20 s, 42 s]"
    assert cell("boss_answered_rate", {"mean": 0.9, "low": 0.8, "high": 1.0}) == "90.0% [80.0%, 100.0%]"
    assert cell("words_per_message", {"mean": 6.5, "low": None, "high": None}) == "6.50 (n=1)"
    assert cell("echo", {"mean": None, "low": None, "high": None}) == "-"
    partial = {"n": 3, "mean": 20.0, "low": 10.0, "high": 30.0}
    assert cell("task_resolve_s", partial, runs=5) == "20 s [10 s, 30 s] (n=3)"
    assert cell("task_resolve_s", partial, runs=3) == "20 s [10 s, 30 s]"


def test_the_comparison_has_every_metric_for_every_variant_and_a_markdown_table() -> None:
    runs = {
        "a": {1: {"calls": 10, "speak_rate": 0.5}, 2: {"calls": 14, "speak_rate": 0.7}},
        "b": {1: {"calls": 30, "speak_rate": None}},
    }
    data = comparison([("a", "gates=on"), ("b", "gates=off")], runs)
    assert list(data["metrics"]) == [m.key for m in SUMMARY]
    calls = data["metrics"]["calls"]["by_variant"]
    assert calls["a"]["n"] == 2 and calls["a"]["mean"] == 12.0 and calls["a"]["values"] == [10, 14]
    assert calls["b"] == {"n": 1, "mean": 30.0, "low": None, "high": None, "values": [30]}
    assert [v["seeds"] for v in data["variants"]] == [[1, 2], [1]]
    text = markdown(data, title="T", notes=["a note"])
    assert "| metric | gates=on (n=2) | gates=off (n=1) |" in text
    assert "| model calls ↓ | 12.0 [0.00, 37.4] | 30.0 (n=1) |" in text
    assert "a note" in text
