"""The vector baseline's corpus embedded in chunks on two Ray nodes: the local vectors, bit
for bit, the same cache file and the same hits (WordLlama from its package files)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
from helpers_ray import now_ms

pytestmark = [
    pytest.mark.ray,
    pytest.mark.skipif(
        importlib.util.find_spec("wordllama") is None, reason="wordllama is not installed"
    ),
]


def test_corpus_embedded_on_two_nodes_equals_local(
    on_ray, shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from assay.corpora import Corpus
    from assay.executors import use
    from assay.systems import vector
    from assay.systems.embeddings import EmbeddingCache, WordLlamaEncoder

    with (shared_data / "beir_scifact" / "corpus.jsonl").open() as lines:
        rows = [json.loads(next(lines)) for _ in range(240)]
    corpus = Corpus.from_records([{"id": r["_id"], "text": r["text"]} for r in rows])
    monkeypatch.setattr(vector, "_CHUNK", 48)  # five chunks (tasks) on both paths
    queries = ["cancer cell growth", "vitamin d deficiency", "protein folding in yeast"]
    systems, calls = {}, {}
    since = now_ms()
    for executor in ("local", "ray"):
        with use(executor):
            encoder = WordLlamaEncoder()
            system = vector.VectorSystem(corpus, encoder=encoder, cache_dir=tmp_path / executor)
            systems[executor] = system.prepare()
            calls[executor] = encoder._model is not None  # did this process embed documents?
    local, ray = systems["local"], systems["ray"]
    assert not ray.loaded_from_cache and calls == {"local": True, "ray": False}
    assert local._matrix is not None and ray._matrix is not None
    assert ray._matrix.dtype == local._matrix.dtype and np.array_equal(ray._matrix, local._matrix)
    files = [EmbeddingCache(tmp_path / e).path(systems[e].cache_key) for e in ("local", "ray")]
    assert files[0].read_bytes() == files[1].read_bytes()
    assert ray.search_many(queries, 10) == local.search_many(queries, 10)
    assert len(on_ray.nodes_of("assay:encode_chunk", since)) == 2
