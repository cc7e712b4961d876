"""``compare`` on synthetic results: pairing, verdicts, Holm, slices, refusals."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from assay.core.errors import UsageError
from assay.stats.compare import compare, unique_names
from assay.stats.models import ComparisonResult
from assay.stats.significance import holm
from helpers_synthetic import synthetic_result


def _systems(n: int = 60, seed: int = 0):
    rng = np.random.default_rng(seed)
    base = rng.random(n)
    worse = np.clip(base - 0.1 + rng.normal(0, 0.05, n), 0, 1)
    same = np.clip(base + rng.normal(0, 0.05, n), 0, 1)
    lang = ["en" if i % 3 else "de" for i in range(n)]
    meta = {"language": lang}
    return (
        synthetic_result("base", {"nDCG@10": base, "RR": base}, metadata=meta),
        synthetic_result("worse", {"nDCG@10": worse, "RR": base}, metadata=meta),
        synthetic_result("noise", {"nDCG@10": same, "RR": same}, metadata=meta),
    )


def test_self_comparison_is_zero_p_one_no_difference() -> None:
    a, _, _ = _systems()
    for test in ("randomization", "t", "wilcoxon", "bootstrap"):
        out = compare([a, a], test=test, by=["language"])
        for c in [*out.comparisons, *out.slices]:
            assert c.delta == 0.0
            assert (c.ci_low, c.ci_high) == (0.0, 0.0)
            assert c.p_value == 1.0 and c.p_adjusted == 1.0
            assert c.verdict == "no detectable difference"
            assert c.effect_size == 0.0
            assert c.ties == c.n and c.wins == c.losses == 0
    assert [s.name for s in out.systems] == ["base", "base#2"]


def test_clear_drop_is_worse_and_holm_is_applied_across_the_report() -> None:
    base, worse, noise = _systems()
    out = compare([base, worse, noise], seed=3)
    by_key = {(c.candidate, c.metric): c for c in out.comparisons}
    drop = by_key[("worse", "nDCG@10")]
    assert drop.verdict == "worse"
    assert drop.delta == pytest.approx(
        np.mean([r["nDCG@10"] for r in worse.per_query])
        - np.mean([r["nDCG@10"] for r in base.per_query])
    )
    assert drop.ci_high < 0 and drop.losses > drop.wins
    assert by_key[("worse", "RR")].verdict == "no detectable difference"
    p = [c.p_value for c in out.comparisons]
    assert np.allclose([c.p_adjusted for c in out.comparisons], holm(p))
    # a non-significant delta is never called a win or a loss
    for c in out.comparisons:
        if c.p_adjusted >= 0.05:
            assert c.verdict == "no detectable difference"
    # losses sorted from the worst; ranks and texts carried along
    losses = [q.delta for q in drop.top_losses]
    assert losses == sorted(losses) and len(losses) == 5
    assert drop.top_losses[0].text.startswith("query ")


def test_t_test_p_value_matches_scipy_on_paired_values() -> None:
    base, worse, _ = _systems()
    out = compare([base, worse], test="t", metrics=["ndcg@10"])
    x = [r["nDCG@10"] for r in base.per_query]
    y = [r["nDCG@10"] for r in worse.per_query]
    assert out.metrics == ["nDCG@10"]
    assert out.comparisons[0].p_value == pytest.approx(stats.ttest_rel(y, x).pvalue, rel=1e-10)


def test_pairs_by_query_id_and_reports_dropped_queries() -> None:
    base, worse, _ = _systems(n=20)
    rows = list(reversed(worse.per_query[:15]))  # other order, 5 queries missing
    partial = worse.model_copy(update={"per_query": rows})
    out = compare([base, partial], metrics=["nDCG@10"])
    assert out.n_queries == 15
    assert out.systems[0].unpaired == 5
    assert any("left out" in w for w in out.warnings)
    pq = {q.query_id: q for q in out.per_query}
    row = base.per_query[3]
    assert pq[row["query_id"]].values["base"]["nDCG@10"] == row["nDCG@10"]
    assert worse.per_query is not rows and len(worse.per_query) == 20  # input untouched


def test_slices_have_their_own_counts_and_verdicts() -> None:
    base, worse, _ = _systems()
    out = compare([base, worse], by=["language"], metrics=["nDCG@10"])
    sl = {s.value: s for s in out.slices}
    assert set(sl) == {"de", "en"}
    assert sl["de"].n + sl["en"].n == out.n_queries
    assert sl["en"].verdict == "worse"
    assert out.per_query[0].slices["language"] in ("de", "en")


def test_version_mismatch_is_refused_unless_allowed() -> None:
    base, worse, _ = _systems()
    other = worse.model_copy(
        update={"judgments": worse.judgments.model_copy(update={"version": "v2"})}
    )
    with pytest.raises(UsageError, match=r"v1.*v2"):
        compare([base, other])
    out = compare([base, other], allow_version_mismatch=True)
    assert out.version_mismatch
    assert any("versions differ" in w for w in out.warnings)


def test_baseline_by_name_and_bad_arguments() -> None:
    base, worse, noise = _systems()
    out = compare([base, worse, noise], baseline="worse", metrics=["nDCG@10"])
    assert out.baseline == "worse"
    assert out.candidates == ["base", "noise"]
    assert out.comparisons[0].verdict == "better"
    with pytest.raises(UsageError, match="unknown baseline"):
        compare([base, worse], baseline="nope")
    with pytest.raises(UsageError, match="not in every result"):
        compare([base, worse], metrics=["P@5"])
    with pytest.raises(UsageError, match="slice by"):
        compare([base, worse], by=["nope"])
    with pytest.raises(UsageError, match="at least two"):
        compare([base])


def test_power_and_json_round_trip() -> None:
    base, worse, _ = _systems()
    out = compare([base, worse], metrics=["nDCG@10"])
    (pw,) = out.power
    d = np.array([r["nDCG@10"] for r in worse.per_query]) - [r["nDCG@10"] for r in base.per_query]
    assert pw.sd_diff == pytest.approx(d.std(ddof=1))
    assert pw.min_detectable_delta == pytest.approx(2.8016 * d.std(ddof=1) / np.sqrt(60), rel=1e-3)
    again = ComparisonResult.model_validate_json(out.to_json())
    assert again == out
    assert again.schema_version == "2" and again.kind == "comparison"


def test_unique_names() -> None:
    assert unique_names(["a", "a", "b", "a"]) == ["a", "a#2", "b", "a#3"]
    assert unique_names(["a", "a#2", "a"]) == ["a", "a#2", "a#3"]


def test_power_without_spread_is_not_estimable() -> None:
    """No query differs -> sd 0: no min detectable delta and no query count (not 0 and 2)."""
    base, worse, _ = _systems()
    same = compare([base, base], metrics=["nDCG@10", "RR"])
    for pw in same.power:
        assert pw.sd_diff == 0.0
        assert pw.min_detectable_delta is None and pw.queries_needed is None
        assert pw.not_estimable == "no query differs"
    # RR of "worse" equals the baseline's, nDCG@10 differs: only RR is not estimable
    mixed = {p.metric: p for p in compare([base, worse]).power}
    assert mixed["RR"].not_estimable == "no query differs"
    assert mixed["nDCG@10"].not_estimable is None
    assert mixed["nDCG@10"].queries_needed is not None and mixed["nDCG@10"].queries_needed > 2
    values = np.linspace(0.1, 0.5, 20)
    shifted = compare(
        [
            synthetic_result("a", {"nDCG@10": values}),
            synthetic_result("b", {"nDCG@10": values + 0.25}),
        ]
    )
    (pw,) = shifted.power
    assert pw.not_estimable == "every query differs by the same amount"
    assert pw.queries_needed is None and pw.min_detectable_delta is None
    assert ComparisonResult.model_validate_json(shifted.to_json()) == shifted
