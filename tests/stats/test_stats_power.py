"""Effect size and normal-approximation power figures, worked by hand."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from assay.stats.power import effect_size, minimum_detectable_difference, queries_needed


def test_effect_size() -> None:
    d = np.array([0.1, 0.2, 0.3])
    assert effect_size(d) == pytest.approx(0.2 / 0.1)
    assert effect_size(np.zeros(5)) == 0.0
    assert effect_size(np.full(4, 0.1)) is None


def test_minimum_detectable_difference_by_hand() -> None:
    """z(0.975) + z(0.8) = 1.95996 + 0.84162 = 2.80158; * 0.1 / sqrt(30) = 0.051150."""
    assert minimum_detectable_difference(0.1, 30) == pytest.approx(0.051150, abs=1e-5)
    assert minimum_detectable_difference(0.1, 0) is None


def test_queries_needed_by_hand() -> None:
    """(2.80158 * 0.1 / 0.02)^2 = 14.0079^2 = 196.22 -> 197 queries."""
    assert queries_needed(0.1, 0.02) == 197
    assert queries_needed(0.001, 0.02) == 2  # tiny spread: the floor of 2 queries


def test_zero_spread_is_not_estimable() -> None:
    """sd 0 gives no spread to extrapolate from: None, not "0.0000" and "2 queries"."""
    assert queries_needed(0.0, 0.02) is None
    assert minimum_detectable_difference(0.0, 30) is None
    assert queries_needed(1e-17, 0.02) is None  # floating-point noise counts as 0
    assert effect_size(np.full(4, 0.1) + np.array([0, 1e-17, 0, 0])) is None


def test_power_is_about_80_percent_at_the_detectable_difference() -> None:
    """Simulate: at the minimum detectable difference a t test rejects ~80% of the time."""
    rng = np.random.default_rng(0)
    n, sd = 200, 0.1
    mdd = minimum_detectable_difference(sd, n)
    d = rng.normal(mdd, sd, size=(2000, n))
    power = float(np.mean(stats.ttest_1samp(d, 0.0, axis=1).pvalue < 0.05))
    assert 0.76 <= power <= 0.84
