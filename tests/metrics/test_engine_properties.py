"""Property tests of the engine against pytrec_eval (a test-only oracle)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from assay.judgments.models import JudgmentSet
from assay.metrics.engine import compute
from assay.metrics.measures import Measure
from assay.runs.models import Run

CUTS = (1, 3, 5, 10)


def measures_for(rel: int) -> dict[str, Measure]:
    """trec_eval name -> assay measure, for relevance threshold ``rel``."""
    out = {
        "map": Measure("AP", rel=rel),
        "recip_rank": Measure("RR", rel=rel),
        "Rprec": Measure("Rprec", rel=rel),
        "num_rel": Measure("NumRel", rel=rel),
        "num_rel_ret": Measure("NumRelRet", rel=rel),
        "num_ret": Measure("NumRet"),
        "ndcg": Measure("nDCG"),
    }
    for k in CUTS:
        out[f"P_{k}"] = Measure("P", k, rel)
        out[f"recall_{k}"] = Measure("R", k, rel)
        out[f"success_{k}"] = Measure("Success", k, rel)
        out[f"map_cut_{k}"] = Measure("AP", k, rel)
        out[f"ndcg_cut_{k}"] = Measure("nDCG", k)
    return out


TREC_MEASURES = {"map", "recip_rank", "Rprec", "num_rel", "num_rel_ret", "num_ret", "ndcg"} | {
    f"{f}.{','.join(map(str, CUTS))}" for f in ("P", "recall", "success", "map_cut", "ndcg_cut")
}


@st.composite
def cases(draw):
    nq = draw(st.integers(1, 5))
    docs = [f"d{i}" for i in range(draw(st.integers(1, 12)))]
    qrels: dict[str, dict[str, int]] = {}
    for q in range(nq):
        judged = draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs)))
        qrels[f"q{q}"] = {d: draw(st.integers(0, 3)) for d in judged}
        if not any(g >= 1 for g in qrels[f"q{q}"].values()):
            qrels[f"q{q}"][docs[0]] = draw(st.integers(1, 3))
    run: dict[str, dict[str, float]] = {}
    for q in range(nq + 1):  # q{nq} is not judged: ignored
        if draw(st.booleans()):
            ret = draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs)))
            run[f"q{q}"] = {d: float(draw(st.integers(0, 4))) for d in ret}  # many ties
    return qrels, run


def build(qrels, run) -> tuple[JudgmentSet, Run]:
    queries = [{"query_id": q, "text": ""} for q in qrels]
    j = JudgmentSet.from_records(queries, qrels)
    return j, Run.from_dict({q: list(d.items()) for q, d in run.items()})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from([1, 2]))
def test_matches_pytrec_eval(case, rel: int) -> None:
    qrels, run = case
    j, r = build(qrels, run)
    names = measures_for(rel)
    table = compute(j, r, list(names.values()), missing="skip")
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, relevance_level=rel)
    oracle = evaluator.evaluate({q: d for q, d in run.items() if d})
    assert sorted(table.query_ids) == sorted(q for q in oracle if q in qrels)
    for i, q in enumerate(table.query_ids):
        for name, m in names.items():
            assert table.values[m][i] == pytest.approx(oracle[q][name], abs=1e-9), (q, name)
    # RR@k = recip_rank of the run cut to its top k (after trec_eval's tie order)
    rr3 = compute(j, r, [Measure("RR", 3, rel)], missing="skip").values[Measure("RR", 3, rel)]
    rr = table.values[Measure("RR", rel=rel)]
    assert np.allclose(rr3, np.where(rr >= 1 / 3, rr, 0.0))


@settings(max_examples=100, deadline=None)
@given(cases())
def test_invariants(case) -> None:
    qrels, run = case
    j, r = build(qrels, run)
    ms = [Measure("R", k) for k in CUTS] + [Measure("nDCG", 5, gain="exp"), Measure("Judged", 3)]
    ms += list(measures_for(1).values())
    zero = compute(j, r, ms, missing="zero")
    skip = compute(j, r, ms, missing="skip")
    assert zero.query_ids == j.answerable_ids
    assert skip.query_ids == [q for q in zero.query_ids if run.get(q)]
    assert zero.missing_queries == int((~zero.in_run).sum())
    assert zero.ignored_queries == (1 if run.get(f"q{len(qrels)}") else 0)
    for m in ms:
        v = zero.values[m]
        assert np.isfinite(v).all()
        if m.bounded:
            assert ((v >= 0) & (v <= 1)).all()
        keep = zero.in_run
        assert np.array_equal(skip.values[m], v[keep])
        if m.family != "NumRel":
            assert (v[~keep] == 0).all()
    for a, b in itertools.pairwise(CUTS):
        assert (zero.values[Measure("R", b)] >= zero.values[Measure("R", a)]).all()


@settings(max_examples=60, deadline=None)
@given(cases())
def test_exp_gain_matches_formula(case) -> None:
    qrels, run = case
    j, r = build(qrels, run)
    m = Measure("nDCG", 5, gain="exp")
    table = compute(j, r, [m], missing="skip")
    ranked = r.to_dict()
    for i, q in enumerate(table.query_ids):
        docs = [d for d, _ in ranked[q]][:5]
        dcg = sum(
            (2 ** max(qrels[q].get(d, 0), 0) - 1) / math.log2(k + 2) for k, d in enumerate(docs)
        )
        ideal = sorted(qrels[q].values(), reverse=True)[:5]
        idcg = sum((2**g - 1) / math.log2(k + 2) for k, g in enumerate(ideal))
        assert table.values[m][i] == pytest.approx(dcg / idcg if idcg else 0.0, abs=1e-9)


def test_pytrec_eval_unit_cases(shared_data: Path) -> None:
    spec = json.loads((shared_data / "pytrec_eval_tests" / "unit_expected.json").read_text())
    qrels = spec["qrel"]
    for case in spec["cases"]:
        j, r = build(qrels, case["run"])
        for qid, values in case["expected"].items():
            for name, want in values.items():
                m = (
                    Measure("nDCG", int(name.rsplit("_", 1)[1]))
                    if "cut" in name
                    else Measure("nDCG")
                )
                table = compute(j, r, [m], missing="skip")
                got = dict(zip(table.query_ids, table.values[m], strict=True))[qid]
                assert got == pytest.approx(want, abs=1e-12)


def test_tied_pairs_and_given_order() -> None:
    j = JudgmentSet.from_records([{"query_id": "q", "text": ""}], {"q": {"a": 1}})
    r = Run.from_dict({"q": [("a", 1.0), ("b", 1.0), ("c", 0.5)]})
    by_score = compute(j, r, [Measure("P", 1), Measure("P", 2)])
    # trec_eval: tie broken by doc id descending -> b before a
    assert by_score.first_rel_rank.tolist() == [2]
    assert by_score.tied_pairs_at_cutoff == 1  # k=1 cuts the a/b tie, k=2 does not
    given = compute(j, r, [Measure("RR")], ties="given")
    assert given.first_rel_rank.tolist() == [1]


def test_empty_aggregate_is_zero() -> None:
    j = JudgmentSet.from_records([{"query_id": "q", "text": ""}], {"q": {"a": 1}})
    t = compute(j, Run.from_dict({"x": ["a"]}), [Measure("AP")], missing="skip")
    assert t.query_ids == [] and t.aggregate() == {Measure("AP"): 0.0}
    assert t.ignored_queries == 1 and t.missing_queries == 1


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_doc_column_layouts_and_threads_give_the_same_scores(case) -> None:
    """Doc ids as strings or as a categorical, probed and hashed on one thread or
    on two (large runs), with real hashes or all colliding, give the same values,
    equal to pytrec_eval's."""
    from assay.core import _threads, pairs

    qrels, run = case
    j, r = build(qrels, run)
    names = measures_for(1)
    want = compute(j, r, list(names.values()), missing="skip")
    frame = r.frame.assign(doc_id=r.frame["doc_id"].astype("category"))
    as_categories = Run(frame, name=r.name, has_scores=r.has_scores)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_threads, "THREADED_AT", 2)
        threaded = compute(j, r, list(names.values()), missing="skip")
    with pytest.MonkeyPatch.context() as mp:  # every doc id collides: the ids decide
        mp.setattr(pairs, "hashes", lambda col: np.zeros(len(col), dtype=np.uint64))
        colliding = compute(j, r, list(names.values()), missing="skip")
    got = compute(j, as_categories, list(names.values()), missing="skip")
    for other in (threaded, colliding, got):
        assert other.query_ids == want.query_ids
        for m in names.values():
            assert np.array_equal(other.values[m], want.values[m], equal_nan=True), m
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, TREC_MEASURES, relevance_level=1)
    oracle = evaluator.evaluate({q: d for q, d in run.items() if d})
    for i, q in enumerate(want.query_ids):
        for name, m in names.items():
            assert want.values[m][i] == pytest.approx(oracle[q][name], abs=1e-9), (q, name)
