"""``assay.evaluate``: runs, mappings and search functions, checked against pytrec_eval."""

from __future__ import annotations

import math

import pandas as pd
import pytest
import pytrec_eval

import assay
from assay.judgments.models import JudgmentSet, Query

QRELS = {
    "q1": {"d1": 2, "d2": 0, "d3": 1},
    "q2": {"d4": 1, "d5": 1},
    "q3": {"d6": 2},
    "q4": {"d7": 1},
}
RUN = {
    "q1": {"d2": 3.0, "d3": 2.5, "d9": 2.0, "d1": 1.0},
    "q2": {"d5": 1.0, "d8": 0.9},
    "q3": {"d6": 0.1},
    # q4 missing from the run; q9 not judged
    "q9": {"d1": 1.0},
}
QUERIES = [
    Query("q1", "alpha beta", metadata={"language": "en", "note": "paraphrase; typo"}),
    Query("q2", "gamma", metadata={"language": "fr", "note": "official title"}),
    Query("q3", "delta", metadata={"language": "en", "note": "paraphrase"}),
    Query("q4", "epsilon", metadata={"language": "fr"}),
    Query("q5", "inflation rate", no_answer=True, metadata={"language": "en"}),
]


def _judgments() -> JudgmentSet:
    return JudgmentSet.from_records(QUERIES, QRELS, name="toy")


def _oracle(measure: str) -> dict[str, float]:
    ev = pytrec_eval.RelevanceEvaluator(QRELS, {measure.split(".")[0]} | {measure})
    out = ev.evaluate({q: d for q, d in RUN.items() if q in QRELS})
    key = measure.replace(".", "_")
    return {q: vals[key] for q, vals in out.items()}


def test_aggregate_matches_pytrec_eval_with_missing_as_zero() -> None:
    result = assay.evaluate(_judgments(), RUN, metrics=["nDCG@10", "RR", "R@2", "P@2", "AP"])
    for name, measure in [
        ("nDCG@10", "ndcg_cut.10"),
        ("RR", "recip_rank"),
        ("R@2", "recall.2"),
        ("P@2", "P.2"),
        ("AP", "map"),
    ]:
        oracle = _oracle(measure)
        expected = sum(oracle.values()) / 4  # q4 is judged but missing: scores 0 (-c)
        assert result.aggregate[name] == pytest.approx(expected, abs=1e-12), name
        frame = result.per_query_frame()
        for qid, value in oracle.items():
            assert frame.loc[qid, name] == pytest.approx(value, abs=1e-12)
    assert result.run.missing_queries == 1
    assert result.run.ignored_queries == 1  # q9


def test_missing_skip_averages_over_run_queries_only() -> None:
    result = assay.evaluate(
        _judgments(), RUN, options=assay.ScoringOptions(missing="skip"), metrics=["RR"]
    )
    oracle = _oracle("recip_rank")
    assert result.aggregate["RR"] == pytest.approx(sum(oracle.values()) / 3)
    assert result.judgments.queries == 3
    assert result.policy.missing == "skip"


def test_search_function_equals_the_same_run() -> None:
    ranked = {q: sorted(d, key=lambda doc, q=q: -RUN[q][doc]) for q, d in RUN.items()}
    texts = {q.text: q.query_id for q in QUERIES}

    def search(text: str, k: int) -> list[str]:
        return ranked.get(texts[text], [])[:k]

    live = assay.evaluate(_judgments(), search, metrics=["nDCG@10", "RR"])
    stored = assay.evaluate(_judgments(), RUN, metrics=["nDCG@10", "RR"])
    # q4 returns [] live (scored 0) and is missing from the stored run (scored 0 with -c)
    assert live.aggregate == pytest.approx(stored.aggregate)


def test_failing_calls_are_reported_not_scored_as_empty() -> None:
    def search(text: str, k: int) -> list[dict]:
        if text == "gamma":
            raise TimeoutError("backend timed out")
        return [{"doc_id": "d1", "score": 1.0}, {"doc_id": "d6", "score": 0.5}]

    result = assay.evaluate(_judgments(), search, metrics=["RR"])
    assert "q2" in result.run.failed_queries
    assert "q2" not in result.per_query_frame().index
    assert result.judgments.queries == 3


