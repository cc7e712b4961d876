"""Paired tests against scipy and exact enumeration; Holm on a textbook example."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats

from assay.stats.significance import (
    holm,
    is_exact,
    paired_pvalues,
    paired_test,
    randomization_pvalues,
)


def _values(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    a = rng.random(n)
    b = np.clip(a + 0.04 + rng.normal(0, 0.12, n), 0, 1)
    return a, b


def _enumerate(d: np.ndarray) -> float:
    """Brute force: fraction of all 2^n sign flips with |sum| >= |observed sum|."""
    obs = abs(d.sum())
    hits = sum(
        abs(np.dot(signs, d)) >= obs - 1e-12
        for signs in itertools.product((1.0, -1.0), repeat=d.size)
    )
    return hits / 2**d.size


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_t_matches_scipy_ttest_rel(seed: int) -> None:
    a, b = _values(30, seed)
    assert paired_test(a, b, test="t") == pytest.approx(stats.ttest_rel(b, a).pvalue, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_wilcoxon_matches_scipy(seed: int) -> None:
    a, b = _values(30, seed)
    b[:3] = a[:3]  # some zero differences
    expected = stats.wilcoxon(b, a).pvalue
    assert paired_test(a, b, test="wilcoxon") == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("test", ["randomization", "t", "wilcoxon", "bootstrap"])
def test_all_zero_differences_give_p_one(test: str) -> None:
    a, _ = _values(25)
    assert paired_test(a, a.copy(), test=test) == 1.0


def test_randomization_exact_equals_enumeration() -> None:
    a, b = _values(10, 4)
    d = b - a
    assert is_exact(10, 10000)
    assert paired_test(a, b) == pytest.approx(_enumerate(d), abs=1e-12)
    # matches scipy's exact paired permutation test too
    ref = stats.permutation_test(
        (d,), np.mean, permutation_type="samples", n_resamples=np.inf
    ).pvalue
    assert paired_test(a, b) == pytest.approx(ref, abs=1e-12)


def test_randomization_monte_carlo_within_sampling_error_of_exact() -> None:
    a, b = _values(13, 5)
    d = (b - a)[None, :]
    exact = float(randomization_pvalues(d, n_permutations=2**13)[0])
    assert exact == pytest.approx(_enumerate(d[0]), abs=1e-12)
    n_perm = 4000  # < 2^13 -> Monte Carlo
    assert not is_exact(13, n_perm)
    mc = float(randomization_pvalues(d, n_permutations=n_perm, seed=9)[0])
    se = np.sqrt(exact * (1 - exact) / n_perm)
    assert abs(mc - exact) <= 4 * se + 1 / (n_perm + 1)


def test_randomization_is_vectorised_over_rows_and_seeded() -> None:
    rows = np.random.default_rng(8).normal(0.02, 0.1, size=(6, 200))
    p = randomization_pvalues(rows, n_permutations=3000, seed=1)
    one_by_one = [randomization_pvalues(r, n_permutations=3000, seed=1)[0] for r in rows]
    assert np.allclose(p, one_by_one)
    assert np.array_equal(p, randomization_pvalues(rows, n_permutations=3000, seed=1))
    assert np.all((p > 0) & (p <= 1))
    assert p.min() >= 1 / 3001


def test_paired_pvalues_rejects_unknown_test() -> None:
    from assay.core.errors import UsageError

    with pytest.raises(UsageError, match="unknown test"):
        paired_pvalues(np.ones((1, 3)), test="anova")


def test_holm_textbook_example() -> None:
    """p = [0.01, 0.04, 0.03, 0.005], m = 4.

    Sorted: 0.005, 0.01, 0.03, 0.04 with multipliers 4, 3, 2, 1:
    0.005*4 = 0.02; 0.01*3 = 0.03; 0.03*2 = 0.06; 0.04*1 = 0.04 -> running max 0.06.
    Back in input order: [0.03, 0.06, 0.06, 0.02].
    """
    assert np.allclose(holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    assert np.allclose(holm([0.5, 0.9]), [1.0, 1.0])  # running max keeps it monotone
    assert holm([]).size == 0
