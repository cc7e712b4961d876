"""BM25System: the Lucene flat baseline on BEIR SciFact, parameters, config, from_config."""

from __future__ import annotations

from pathlib import Path

import pytest
from _baselines_scifact import (
    PUBLISHED_BM25_FLAT_NDCG10,
    TIMINGS,
    bm25_system,
    ndcg10,
    scifact,
    timed_run,
)
from _tables import table_factory

from assay.core.errors import UsageError
from assay.corpora import Corpus
from assay.systems.base import Hit, System, config_hash
from assay.systems.bm25 import BM25System

from_config = table_factory("bm25")


def _toy() -> Corpus:
    return Corpus.from_records(
        [
            {"id": "a", "title": "Running shoes", "body": "shoes for runners who run daily"},
            {"id": "b", "title": "Rain coats", "body": "coats that keep the rain out"},
            {"id": "c", "title": "Trail running", "body": "the trail runner's guide"},
            {"id": "d", "title": "Cooking", "body": "pots and pans"},
        ]
    )


def test_scifact_ndcg10_matches_published_lucene_bm25_flat(
    shared_data: Path, report_figure
) -> None:
    _, _, qrels = scifact(shared_data)
    run = timed_run(shared_data, "bm25")
    score = ndcg10(run, qrels)
    print(f"\nbm25 SciFact test nDCG@10 = {score:.4f} timings={TIMINGS}")
    report_figure(f"SciFact test nDCG@10, bm25 (published Lucene flat: 0.679): {score:.4f}")
    assert abs(score - PUBLISHED_BM25_FLAT_NDCG10) <= 0.01


def test_scifact_hits_are_sorted_scored_and_unique(shared_data: Path) -> None:
    corpus, queries, _ = scifact(shared_data)
    run = timed_run(shared_data, "bm25")
    assert set(run) == set(queries)
    ids = set(corpus.ids)
    for hits in run.values():
        assert 0 < len(hits) <= 100
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        assert all(s > 0 for s in scores)
        docs = [h.doc_id for h in hits]
        assert len(set(docs)) == len(docs) and set(docs) <= ids


def test_search_equals_search_many(shared_data: Path) -> None:
    system = bm25_system(shared_data)
    _, queries, _ = scifact(shared_data)
    texts = list(queries.values())[:5]
    assert [system.search(t, 10) for t in texts] == system.search_many(texts, 10)


def test_stemming_and_stopwords_matter() -> None:
    stemmed = BM25System(_toy())
    # "running" stems to "run": doc a says "run", doc c says "running"
    assert [h.doc_id for h in stemmed.search("running", 10)] == ["a", "c"]
    plain = BM25System(_toy(), stemmer=None)
    assert [h.doc_id for h in plain.search("run", 10)] == ["a"]
    # "the" is an English stopword: with stopwords it matches nothing
    assert stemmed.search("the", 10) == []
    no_stop = BM25System(_toy(), stopwords=None)
    assert {h.doc_id for h in no_stop.search("the", 10)} == {"b", "c"}


def test_unknown_terms_and_k() -> None:
    system = BM25System(_toy())
    assert system.search("zzzz qqqq", 5) == []
    assert len(system.search("shoes coats trail pans", 2)) == 2
    assert len(system.search("shoes coats trail pans", 100)) == 4
    with pytest.raises(UsageError):
        system.search("shoes", 0)


def test_against_bm25_formula_on_toy_corpus() -> None:
    """Lucene BM25 by hand: idf = ln(1 + (N - df + .5)/(df + .5)), tf norm with k1, b."""
    import math

    corpus = _toy()
    system = BM25System(corpus, stemmer=None, stopwords=None, k1=1.2, b=0.75)
    docs = [t.lower().replace("'", " ").split() for t in corpus.texts()]
    docs = [[w for w in d if len(w) > 1] for d in docs]
    avgdl = sum(map(len, docs)) / len(docs)
    term = "rain"
    df = sum(term in d for d in docs)
    idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
    d = docs[1]
    tf = d.count(term)
    expected = idf * tf / (tf + 1.2 * (1 - 0.75 + 0.75 * len(d) / avgdl))
    (hit,) = system.search(term, 5)
    assert hit.doc_id == "b"
    assert hit.score == pytest.approx(expected, rel=1e-5)


def test_config_records_every_parameter_and_changes_with_them() -> None:
    system = BM25System(_toy())
    assert isinstance(system, System)
    cfg = system.config
    for key, value in {
        "type": "bm25",
        "k1": 0.9,
        "b": 0.4,
        "method": "lucene",
        "stemmer": "english",
        "stopwords": "en",
        "text_fields": None,
    }.items():
        assert cfg[key] == value
    assert cfg["corpus_version"] == _toy().version
    other = BM25System(_toy(), k1=1.2)
    assert config_hash(other.config) != config_hash(cfg)


def test_bad_parameters_are_usage_errors() -> None:
    for kwargs in ({"k1": -1}, {"b": 2}, {"method": "okapi"}, {"stemmer": "klingon"}):
        with pytest.raises(UsageError):
            BM25System(_toy(), **kwargs)
    with pytest.raises(UsageError):
        BM25System(_toy(), stopwords="xx")
    with pytest.raises(UsageError):
        BM25System(None)


def test_from_config(tmp_path: Path) -> None:
    table = {"type": "bm25", "k1": 1.2, "b": 0.75, "stemmer": "none", "stopwords": ["coats"]}
    system = from_config("kw", table, corpus=_toy(), base_dir=tmp_path)
    assert system.name == "kw"
    assert system.config["k1"] == 1.2 and system.config["stemmer"] is None
    assert system.search("coats", 5) == []
    assert system.search("rain", 5)[0] == Hit("b", system.search("rain", 5)[0].score)
    with pytest.raises(UsageError, match="unknown key"):
        from_config("kw", {"type": "bm25", "k": 3}, corpus=_toy(), base_dir=tmp_path)
