"""benchmarks/stats.py: the one mean and standard error every benchmark script reports."""

from __future__ import annotations

import doctest
import math
import statistics

from hypothesis import given
from hypothesis import strategies as st

from tests.benchmark_modules import load_benchmark

stats = load_benchmark("stats")


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(stats).failed == 0


@given(st.lists(st.floats(-4.0, 4.0), min_size=2, max_size=60))
def test_the_error_is_the_sample_deviation_over_root_n(xs: list[float]) -> None:
    m, se = stats.mean_stderr(xs)
    assert math.isclose(m, statistics.fmean(xs), abs_tol=1e-12)
    assert math.isclose(se, statistics.stdev(xs) / math.sqrt(len(xs)), rel_tol=1e-9, abs_tol=1e-12)


def test_too_few_values_give_nan_not_an_error() -> None:
    assert all(math.isnan(v) for v in stats.mean_stderr([]))
    m, se = stats.mean_stderr([0.5])
    assert m == 0.5 and math.isnan(se)


def test_the_scripts_report_through_it() -> None:
    strength = load_benchmark("strength")
    judge = load_benchmark("judge")
    tally = strength.Tally()
    for i, (a, b) in enumerate([(1, -2), (2, 2), (-1, 0)]):
        tally.pairs.append(strength.PairResult(index=i, first=a, second=b))
    assert math.isclose(tally.stderr(), stats.mean_stderr([-0.5, 2.0, -0.5])[1])
    assert math.isclose(tally.naive_stderr(), stats.mean_stderr([1, -2, 2, 2, -1, 0])[1])
    score = judge.Score("x", [0.0, 0.01, 0.02])
    assert math.isclose(score.stderr(), stats.mean_stderr([0.0, 0.01, 0.02])[1])
