"""KeywordSystem: TF-IDF cosine, no-overlap exclusion, ties, k, config."""

from __future__ import annotations

import pytest
from _tables import table_factory

from assay.core.errors import UsageError
from assay.corpora import Corpus
from assay.systems.base import Hit, System, config_hash
from assay.systems.keyword import KeywordSystem

from_config = table_factory("keyword")


def _corpus() -> Corpus:
    return Corpus.from_records(
        [
            {"id": "a", "title": "Solar power", "body": "energy from the sun"},
            {"id": "b", "title": "Wind power", "body": "energy from wind"},
            {"id": "c", "title": "Tides", "body": "moon and sea"},
            {"id": "d", "title": "Wind power", "body": "energy from wind"},
        ]
    )


def test_is_a_system_and_matches_sklearn_cosine() -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    corpus = _corpus()
    system = KeywordSystem(corpus)
    assert isinstance(system, System)
    query = "wind energy"
    hits = system.search(query, 10)
    vec = TfidfVectorizer(token_pattern=r"\w+", lowercase=True)
    matrix = vec.fit_transform(corpus.texts())
    expected = cosine_similarity(vec.transform([query]), matrix)[0]
    assert [h.doc_id for h in hits] == ["b", "d", "a"]  # c shares no term
    for h in hits:
        assert h.score == pytest.approx(expected[corpus.ids.index(h.doc_id)])


def test_ties_follow_corpus_order_and_k_cuts() -> None:
    system = KeywordSystem(_corpus())
    hits = system.search("WIND", 1)
    assert hits == [Hit("b", hits[0].score)]  # b and d tie; b comes first in the corpus
    assert system.search("wind", 0) == []


def test_no_shared_term_returns_nothing() -> None:
    assert KeywordSystem(_corpus()).search("hydrogène", 10) == []
    assert KeywordSystem(_corpus()).search("", 10) == []


def test_text_fields_restrict_what_is_indexed() -> None:
    titles = KeywordSystem(_corpus(), text_fields=["title"])
    assert titles.search("energy", 10) == []
    assert titles.config["text_fields"] == ["title"]
    assert config_hash(titles.config) != config_hash(KeywordSystem(_corpus()).config)


def test_empty_vocabulary_is_a_usage_error() -> None:
    corpus = Corpus.from_records([{"id": "x", "t": ""}], text_fields=["t"])
    with pytest.raises(UsageError, match="hold no words"):
        KeywordSystem(corpus)


def test_from_config_needs_a_corpus(tmp_path) -> None:
    with pytest.raises(UsageError, match="needs a corpus"):
        from_config("kw", {"type": "keyword"}, corpus=None, base_dir=tmp_path)
    system = from_config("kw", {"text_fields": "title"}, corpus=_corpus(), base_dir=tmp_path)
    assert system.name == "kw" and system.text_fields == ("title",)
