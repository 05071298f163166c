"""Mean and 95% interval over seeds: the one statistic a sweep's table shows (docs/evaluation.md)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

# Two-sided 95% quantiles of Student's t, by degrees of freedom (n - 1); 1.96 beyond the table.
T95 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    11: 2.201,
    12: 2.179,
    13: 2.160,
    14: 2.145,
    15: 2.131,
    16: 2.120,
    17: 2.110,
    18: 2.101,
    19: 2.093,
    20: 2.086,
    21: 2.080,
    22: 2.074,
    23: 2.069,
    24: 2.064,
    25: 2.060,
    26: 2.056,
    27: 2.052,
    28: 2.048,
    29: 2.045,
    30: 2.042,
    40: 2.021,
    60: 2.000,
    120: 1.980,
}


def t95(df: int) -> float:
    """The 0.975 quantile of Student's t with `df` degrees of freedom (the nearest tabled df below)."""
    if df < 1:
        raise ValueError("t95 needs at least one degree of freedom")
    return T95.get(df) or T95[max(k for k in T95 if k <= df)] if df <= 120 else 1.96


@dataclass(frozen=True)
class Interval:
    """The mean of n values and its 95% confidence interval (None for n < 2)."""

    n: int
    mean: float | None
    low: float | None
    high: float | None

    def clipped(self, low: float | None, high: float | None) -> Interval:
        """The interval kept within what the quantity can be (a rate within 0-1, a count from 0)."""

        def clip(x: float | None) -> float | None:
            if x is None:
                return None
            x = max(x, low) if low is not None else x
            return min(x, high) if high is not None else x

        return Interval(self.n, self.mean, clip(self.low), clip(self.high))

    def to_dict(self) -> dict[str, float | int | None]:
        return {"n": self.n, "mean": self.mean, "low": self.low, "high": self.high}


def interval(values: Sequence[float | None]) -> Interval:
    """mean ± t(0.975, n-1) · s / √n over the values that are not None (s: the sample standard deviation)."""
    xs = [float(v) for v in values if v is not None]
    if not xs:
        return Interval(0, None, None, None)
    mean = statistics.fmean(xs)
    if len(xs) < 2:
        return Interval(1, _r(mean), None, None)
    half = t95(len(xs) - 1) * statistics.stdev(xs) / math.sqrt(len(xs))
    return Interval(len(xs), _r(mean), _r(mean - half), _r(mean + half))


def _r(x: float) -> float:
    return round(x, 6)
