"""Kappa against scikit-learn, alpha against Krippendorff's published worked example."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from assay.judges.stats import cohen_kappa, confusion, krippendorff_alpha, pairwise_alpha

NAN = math.nan
# Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C:
# 4 observers, 12 units, missing values. Published: nominal .743, ordinal .815,
# interval .849.
RELIABILITY = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]


@pytest.mark.parametrize(
    ("level", "published"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)]
)
def test_alpha_reproduces_krippendorff_2011(level: str, published: float) -> None:
    assert round(krippendorff_alpha(RELIABILITY, level), 3) == published


def test_alpha_matches_the_gpl_package_as_oracle() -> None:
    krippendorff = pytest.importorskip("krippendorff")  # dev-only oracle, never imported by assay
    rng = np.random.default_rng(3)
    data = rng.integers(0, 5, size=(3, 60)).astype(float)
    data[rng.random(data.shape) < 0.2] = np.nan
    for level in ("nominal", "ordinal", "interval"):
        ours = krippendorff_alpha(data, level)
        theirs = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
        assert ours == pytest.approx(theirs, abs=1e-12)


def test_alpha_undefined_when_everyone_agrees_on_one_value() -> None:
    assert krippendorff_alpha([[1, 1, 1], [1, 1, 1]]) is None
    assert krippendorff_alpha([[NAN, NAN]]) is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=80),
    st.sampled_from([None, "linear", "quadratic"]),
)
def test_kappa_equals_scikit_learn(pairs: list[tuple[int, int]], weights: str | None) -> None:
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    _, matrix = confusion(a, b)
    ours = cohen_kappa(matrix, weights or "unweighted")
    with np.errstate(all="ignore"):
        theirs = cohen_kappa_score(a, b, weights=weights)
    if ours is None:
        assert not np.isfinite(theirs) or len(set(a) | set(b)) == 1
    else:
        assert ours == pytest.approx(theirs, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=50))
def test_perfect_agreement_gives_one(grades: list[int]) -> None:
    if len(set(grades)) > 1:
        _, matrix = confusion(grades, grades)
        assert cohen_kappa(matrix) == pytest.approx(1.0)
        assert pairwise_alpha(grades, grades, "ordinal") == pytest.approx(1.0)


def test_confusion_counts_pairs() -> None:
    labels, matrix = confusion([0, 0, 1, 2], [0, 1, 1, 1])
    assert labels == [0, 1, 2]
    assert matrix.tolist() == [[1, 1, 0], [0, 1, 0], [0, 1, 0]]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError):
        cohen_kappa([[1]], "cubic")
    with pytest.raises(ValueError):
        krippendorff_alpha([[1, 2]], "ratio-ish")
