"""The mean of a benchmark's sample and its standard error (one value per pair of duplicate
games, per decision, per game...), shared by the benchmark scripts beside this file.

>>> mean_stderr([1.0, 2.0, 3.0])
(2.0, 0.5773502691896257)
>>> mean_stderr([4.0])
(4.0, nan)
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def mean_stderr(xs: Sequence[float]) -> tuple[float, float]:
    """The mean of ``xs`` and its standard error (sample standard deviation / √n); NaN where
    there are too few values (none: both; one: the error)."""
    n = len(xs)
    if n == 0:
        return math.nan, math.nan
    m = sum(xs) / n
    if n < 2:
        return m, math.nan
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1) / n)
