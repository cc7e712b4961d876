"""BEIR's extra measures, Hole@k and capped recall R_cap@k, against BEIR's definitions.

The ``beir`` package pulls in torch, so its two functions
(``beir/retrieval/custom_metrics.py``: ``hole`` and ``recall_cap``) are written
out here from their logic, step by step, on the dict shapes BEIR takes:

* both sort each query's results by score, highest first, keep the top
  ``max(k_values)`` and average over the queries of the *results*, rounding
  to 5 decimals;
* Hole@k: the "annotated corpus" is every doc id of the qrels, for all
  queries, whatever the grade; a hole is a top-k document outside it,
  divided by k;
* R_cap@k: relevant (grade > 0) top-k documents over min(R, k).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.judgments.models import JudgmentSet
from assay.metrics.engine import compute
from assay.metrics.measures import parse_measure
from assay.runs.models import Run

KS = [1, 2, 3, 5, 10]


def beir_hole(qrels: dict, results: dict, k_values: list[int]) -> dict[str, float]:
    """BEIR's hole(): top-k documents that no qrels line names, over k, mean over results."""
    annotated = {doc for docs in qrels.values() for doc in docs}
    total = dict.fromkeys(k_values, 0.0)
    for scores in results.values():
        top = sorted(scores.items(), key=lambda item: item[1], reverse=True)[: max(k_values)]
        for k in k_values:
            total[k] += len([d for d, _ in top[:k] if d not in annotated]) / k
    return {f"Hole@{k}": round(total[k] / len(results), 5) for k in k_values}


def beir_recall_cap(qrels: dict, results: dict, k_values: list[int]) -> dict[str, float]:
    """BEIR's recall_cap(): relevant top-k documents over min(R, k), mean over results."""
    total = dict.fromkeys(k_values, 0.0)
    for qid, scores in results.items():
        top = sorted(scores.items(), key=lambda item: item[1], reverse=True)[: max(k_values)]
        relevant = [d for d in qrels[qid] if qrels[qid][d] > 0]
        for k in k_values:
            found = [d for d, _ in top[:k] if qrels[qid].get(d, 0) > 0]
            total[k] += len(found) / min(len(relevant), k)
    return {f"R_cap@{k}": round(total[k] / len(results), 5) for k in k_values}


@st.composite
def beir_cases(draw):
    """Qrels over a small corpus (docs judged for other queries, grade 0 lines) and results
    for some judged queries, every one with a relevant document (BEIR's R_cap divides by R)."""
    corpus = [f"d{i}" for i in range(12)]
    qrels: dict[str, dict[str, int]] = {}
    for q in range(draw(st.integers(1, 5))):
        judged = draw(st.lists(st.sampled_from(corpus), min_size=1, max_size=5, unique=True))
        qrels[f"q{q}"] = {d: draw(st.integers(0, 2)) for d in judged}
        qrels[f"q{q}"][judged[0]] = draw(st.integers(1, 2))
    results: dict[str, dict[str, float]] = {}
    for qid in qrels:
        if draw(st.booleans()) or not results:
            found = draw(st.lists(st.sampled_from(corpus), min_size=1, max_size=12, unique=True))
            scores = draw(st.permutations(range(len(found))))  # no ties: one order for both
            results[qid] = {d: float(s) for d, s in zip(found, scores, strict=True)}
    return qrels, results


def _assay(qrels: dict, results: dict, names: list[str]) -> dict[str, float]:
    judgments = JudgmentSet.from_records([{"query_id": q, "text": q} for q in qrels], qrels)
    run = Run.from_dict({q: list(d.items()) for q, d in results.items()})
    table = compute(judgments, run, names, missing="skip")  # BEIR: mean over the results
    return {name: float(np.mean(table.values[parse_measure(name)])) for name in names}


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=beir_cases())
def test_hole_and_capped_recall_equal_beirs_definitions(case) -> None:
    qrels, results = case
    ours = _assay(qrels, results, [f"Hole@{k}" for k in KS] + [f"R_cap@{k}" for k in KS])
    expected = beir_hole(qrels, results, KS) | beir_recall_cap(qrels, results, KS)
    for name, value in expected.items():
        assert ours[name] == pytest.approx(value, abs=5e-6), name


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=beir_cases(), k=st.sampled_from(KS))
def test_hole_properties(case, k: int) -> None:
    """0 <= Hole@k <= Unjudged@k (a doc judged for another query is no hole) and Hole@k
    is the share of the top k, so k * Hole@k is a whole number."""
    qrels, results = case
    judgments = JudgmentSet.from_records([{"query_id": q, "text": q} for q in qrels], qrels)
    run = Run.from_dict({q: list(d.items()) for q, d in results.items()})
    names = [f"Hole@{k}", f"Unjudged@{k}", f"Hole(judged_only=true)@{k}"]
    values = compute(judgments, run, names, missing="zero").values
    hole, unjudged, condensed = (values[parse_measure(n)] for n in names)
    assert (hole >= 0).all() and (hole <= unjudged + 1e-12).all()
    assert np.allclose(hole * k, np.round(hole * k))
    assert (condensed == 0).all()  # only judged documents are left


def test_hole_reads_the_judgments_of_every_query() -> None:
    """BEIR's annotated corpus is corpus-wide: d2 is judged (grade 0) for q2 only, so it
    is no hole for q1, while trec_eval's unj counts it; x is judged for nobody."""
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 0, "d3": 1}}
    results = {"q1": {"d2": 3.0, "x": 2.0, "d1": 1.0}}
    ours = _assay(qrels, results, ["Hole@2", "Hole@3", "Unjudged@2", "Hole@10"])
    assert ours["Hole@2"] == 0.5 and ours["Unjudged@2"] == 1.0
    assert ours["Hole@3"] == pytest.approx(1 / 3) and ours["Hole@10"] == pytest.approx(0.1)
    assert beir_hole(qrels, results, [2, 3, 10]) == {"Hole@2": 0.5, "Hole@3": 0.33333,
                                                     "Hole@10": 0.1}  # fmt: skip


def test_hole_after_a_cut_and_names() -> None:
    qrels = {"q1": {"d1": 1}}
    run = Run.from_dict({"q1": [("x", 3.0), ("d1", 2.0), ("y", 1.0)]})
    judgments = JudgmentSet.from_records([{"query_id": "q1", "text": ""}], qrels)
    cut = compute(judgments, run, ["Hole@3"], depth=2).values[parse_measure("Hole@3")]
    assert cut.tolist() == [pytest.approx(1 / 3)]  # y is cut away: one hole in three ranks
    assert parse_measure("R_cap@10") == parse_measure("RelP@10") == parse_measure("recall_cap@10")
    assert parse_measure("hole@5").name == "Hole@5"
