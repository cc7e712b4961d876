"""Every file assay writes for another tool is read by that tool, and scores or loads the same.

Runs from ``assay run`` and ``assay fuse``, graded qrels from ``assay judge export -f
trec``: pytrec_eval, ir_measures, ranx and the NIST trec_eval binary read them as they
are and report the nDCG@10 that ``assay evaluate`` reports. Pools and JSON and Parquet
results load in pandas, Polars and DuckDB with the same values.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from assay.cli.app import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "statistics"
RUNS = ("keyword.trec", "names.trec", "fused.trec")


def _assay(*argv: str) -> None:
    with pytest.raises(SystemExit) as exc:
        main(list(argv))
    assert int(exc.value.code or 0) == 0, argv


def _grade(query_id: str, doc_id: str, expected: set[tuple[str, str]]) -> int:
    """A fixed graded judgment: the expected record 2, others 1 or 0 by a hash of the pair."""
    if (query_id, doc_id) in expected:
        return 2
    return 1 if hashlib.sha256(f"{query_id} {doc_id}".encode()).digest()[0] % 3 == 0 else 0


def _judge(folder: Path, pool: Path) -> Path:
    """Grade every pair of the pool in a judging store, then export it as TREC qrels."""
    from assay import load_judgments
    from assay.judging.pool import PoolPair, read_pool
    from assay.judging.store import JudgingStore

    js = load_judgments(EXAMPLE / "questions.csv")
    expected = {(q, d) for q, docs in js.qrels_dict().items() for d, g in docs.items() if g > 0}
    pairs = read_pool(pool)  # the unjudged pairs the runs brought
    pooled = {(p.query_id, p.doc_id) for p in pairs}
    for q, d in sorted(expected - pooled):  # the judged pairs too, judged again here
        pairs.append(PoolPair(q, js.query(q).text, d, {}))
    store = JudgingStore(str(folder / "judging.db"))
    store.setup(pairs, ["alice"], 1)
    for pid, stored in store.pairs().items():
        grade = _grade(stored.pair.query_id, stored.pair.doc_id, expected)
        store.act("alice", pid, str(grade))
    store.close()
    qrels = folder / "human.qrels"
    _assay("judge", "export", "--store", str(folder / "judging.db"), "-o", str(qrels), "-f", "trec")
    return qrels


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two runs, their fusion, a pool, graded TREC qrels and results, as assay writes them."""
    folder = tmp_path_factory.mktemp("peers")
    questions, config = str(EXAMPLE / "questions.csv"), str(EXAMPLE / "assay.toml")
    for system, out in (("keyword", "keyword.trec"), ("keyword-names-only", "names.trec")):
        _assay("run", questions, "-s", system, "--config", config, "-k", "20",
               "-o", str(folder / out), "--no-progress", "--no-cache")  # fmt: skip
    _assay("fuse", str(folder / "keyword.trec"), str(folder / "names.trec"),
           "-o", str(folder / "fused.trec"))  # fmt: skip
    pool = folder / "pool.jsonl"
    _assay("judge", "pool", questions, str(folder / "keyword.trec"), str(folder / "names.trec"),
           "-o", str(pool), "-d", "10")  # fmt: skip
    qrels = _judge(folder, pool)
    for run in RUNS:
        for suffix in ("json", "parquet"):
            _assay("evaluate", str(qrels), str(folder / run), "-m", "nDCG@10", "-m", "AP",
                   "--allow-version-mismatch",
                   "-o", str(folder / f"{run}.{suffix}"))  # fmt: skip
    return folder


def _assay_ndcg(files: Path, run: str) -> tuple[float, dict[str, float]]:
    """nDCG@10 as assay reports it: the mean over the judged queries, and per query.

    A judged query the run has no line for scores 0 (trec_eval -c), as in every peer
    below once told to count such queries.
    """
    import pandas as pd

    result = json.loads((files / f"{run}.json").read_text())
    table = pd.read_parquet(files / f"{run}.parquet")
    per_query = dict(zip(table["query_id"].astype(str), table["nDCG@10"], strict=True))
    qrels = (files / "human.qrels").read_text().split("\n")
    assert set(per_query) == {line.split()[0] for line in qrels if line}
    return result["aggregate"]["nDCG@10"], per_query


def _same_as_assay(files: Path, run: str, got: dict[str, float], tol: float = 1e-12) -> None:
    """``got`` (a peer's nDCG@10 per query) is assay's; queries it leaves out are assay's zeros.

    Some peers list only the run's queries, others every judged query (0 for the rest).
    """
    mean, per_query = _assay_ndcg(files, run)
    in_run = {line.split()[0] for line in (files / run).read_text().splitlines()}
    assert in_run & set(per_query) <= set(got) <= set(per_query) and got
    for qid, value in per_query.items():
        assert abs(got.get(qid, 0.0) - value) <= tol, qid
    assert abs(sum(got.values()) / len(per_query) - mean) <= tol


