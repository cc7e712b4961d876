"""VectorSystem: WordLlama from the package files, offline; exact cosine; embedding cache."""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path

import numpy as np
import pytest
from _baselines_scifact import (
    TIMINGS,
    embedding_cache_dir,
    ndcg10,
    scifact,
    timed_run,
    vector_system,
)
from _tables import table_factory

from assay.core.errors import UsageError
from assay.corpora import Corpus
from assay.systems.base import System, config_hash
from assay.systems.embeddings import EmbeddingCache, WordLlamaEncoder, load_encoder
from assay.systems.vector import VectorSystem

from_config = table_factory("vector")


class CountingEncoder:
    """Wraps an encoder and records how many texts each call embeds."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.model_id = inner.model_id  # type: ignore[attr-defined]
        self.dim = inner.dim  # type: ignore[attr-defined]
        self.calls: list[int] = []

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        self.calls.append(len(texts))
        return self.inner.encode(texts, batch_size)  # type: ignore[attr-defined]


class HashEncoder:
    """Deterministic toy encoder: bag of hashed characters, unit length."""

    model_id = "toy-hash"
    dim = 8

    def encode(self, texts: list[str], batch_size: int = 64) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for ch in text:
                out[i, ord(ch) % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return np.divide(out, norms, out=np.zeros_like(out), where=norms > 0)


def _toy() -> Corpus:
    words = ["alpha", "beta gamma", "delta", "epsilon zeta", "eta", "theta", "iota kappa"]
    return Corpus.from_records([{"id": f"d{i}", "text": w} for i, w in enumerate(words)])


def test_scifact_ndcg10_is_well_above_random(shared_data: Path, report_figure) -> None:
    _, _, qrels = scifact(shared_data)
    score = ndcg10(timed_run(shared_data, "vector"), qrels)
    print(f"\nvector (wordllama l2_supercat 256) SciFact test nDCG@10 = {score:.4f} {TIMINGS}")
    report_figure(f"SciFact test nDCG@10, vector (WordLlama): {score:.4f}")
    assert score > 0.3


def test_second_construction_loads_embeddings_from_cache(shared_data: Path) -> None:
    first = vector_system(shared_data)
    corpus, queries, _ = scifact(shared_data)
    counting = CountingEncoder(WordLlamaEncoder())
    second = VectorSystem(corpus, cache_dir=embedding_cache_dir(), encoder=counting).prepare()
    assert second.loaded_from_cache and counting.calls == []
    texts = list(queries.values())[:5]
    assert second.search_many(texts, 10) == first.search_many(texts, 10)
    assert counting.calls == [5]  # only the queries were embedded
    assert EmbeddingCache(embedding_cache_dir()).path(second.cache_key).is_file()


def test_wordllama_loads_offline_from_package_files(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise OSError("network access attempted")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    encoder = WordLlamaEncoder()
    vectors = encoder.encode(["heart attack risk", "myocardial infarction risk", "tax law"])
    assert vectors.shape == (3, 256) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    assert not any(tmp_path.iterdir())  # nothing downloaded or cached under HOME
    short = WordLlamaEncoder(dim=64).encode(["heart attack risk"])
    assert short.shape == (1, 64)


def test_exact_cosine_top_k_matches_brute_force(tmp_path: Path) -> None:
    corpus = _toy()
    system = VectorSystem(corpus, encoder=HashEncoder(), cache_dir=tmp_path)
    docs = HashEncoder().encode(corpus.texts())
    for query in ("kappa", "zeta beta", "a"):
        q = HashEncoder().encode([query])[0]
        sims = docs @ q
        order = sorted(range(len(sims)), key=lambda i: (-sims[i], i))
        for k in (1, 3, 7, 50):
            hits = system.search(query, k)
            assert [h.doc_id for h in hits] == [corpus.ids[i] for i in order[:k]]
            assert [h.score for h in hits] == pytest.approx([float(sims[i]) for i in order[:k]])


def test_cache_key_depends_on_model_version_and_fields(tmp_path: Path) -> None:
    base = EmbeddingCache.key("m", "v1", None)
    assert base != EmbeddingCache.key("m2", "v1", None)
    assert base != EmbeddingCache.key("m", "v2", None)
    assert base != EmbeddingCache.key("m", "v1", ["title"])
    cache = EmbeddingCache(tmp_path / "c")
    matrix = np.arange(6, dtype=np.float32).reshape(3, 2)
    cache.save("k", matrix)
    assert np.array_equal(cache.load("k", 3, 2), matrix)
    assert cache.load("k", 4, 2) is None  # wrong shape: recompute
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["k.npy"]  # no temp files left
    (tmp_path / "c" / "bad.npy").write_bytes(b"not numpy")
    assert cache.load("bad", 3, 2) is None


def test_cache_is_recomputed_for_other_fields(tmp_path: Path) -> None:
    corpus = Corpus.from_records(
        [{"id": "a", "title": "x", "text": "yy"}, {"id": "b", "title": "z", "text": "w"}]
    )
    enc = CountingEncoder(HashEncoder())
    VectorSystem(corpus, encoder=enc, cache_dir=tmp_path).prepare()
    VectorSystem(corpus, encoder=enc, cache_dir=tmp_path, text_fields=["title"]).prepare()
    VectorSystem(corpus, encoder=enc, cache_dir=tmp_path).prepare()
    assert enc.calls == [2, 2]


def test_config_and_protocol(tmp_path: Path) -> None:
    system = VectorSystem(_toy(), encoder=HashEncoder(), cache_dir=None)
    assert isinstance(system, System)
    cfg = system.config
    assert cfg["type"] == "vector" and cfg["model"] == "toy-hash" and cfg["dim"] == 8
    assert cfg["corpus_version"] == _toy().version
    real = VectorSystem(_toy(), model="wordllama", cache_dir=None)
    assert real.config["model"].startswith("wordllama-") and real.config["dim"] == 256
    assert config_hash(
        VectorSystem(_toy(), model="wordllama", dim=128, cache_dir=None).config
    ) != config_hash(real.config)


def test_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError):
        load_encoder("wordllama", dim=100)
    with pytest.raises(UsageError, match="local directory"):
        load_encoder(str(tmp_path / "missing-model"))
    if importlib.util.find_spec("sentence_transformers") is None:
        with pytest.raises(UsageError, match="sentence-transformers"):
            load_encoder(str(tmp_path))
    with pytest.raises(UsageError):
        VectorSystem(_toy(), encoder=HashEncoder(), batch_size=0)
    with pytest.raises(UsageError):
        VectorSystem(_toy(), encoder=HashEncoder(), cache_dir=None).search("x", 0)


def test_from_config_paths_are_relative_to_base_dir(tmp_path: Path) -> None:
    table = {"type": "vector", "model": "wordllama", "cache_dir": "emb", "dim": 64}
    table["text_fields"] = ["text"]
    system = from_config("vec", table, corpus=_toy(), base_dir=tmp_path)
    assert system.name == "vec" and system.config["dim"] == 64
    system.prepare()
    assert (tmp_path / "emb" / f"{system.cache_key}.npy").is_file()
    with pytest.raises(UsageError, match="unknown key"):
        from_config("vec", {"type": "vector", "modle": "x"}, corpus=_toy(), base_dir=tmp_path)