def test_groups_split_tags_and_count_n() -> None:
    result = assay.evaluate(_judgments(), RUN, metrics=["RR"], by=["language", "note"])
    oracle = _oracle("recip_rank")
    rr = {q: oracle.get(q, 0.0) for q in ("q1", "q2", "q3", "q4")}
    assert result.groups["language"]["en"] == {
        "n": 2,
        "RR": pytest.approx((rr["q1"] + rr["q3"]) / 2),
    }
    assert result.groups["language"]["fr"]["n"] == 2
    note = result.groups["note"]
    assert note["paraphrase"]["n"] == 2 and note["typo"]["n"] == 1
    assert note["(none)"]["n"] == 1  # q4 has no note
    assert note["typo"]["RR"] == pytest.approx(rr["q1"])


def test_no_answer_queries_are_reported_apart() -> None:
    result = assay.evaluate(_judgments(), RUN, metrics=["RR"])
    assert "q5" not in result.per_query_frame().index
    assert result.judgments.no_answer_queries == 1
    assert [row["query_id"] for row in result.no_answer] == ["q5"]


def test_per_query_rows_hold_first_relevant_rank() -> None:
    frame = assay.evaluate(_judgments(), RUN, metrics=["RR"]).per_query_frame()
    assert isinstance(frame, pd.DataFrame)
    # q1: d2 (grade 0) first, then d3 (grade 1): first relevant at rank 2
    assert frame.loc["q1", "first_rel_rank"] == 2
    assert frame.loc["q3", "first_rel_rank"] == 1
    assert frame.loc["q4", "first_rel_rank"] is None or math.isnan(
        frame.loc["q4", "first_rel_rank"]
    )


def test_inputs_are_not_mutated() -> None:
    js = _judgments()
    before_q, before_r = js.queries.copy(), js.qrels.copy()
    assay.evaluate(js, RUN, metrics=["nDCG@10"], by=["language"])
    pd.testing.assert_frame_equal(js.queries, before_q)
    pd.testing.assert_frame_equal(js.qrels, before_r)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"metrics": ["P@0"]}, "cutoff"),
        ({"metrics": ["Bogus@3"]}, "unknown measure"),
        ({"k": 0}, "`k` must be"),
        ({"missing": "maybe"}, "missing"),
        ({"by": ["colour"]}, "no metadata field 'colour'"),
    ],
)
def test_bad_arguments_raise_usage_errors(kwargs: dict, message: str) -> None:
    scoring = {k: kwargs.pop(k) for k in list(kwargs) if k in assay.ScoringOptions.model_fields}
    with pytest.raises(assay.UsageError, match=message):
        assay.evaluate(_judgments(), RUN, options=assay.ScoringOptions(**scoring), **kwargs)


def test_nothing_scored_gives_no_value_and_the_file_reads_back(tmp_path) -> None:
    def down(text: str, k: int) -> list[str]:
        raise ConnectionError("backend down")

    result = assay.evaluate(
        _judgments(), down, options=assay.ScoringOptions(retries=0), metrics=["RR"]
    )
    assert math.isnan(result.aggregate["RR"])  # no value, not a score of 0
    assert {f["query_id"] for f in result.run.failures} == {"q1", "q2", "q3", "q4", "q5"}
    path = tmp_path / "r.json"
    path.write_text(result.to_json(), encoding="utf-8")
    again = assay.EvaluationResult.from_file(path)
    assert again.aggregate["RR"] is None
    assert again.run.failed_queries == result.run.failed_queries


def test_result_file_errors_name_the_file(tmp_path) -> None:
    path = tmp_path / "r.json"
    path.write_text('{"kind": "evaluation", "schema_version": "1"}', encoding="utf-8")
    with pytest.raises(assay.InputError, match=str(path)):
        assay.EvaluationResult.from_file(path)
