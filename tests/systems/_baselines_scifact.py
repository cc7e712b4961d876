"""SciFact test split, loaded once per test session, for the baseline tests.

Not a test module: the ``test_bm25*``, ``test_vector*`` and ``test_hybrid*``
files import it so that the corpus, the BM25 index and the document embeddings
are built once per session (module-level caches), whichever files run.
nDCG@10 comes from pytrec_eval, an independent implementation of trec_eval.
"""

from __future__ import annotations

import atexit
import functools
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

#: Published BM25 flat (Lucene, k1=0.9, b=0.4) nDCG@10 on BEIR SciFact test:
#: Pyserini/Anserini BEIR regressions ("bm25-flat").
PUBLISHED_BM25_FLAT_NDCG10 = 0.679

#: Wall times measured in this session (seconds), printed by the tests.
TIMINGS: dict[str, float] = {}


@functools.cache
def scifact(root: Path) -> tuple[Any, dict[str, str], dict[str, dict[str, int]]]:
    """(corpus, {query_id: text} for the 300 test queries, qrels) of BEIR SciFact."""
    from assay.corpora import load_corpus

    folder = root / "beir_scifact"
    corpus = load_corpus(folder / "corpus.jsonl")
    qrels: dict[str, dict[str, int]] = {}
    lines = (folder / "qrels" / "test.tsv").read_text(encoding="utf-8").splitlines()
    for line in lines[1:]:
        qid, doc, grade = line.split("\t")
        qrels.setdefault(qid, {})[doc] = int(grade)
    queries: dict[str, str] = {}
    for line in (folder / "queries.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record["_id"] in qrels:
            queries[record["_id"]] = record["text"]
    return corpus, queries, qrels


@functools.cache
def embedding_cache_dir() -> Path:
    """A temporary embedding cache shared by the session's vector systems."""
    folder = Path(tempfile.mkdtemp(prefix="assay-test-embeddings-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


def run_system(system: Any, queries: dict[str, str], k: int = 100) -> dict[str, list[Any]]:
    """``{query_id: hits}`` from the system's batch search."""
    hits = system.search_many(list(queries.values()), k)
    return dict(zip(queries, hits, strict=True))


def ndcg10(run: dict[str, list[Any]], qrels: dict[str, dict[str, int]]) -> float:
    """Mean nDCG@10 over the judged queries, by pytrec_eval (absent queries count 0)."""
    import pytrec_eval

    as_dict = {q: {h.doc_id: float(h.score) for h in hits} for q, hits in run.items()}
    per_query = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(as_dict)
    return statistics.fmean(per_query.get(q, {}).get("ndcg_cut_10", 0.0) for q in qrels)


@functools.cache
def bm25_system(root: Path) -> Any:
    """BM25 over SciFact with the default (Lucene flat) parameters, index built."""
    from assay.systems.bm25 import BM25System

    corpus, _, _ = scifact(root)
    start = time.perf_counter()
    system = BM25System(corpus).prepare()
    TIMINGS["bm25 index"] = time.perf_counter() - start
    return system


@functools.cache
def vector_system(root: Path) -> Any:
    """WordLlama vector search over SciFact, embeddings cached in the session cache dir."""
    from assay.systems.vector import VectorSystem

    corpus, _, _ = scifact(root)
    start = time.perf_counter()
    system = VectorSystem(corpus, model="wordllama", cache_dir=embedding_cache_dir()).prepare()
    TIMINGS["vector embed"] = time.perf_counter() - start
    return system


@functools.cache
def timed_run(root: Path, which: str) -> dict[str, list[Any]]:
    """The 300-query run of ``bm25`` / ``vector`` / ``hybrid`` (cached), timing the searches."""
    from assay.systems.hybrid import HybridSystem

    _, queries, _ = scifact(root)
    if which == "bm25":
        system = bm25_system(root)
    elif which == "vector":
        system = vector_system(root)
    else:
        system = HybridSystem([bm25_system(root), vector_system(root)])
    start = time.perf_counter()
    run = run_system(system, queries, k=100)
    TIMINGS[f"{which} 300 queries"] = time.perf_counter() - start
    return run
