"""Depth pools against an independent computation on two SciFact runs (BM25 and TF-IDF)."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from assay.core.errors import UsageError
from assay.judging import build_pool, read_pool, write_pool
from assay.judgments import JudgmentSet, load_judgments
from assay.runs.io import write_run
from assay.runs.models import Run

DEPTH = 10


@pytest.fixture(scope="module")
def scifact_runs(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """BM25 and keyword runs (top 20) over the SciFact test queries, written as TREC files."""
    from assay.corpora import load_corpus
    from assay.systems.bm25 import BM25System
    from assay.systems.keyword import KeywordSystem
    from assay.systems.runner import run_system

    folder = shared_data / "beir_scifact"
    js = load_judgments(folder)
    corpus = load_corpus(folder / "corpus.jsonl")
    out = tmp_path_factory.mktemp("pool")
    paths = []
    for system in (BM25System(corpus, name="bm25"), KeywordSystem(corpus, name="keyword")):
        run = run_system(system, js, k=20, progress=False).run
        path = out / f"{system.name}.trec"
        write_run(run, path, tag=system.name)
        paths.append(path)
    return {"folder": folder, "judgments": js, "runs": paths, "out": out}


def _trec_top(path: Path, depth: int) -> dict[tuple[str, str], int]:
    """{(qid, doc): rank} of a TREC run, ranked by score desc then doc id desc (trec_eval)."""
    rows: dict[str, list[tuple[float, str]]] = {}
    for line in path.read_text().splitlines():
        qid, _, doc, _, score, _ = line.split()
        rows.setdefault(qid, []).append((float(score), doc))
    out = {}
    for qid, items in rows.items():
        items.sort(key=lambda x: (-x[0], [-ord(c) for c in x[1]]))
        for rank, (_, doc) in enumerate(items[:depth], start=1):
            out[(qid, doc)] = rank
    return out


def test_pool_pairs_equal_an_independent_depth_pool(scifact_runs: dict) -> None:
    folder, runs, out = scifact_runs["folder"], scifact_runs["runs"], scifact_runs["out"]
    pool_path = out / "pool.jsonl"
    cmd = [sys.executable, "-c", "from assay.cli import main; main()", "judge", "pool"]
    cmd += [str(folder), *map(str, runs), "--depth", str(DEPTH), "-o", str(pool_path)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    # independent: plain Python over the files themselves
    judged = set()
    lines = (folder / "qrels" / "test.tsv").read_text().splitlines()[1:]
    for line in lines:
        qid, doc, _ = line.split("\t")
        judged.add((qid, doc))
    queries = {q for q, _ in judged}
    tops = {p.stem: _trec_top(p, DEPTH) for p in runs}
    expected: dict[tuple[str, str], dict[str, int]] = {}
    for name, top in tops.items():
        for key, rank in top.items():
            if key[0] in queries and key not in judged:
                expected.setdefault(key, {})[name] = rank
    lines = [json.loads(x) for x in pool_path.read_text().splitlines()]
    got = {(x["query_id"], x["doc_id"]): {r["run"]: r["rank"] for r in x["runs"]} for x in lines}
    assert len(lines) == len(got)  # no pair twice
    assert got == expected
    assert 3000 < len(got) < 2 * 300 * DEPTH  # both runs contribute, overlapping
    texts = {json.loads(x)["_id"]: json.loads(x)["text"] for x in (folder / "queries.jsonl").open()}
    assert all(x["query"] == texts[x["query_id"]] for x in lines)
    # the library reads back what the CLI wrote
    assert [(p.query_id, p.doc_id, p.runs) for p in read_pool(pool_path)] == [
        (x["query_id"], x["doc_id"], {r["run"]: r["rank"] for r in x["runs"]}) for x in lines
    ]


def _discount(rank: int | None) -> float:
    return 0.0 if rank is None else 1.0 / math.log2(1 + rank)


def test_delta_strategy_puts_first_what_could_move_the_comparison(scifact_runs: dict) -> None:
    from assay.runs.io import load_run

    js = scifact_runs["judgments"]
    runs = [load_run(p) for p in scifact_runs["runs"]]
    full = build_pool(js, runs, DEPTH)
    delta = build_pool(js, runs, DEPTH, strategy="delta")
    assert {(p.query_id, p.doc_id) for p in delta} == {(p.query_id, p.doc_id) for p in full}

    def moved(p) -> float:
        return abs(_discount(p.runs.get("bm25")) - _discount(p.runs.get("keyword")))

    values = [moved(p) for p in delta]
    assert all(a >= b - 1e-12 for a, b in itertools.pairwise(values))
    assert values[0] == 1.0  # rank 1 in one run, outside the top DEPTH of the other
    budget = build_pool(js, runs, DEPTH, strategy="delta", budget=50)
    assert budget == delta[:50]
    rank = build_pool(js, runs, DEPTH, strategy="rank", budget=20)
    weights = [_discount(p.runs.get("bm25")) + _discount(p.runs.get("keyword")) for p in rank]
    assert weights == sorted(weights, reverse=True) and weights[0] == pytest.approx(2.0)


def test_small_pool_order_and_errors(tmp_path: Path) -> None:
    js = JudgmentSet.from_records(
        [{"query_id": "q1", "text": "alpha", "language": "en"}, {"query_id": "q2", "text": "b"}],
        {"q1": {"d1": 2}, "q2": {"d9": 1}},
    )
    a = Run.from_dict(
        {"q1": [("d1", 3.0), ("d2", 2.0), ("d3", 1.0)], "q2": [("d4", 1.0)]}, name="a"
    )
    b = Run.from_dict({"q1": [("d3", 3.0), ("d2", 2.0)], "qX": [("d5", 1.0)]}, name="b")
    pool = build_pool(js, [a, b], depth=2)
    assert [(p.query_id, p.doc_id, p.runs) for p in pool] == [
        ("q1", "d3", {"b": 1}),
        ("q1", "d2", {"a": 2, "b": 2}),
        ("q2", "d4", {"a": 1}),
    ]
    assert pool[0].notes == {"language": "en"}
    delta = build_pool(js, [a, b], depth=2, strategy="delta")
    assert [p.doc_id for p in delta] == ["d3", "d4", "d2"]  # d2: same rank in both, moves nothing
    write_pool(pool, tmp_path / "p.jsonl")
    assert read_pool(tmp_path / "p.jsonl") == pool
    for kwargs, message in (
        ({"depth": 0}, "`depth` must be a whole number >= 1"),
        ({"budget": 0}, "`budget` must be a whole number >= 1"),
        ({"strategy": "best"}, "--strategy"),
    ):
        with pytest.raises(UsageError, match=message):
            build_pool(js, [a, b], **kwargs)
    with pytest.raises(UsageError, match="at least two runs"):
        build_pool(js, [a], strategy="delta")
    with pytest.raises(UsageError, match="repeated"):
        build_pool(js, [a, a])
    blank = JudgmentSet.from_records([{"query_id": "q1", "text": " "}], {"q1": {"d1": 1}})
    with pytest.raises(UsageError, match="--queries"):
        build_pool(blank, [a])


def test_read_pool_names_line_and_field(tmp_path: Path) -> None:
    from assay.core.errors import InputError

    path = tmp_path / "p.jsonl"
    path.write_text(
        '{"query_id": "q1", "query": "x", "doc_id": "d1"}\n'
        '{"query_id": "q1", "query": "x"}\n'
        '{"query_id": "q1", "query": "x", "doc_id": "d1"}\n'
    )
    with pytest.raises(InputError) as info:
        read_pool(path)
    text = str(info.value)
    assert "p.jsonl:2: [doc_id]" in text and "first seen on line 1" in text