def test_runs_are_plain_six_column_files(files: Path) -> None:
    for run in RUNS:
        lines = (files / run).read_text().splitlines()
        assert lines and all(len(line.split()) == 6 for line in lines), run


def test_judged_pairs_are_graded(files: Path) -> None:
    grades = [int(line.split()[3]) for line in (files / "human.qrels").read_text().splitlines()]
    assert {0, 1, 2} <= set(grades)  # graded, so nDCG's gains are exercised


@pytest.mark.parametrize("run", RUNS)
def test_pytrec_eval_reads_the_files(files: Path, run: str) -> None:
    import pytrec_eval

    with open(files / "human.qrels") as fh:
        qrels = pytrec_eval.parse_qrel(fh)
    with open(files / run) as fh:
        parsed = pytrec_eval.parse_run(fh)
    got = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(parsed)
    _same_as_assay(files, run, {q: v["ndcg_cut_10"] for q, v in got.items()})


@pytest.mark.parametrize("run", RUNS)
def test_ir_measures_reads_the_files(files: Path, run: str) -> None:
    import ir_measures
    from ir_measures import nDCG

    qrels = list(ir_measures.read_trec_qrels(str(files / "human.qrels")))
    parsed = list(ir_measures.read_trec_run(str(files / run)))
    got = {m.query_id: m.value for m in ir_measures.iter_calc([nDCG @ 10], qrels, parsed)}
    _same_as_assay(files, run, got)


@pytest.mark.parametrize("run", RUNS)
def test_ranx_reads_the_files(files: Path, run: str) -> None:
    import ranx

    qrels = ranx.Qrels.from_file(str(files / "human.qrels"), kind="trec")
    parsed = ranx.Run.from_file(str(files / run), kind="trec")
    mean, _ = _assay_ndcg(files, run)
    listed = set(parsed.run)
    # make_comparable: a judged query missing from the run scores 0, as in assay
    value = ranx.evaluate(qrels, parsed, "ndcg@10", make_comparable=True)
    assert abs(value - mean) <= 1e-12
    scores = parsed.scores["ndcg@10"]
    _same_as_assay(files, run, {q: v for q, v in scores.items() if q in listed})


@pytest.mark.parametrize("run", RUNS)
def test_trec_eval_reads_the_files(files: Path, run: str, trec_eval_bin: Path) -> None:
    from helpers_trec_eval import trec_eval_output

    qrels, path = files / "human.qrels", files / run
    mean, _ = _assay_ndcg(files, run)
    (line,) = trec_eval_output(trec_eval_bin, ["-c", "-m", "ndcg_cut.10"], qrels, path)
    assert abs(float(line.split()[2]) - mean) < 5e-5  # trec_eval prints four decimals
    lines = trec_eval_output(trec_eval_bin, ["-q", "-c", "-m", "ndcg_cut.10"], qrels, path)
    got = {f[1]: float(f[2]) for f in map(str.split, lines) if f[1] != "all"}
    _same_as_assay(files, run, got, tol=5e-5)


def test_pool_loads_in_pandas_polars_and_duckdb(files: Path) -> None:
    import duckdb
    import pandas as pd
    import polars as pl

    pool = files / "pool.jsonl"
    rows = [json.loads(line) for line in pool.read_text().splitlines()]
    pairs = sorted((r["query_id"], r["doc_id"]) for r in rows)
    frame = pd.read_json(pool, lines=True, dtype={"query_id": str, "doc_id": str})
    assert sorted(zip(frame["query_id"], frame["doc_id"], strict=True)) == pairs
    assert sorted(pl.read_ndjson(pool).select("query_id", "doc_id").iter_rows()) == pairs
    got = duckdb.sql(f"select query_id, doc_id from read_json_auto('{pool}')").fetchall()
    assert sorted(got) == pairs


@pytest.mark.parametrize("run", RUNS)
def test_results_load_in_pandas_polars_and_duckdb(files: Path, run: str) -> None:
    import duckdb
    import pandas as pd
    import polars as pl

    def _close(a: float, b: float) -> bool:
        return abs(a - b) <= 1e-12

    mean, per_query = _assay_ndcg(files, run)
    path = files / f"{run}.parquet"
    assert _close(float(pd.read_parquet(path)["nDCG@10"].mean()), mean)
    assert _close(float(pl.read_parquet(path)["nDCG@10"].mean()), mean)
    got = dict(duckdb.sql(f"select query_id, \"nDCG@10\" from '{path}'").fetchall())
    assert got == per_query
    result = files / f"{run}.json"
    frame = pd.read_json(result, typ="series")
    assert _close(frame["aggregate"]["nDCG@10"], mean)
    (value,) = duckdb.sql(f"select aggregate['nDCG@10'] from read_json_auto('{result}')").fetchone()
    assert _close(value, mean)
    assert _close(pl.read_json(result)["aggregate"].struct.field("nDCG@10")[0], mean)
