"""``gate --correction``: one-sided bootstrap p-values adjusted over the gated checks."""

from __future__ import annotations

import json

import numpy as np
import pytest
from statsmodels.stats.multitest import multipletests

from assay.core.errors import UsageError
from assay.procedures.gating import run_gate
from assay.stats.bootstrap import noninferiority_pvalues
from helpers_synthetic import synthetic_result


def _pair():
    rng = np.random.default_rng(2)
    base = rng.random(80)
    lang = {"lang": ["en" if i % 2 else "de" for i in range(80)]}
    metrics = {"nDCG@10": base, "RR": base}
    candidate = {
        "nDCG@10": np.clip(base + rng.normal(0.0, 0.05, 80), 0, 1),
        "RR": np.clip(base - 0.004 + rng.normal(0.0, 0.02, 80), 0, 1),
    }
    return (
        synthetic_result("cand", candidate, metadata=lang),
        synthetic_result("base", metrics, metadata=lang),
    )


def test_without_correction_the_gate_is_as_before() -> None:
    cand, base = _pair()
    plain = run_gate(cand, base, ["nDCG@10", "RR"], by=["lang"], n_resamples=500)
    assert plain.correction == "none"
    assert all(c.p_value is None for c in plain.checks)
    assert "p_value" not in json.loads(plain.to_json())["checks"][0]


@pytest.mark.parametrize("method,peer", [("holm", "holm"), ("bh", "fdr_bh"), ("by", "fdr_by")])
def test_checks_are_adjusted_together_as_statsmodels(method: str, peer: str) -> None:
    cand, base = _pair()
    kw = dict(by=["lang"], n_resamples=500, margin=0.01, min_n=10)
    gated = run_gate(cand, base, ["nDCG@10", "RR"], correction=method, **kw)
    rows = [c for c in gated.checks if c.gated]
    assert len(rows) == 6  # 2 metrics x (all queries + 2 slices)
    a = np.array([r["nDCG@10"] for r in base.per_query])
    b = np.array([r["nDCG@10"] for r in cand.per_query])
    first = noninferiority_pvalues((b - a)[None, :], 0.01, n_resamples=500, seed=0)[0]
    assert rows[0].p_value == first
    expected = multipletests([r.p_value for r in rows], method=peer)[1]
    np.testing.assert_array_equal([r.p_adjusted for r in rows], expected)
    assert [r.passed for r in rows] == [p < 0.05 for p in expected]
    assert gated.passed == all(p < 0.05 for p in expected)
    assert gated.correction == method and "correction over the gated checks" in gated.rule


def test_noninferiority_pvalue_reads_the_margin() -> None:
    d = np.random.default_rng(0).normal(0.0, 0.05, (1, 200))
    lax, strict = (noninferiority_pvalues(d, m, n_resamples=2000)[0] for m in (0.05, 0.0))
    assert lax < 0.01 < strict
    assert noninferiority_pvalues(np.full((1, 5), -0.2), 0.01, n_resamples=50)[0] == 1.0


def test_threshold_mode_takes_no_correction() -> None:
    cand, base = _pair()
    with pytest.raises(UsageError, match="noninferiority mode only"):
        run_gate(cand, base, ["RR"], mode="threshold", correction="holm")
