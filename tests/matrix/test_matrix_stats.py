"""Exact McNemar against scipy and statsmodels; pairwise comparisons and Holm on pass^N."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests

from assay.matrix.result import Attempt
from assay.matrix.summary import compare_variants, make_cell
from assay.stats.significance import mcnemar_exact


@given(st.integers(0, 60), st.integers(0, 60))
@settings(max_examples=200, deadline=None)
def test_mcnemar_exact_equals_scipy_binomtest(b: int, c: int) -> None:
    expected = 1.0 if b + c == 0 else binomtest(min(b, c), b + c, 0.5).pvalue
    assert mcnemar_exact(b, c) == pytest.approx(expected, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("b,c", [(0, 5), (1, 9), (7, 3), (12, 12), (0, 1), (30, 11)])
def test_mcnemar_exact_equals_statsmodels(b: int, c: int) -> None:
    table = np.array([[10, b], [c, 4]])
    assert mcnemar_exact(b, c) == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)


def _cells(variant: str, outcomes: list[list[bool]]):
    return [
        make_cell(
            variant,
            variant.split("/")[0],
            variant.split("/")[1],
            f"c{i:02d}",
            "",
            [Attempt(repeat=r, passed=ok, assertions={}) for r, ok in enumerate(reps)],
        )
        for i, reps in enumerate(outcomes)
    ]


def test_comparisons_are_mcnemar_on_pass_hat_n_with_holm() -> None:
    rng = np.random.default_rng(7)
    n_cases, repeats = 40, 3
    base = rng.random((n_cases, repeats)) < 0.9
    worse = rng.random((n_cases, repeats)) < 0.45
    same = base.copy()
    cells = (
        _cells("a/x", base.tolist()) + _cells("b/x", worse.tolist()) + _cells("a/y", same.tolist())
    )
    comps = compare_variants(cells, ["a/x", "b/x", "a/y"], "a/x", 0.05)
    pass_all = {"a/x": base.all(1), "b/x": worse.all(1), "a/y": same.all(1)}
    raw = []
    for comp in comps:
        a, b = pass_all["a/x"], pass_all[comp.candidate]
        assert comp.baseline_only == int((a & ~b).sum())
        assert comp.candidate_only == int((b & ~a).sum())
        assert comp.both_pass + comp.neither + comp.baseline_only + comp.candidate_only == 40
        table = [[int((a & b).sum()), comp.baseline_only], [comp.candidate_only, 0]]
        assert comp.p_value == pytest.approx(mcnemar(table, exact=True).pvalue, rel=1e-12)
        raw.append(comp.p_value)
    adjusted = multipletests(raw, method="holm")[1]
    assert [c.p_adjusted for c in comps] == pytest.approx(list(adjusted))
    by = {c.candidate: c for c in comps}
    assert by["b/x"].verdict == "worse" and by["b/x"].delta < 0
    assert by["a/y"].verdict == "no detectable difference" and by["a/y"].p_value == 1.0


def test_flaky_and_pass_hat_n_of_a_cell() -> None:
    (cell,) = _cells("a/x", [[True, False, True]])
    assert cell.passes == 2 and cell.flaky and not cell.pass_all
    assert cell.pass_rate == pytest.approx(2 / 3)
    (solid,) = _cells("a/x", [[True, True]])
    assert solid.pass_all and not solid.flaky


@pytest.mark.parametrize(
    "method,peer",
    [("holm", "holm"), ("bonferroni", "bonferroni"), ("hommel", "hommel"), ("bh", "fdr_bh"),
     ("by", "fdr_by"), ("none", None)],
)  # fmt: skip
def test_comparisons_take_any_correction_as_statsmodels(method: str, peer: str | None) -> None:
    rng = np.random.default_rng(11)
    names = ["a/x", "b/x", "c/x", "d/x"]
    cells = []
    for name, rate in zip(names, (0.9, 0.5, 0.75, 0.85), strict=True):
        cells += _cells(name, (rng.random((30, 2)) < rate).tolist())
    comps = compare_variants(cells, names, "a/x", 0.05, method)
    raw = [c.p_value for c in comps]
    expected = raw if peer is None else list(multipletests(raw, method=peer)[1])
    assert [c.p_adjusted for c in comps] == expected
