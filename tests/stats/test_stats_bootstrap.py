"""Bootstrap intervals: scipy agreement, seeding, degenerate input, coverage."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from assay.core.errors import UsageError
from assay.stats.bootstrap import (
    bootstrap_ci_rows,
    bootstrap_pvalues_rows,
    paired_bootstrap_ci,
)


def _pair(n: int = 40, shift: float = 0.05, seed: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    return a, a + shift + rng.normal(0, 0.1, n)


@pytest.mark.parametrize("method", ["percentile", "bca"])
def test_ci_equals_scipy_bootstrap_on_the_differences(method: str) -> None:
    a, b = _pair()
    low, high = paired_bootstrap_ci(a, b, method=method, n_resamples=2000, seed=7)
    ref = stats.bootstrap(
        (b - a,),
        np.mean,
        n_resamples=2000,
        method="BCa" if method == "bca" else "percentile",
        rng=np.random.default_rng(7),
    ).confidence_interval
    assert low == pytest.approx(ref.low, abs=1e-12)
    assert high == pytest.approx(ref.high, abs=1e-12)
    assert low < (b - a).mean() < high


def test_ci_is_seeded_and_oriented_candidate_minus_baseline() -> None:
    a, b = _pair(shift=0.2)
    first = paired_bootstrap_ci(a, b, seed=1)
    assert first == paired_bootstrap_ci(a, b, seed=1)
    assert first != paired_bootstrap_ci(a, b, seed=2)
    assert first[0] > 0  # b is clearly higher
    _low, high = paired_bootstrap_ci(b, a, seed=1)
    assert high < 0


def test_constant_differences_give_a_point_interval() -> None:
    assert paired_bootstrap_ci([0.0, 0.5, 1.0], [0.25, 0.75, 1.25]) == (0.25, 0.25)
    assert paired_bootstrap_ci([0.3, 0.4], [0.3, 0.4]) == (0.0, 0.0)


def test_bad_arguments_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="differ in length"):
        paired_bootstrap_ci([1, 2], [1, 2, 3])
    with pytest.raises(UsageError, match="method"):
        paired_bootstrap_ci([1, 2], [2, 3], method="basic")
    with pytest.raises(UsageError, match="no paired values"):
        paired_bootstrap_ci([], [])


def test_percentile_coverage_of_the_true_difference() -> None:
    """300 simulated datasets (n=40, true mean difference 0.03): coverage ~ 0.95."""
    rng = np.random.default_rng(11)
    true = 0.03
    diffs = true + rng.normal(0, 0.15, size=(300, 40))
    low, high = bootstrap_ci_rows(diffs, n_resamples=2000, seed=5)
    coverage = float(np.mean((low <= true) & (true <= high)))
    assert 0.90 <= coverage <= 0.98


def test_bootstrap_test_pvalues() -> None:
    rng = np.random.default_rng(2)
    strong = 0.1 + rng.normal(0, 0.05, 50)
    p = bootstrap_pvalues_rows(np.vstack([strong, np.zeros(50)]), n_resamples=2000)
    assert p[0] == pytest.approx(1 / 2001)
    assert p[1] == 1.0
    # under the null, p-values are roughly uniform: about 5% fall below 0.05
    null = rng.normal(0, 1, size=(400, 30))
    p_null = bootstrap_pvalues_rows(null, n_resamples=500, seed=1)
    assert 0.02 <= float(np.mean(p_null < 0.05)) <= 0.10
