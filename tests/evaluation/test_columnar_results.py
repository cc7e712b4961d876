"""Per-query values stay columns: round trips to the last bit, zero-copy frames, no row objects.

The values checked are pytrec_eval's (the oracle), the files are read back by
assay and by pyarrow, and the JSON by the standard library's parser.
"""

from __future__ import annotations

import gc
import json
import math
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

import assay
from assay.judgments.load import load_judgments
from assay.judgments.models import JudgmentSet, Query
from assay.metrics.measures import parse_measures
from assay.procedures.evaluation import score_run
from assay.results.models import EvaluationResult, load_result, read_result_file
from assay.results.perquery import PerQuery
from assay.runs.io import load_run

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
}
QUERIES = [
    Query("q1", 'say "alpha" \\ beta', metadata={"language": "en", "note": "paraphrase"}),
    Query("q2", "gamma\tdelta\u2028é", metadata={"language": "fr"}),
    Query("q3", "", metadata={"language": "en", "note": "typo"}),
    Query("q4", "epsilon", metadata={}),
]
METRICS = ["nDCG@10", "RR", "AP", "R@2"]


def _result() -> EvaluationResult:
    js = JudgmentSet.from_records(QUERIES, QRELS, name="toy")
    return assay.evaluate(js, RUN, METRICS, by=["language"])


def _bits(values: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(values, dtype=np.float64).view(np.uint64)


def _same(a: EvaluationResult, b: EvaluationResult) -> None:
    """Every field equal; every per-query value equal to the last bit."""
    assert a.model_dump(exclude={"per_query"}) == b.model_dump(exclude={"per_query"})
    pa_, pb = a.per_query_table(), b.per_query_table()
    assert pa_.columns == pb.columns and len(pa_) == len(pb)
    for m in a.metrics:
        assert np.array_equal(_bits(pa_.column(m)), _bits(pb.column(m))), m
    for name in pa_.columns:
        if name not in a.metrics:
            assert pa_.table.column(name).to_pylist() == pb.table.column(name).to_pylist(), name


def test_values_are_pytrec_evals_and_survive_json_and_parquet(tmp_path: Path) -> None:
    result = _result()
    oracle = pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg_cut.10", "recip_rank"}).evaluate(RUN)
    frame = result.per_query_frame()
    for q, got in oracle.items():
        assert frame.loc[q, "nDCG@10"] == pytest.approx(got["ndcg_cut_10"], abs=1e-12)
        assert frame.loc[q, "RR"] == pytest.approx(got["recip_rank"], abs=1e-12)
    assert frame.loc["q4", "RR"] == 0.0 and math.isnan(frame.loc["q4", "first_rel_rank"])
    (tmp_path / "r.json").write_text(result.to_json(), encoding="utf-8")
    (tmp_path / "r.parquet").write_bytes(result.parquet_bytes())
    for name in ("r.json", "r.parquet"):
        _same(result, read_result_file(tmp_path / name))
    # the standard library reads the same JSON: one array per field
    data = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert data["schema_version"] == "2"
    assert data["per_query"]["text"][0] == 'say "alpha" \\ beta'
    assert data["per_query"]["note"] == ["paraphrase", None, "typo", None]
    assert data["per_query"]["first_rel_rank"][3] is None


def test_parquet_is_a_plain_table_for_other_readers(tmp_path: Path) -> None:
    result = _result()
    path = tmp_path / "perquery.parquet"
    path.write_bytes(result.parquet_bytes())
    table = pq.read_table(path)
    assert table.column_names == result.per_query_table().columns
    assert table.column("RR").to_pylist() == result.per_query_frame()["RR"].tolist()
    import pandas as pd

    assert pd.read_parquet(path)["query_id"].tolist() == ["q1", "q2", "q3", "q4"]
    polars = pytest.importorskip("polars")
    assert polars.read_parquet(path)["nDCG@10"].to_list() == table.column("nDCG@10").to_pylist()
    duckdb = pytest.importorskip("duckdb")
    got = duckdb.sql(f"select query_id, RR from '{path}' order by query_id").fetchall()
    assert [v for _, v in got] == table.column("RR").to_pylist()


def test_nan_and_awkward_strings_round_trip(tmp_path: Path) -> None:
    result = _result()
    values = result.per_query_table().column("AP").copy()
    values[1] = np.nan
    pq_ = PerQuery.from_arrays(
        ["q1", "q\x01", "q3", "q4"],
        ["", "tab\tnew\nline", "😀", 'q"'],
        [0, 3, 1, 0],
        [True, False, True, True],
        {"language": pa.array(["en", None, None, "fr"])},
        {m: (values if m == "AP" else result.per_query_table().column(m)) for m in METRICS},
    )
    odd = result.model_copy(update={"per_query": pq_})
    for back in (load_result(odd.to_json()), load_result(odd.to_json(indent=None))):
        _same(odd, back)
    path = tmp_path / "odd.parquet"
    path.write_bytes(odd.parquet_bytes())
    _same(odd, read_result_file(path))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(max_size=12), min_size=1, max_size=8))
def test_json_strings_match_the_standard_library(texts: list[str]) -> None:
    """Arrow-escaped strings read back as json.loads reads them (any text)."""
    texts = [t.encode("utf-8", "replace").decode("utf-8", "replace") for t in texts]
    ids = [f"q{i}" for i in range(len(texts))]
    pq_ = PerQuery.from_arrays(ids, texts, [0] * len(ids), [True] * len(ids), {}, {})
    assert json.loads(pq_.json_fragment())["text"] == texts


def test_frame_is_a_view_of_the_columns() -> None:
    result = _result()
    frame = result.per_query_frame()
    for m in METRICS:
        assert np.shares_memory(frame[m].to_numpy(), result.per_query_table().column(m))
    assert list(frame.index) == ["q1", "q2", "q3", "q4"]


def test_schema_1_rows_are_upgraded_to_columns() -> None:
    fixture = Path(__file__).resolve().parents[1] / "data" / "results" / "evaluation.json"
    old = json.loads(fixture.read_text(encoding="utf-8"))
    assert old["schema_version"] == "1"
    result = read_result_file(fixture)
    assert result.schema_version == "2"
    rows = old["per_query"]
    assert result.per_query_table().ids() == [r["query_id"] for r in rows]
    for m in result.metrics:
        assert result.per_query_table().column(m).tolist() == [r[m] for r in rows]
    # row access still gives the old rows (metadata without a value left out)
    assert [dict(r.items()) for r in result.per_query] == rows


def _big_files(tmp_path: Path, n: int) -> tuple[Path, Path]:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.trec"
    ids = np.char.add("q", np.arange(n).astype(str)).astype(object)
    qrels.write_text("".join(ids + " 0 d1 1\n"), encoding="utf-8")
    lines = [ids + f" Q0 d{k} {k} {3 - k}.5 bench\n" for k in (1, 2, 3)]
    run.write_text("".join(np.stack(lines, axis=1).reshape(-1)), encoding="utf-8")
    return qrels, run


def test_scoring_100k_queries_makes_no_object_per_query(tmp_path: Path) -> None:
    """Counted, not timed: containers kept by the result, and garbage collections
    (one per 700 new containers) while scoring and writing, stay far below 100,000."""
    n = 100_000
    qrels, run_path = _big_files(tmp_path, n)
    js = load_judgments(qrels, format="trec")
    run = load_run(run_path, format="trec")
    measures = parse_measures(["nDCG@10", "RR", "AP@100"])
    score_run(run, js, measures)  # warm caches (query codes, version hash)
    threshold = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    try:
        gc.collect()
        before = len(gc.get_objects())
        young = gc.get_stats()[0]["collections"]
        result = score_run(run, js, measures)
        kept = len(gc.get_objects()) - before
        data = result.json_bytes()
        parquet = result.parquet_bytes()
        collections = gc.get_stats()[0]["collections"] - young
    finally:
        gc.set_threshold(*threshold)
    assert len(result.per_query) == n and result.aggregate["RR"] == 1.0
    assert kept < 2_000, kept
    assert collections < 20, collections  # rows would make n / 700 = 142 collections or more
    assert load_result(data.decode("utf-8")).per_query_table().ids()[-1] == f"q{n - 1}"
    assert pq.read_table(pa.BufferReader(parquet)).num_rows == n
