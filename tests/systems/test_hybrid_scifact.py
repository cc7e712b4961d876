"""HybridSystem: RRF of BM25 and vector on SciFact, reproducibility, from_config contract."""

from __future__ import annotations

from pathlib import Path

import pytest
from _baselines_scifact import TIMINGS, bm25_system, ndcg10, scifact, timed_run, vector_system
from _tables import table_factory

from assay.core.errors import UsageError
from assay.corpora import Corpus
from assay.runs.models import Run
from assay.systems.base import FunctionSystem, Hit, System, config_hash
from assay.systems.fusion import fuse_rrf
from assay.systems.hybrid import HybridSystem

from_config = table_factory("hybrid")


def _fixed(name: str, ranking: list[tuple[str, float]]) -> FunctionSystem:
    return FunctionSystem(lambda q, k: ranking[:k], name=name)


def test_scifact_hybrid_rrf_ndcg10_and_reproducible(shared_data: Path, report_figure) -> None:
    _, queries, qrels = scifact(shared_data)
    run = timed_run(shared_data, "hybrid")
    score = ndcg10(run, qrels)
    bm25 = ndcg10(timed_run(shared_data, "bm25"), qrels)
    vector = ndcg10(timed_run(shared_data, "vector"), qrels)
    print(f"\nSciFact nDCG@10 bm25={bm25:.4f} vector={vector:.4f} hybrid-rrf={score:.4f}")
    print(f"timings (s): {TIMINGS}")
    report_figure(f"SciFact test nDCG@10, hybrid RRF(bm25, vector): {score:.4f}")
    assert score > 0.3
    again = HybridSystem([bm25_system(shared_data), vector_system(shared_data)])
    texts = list(queries.values())
    assert again.search_many(texts, 100) == list(run.values())


def test_hybrid_equals_run_level_rrf(shared_data: Path) -> None:
    """The system path and the pure Run function fuse identically."""
    _, queries, _ = scifact(shared_data)
    some = dict(list(queries.items())[:20])
    parts = [bm25_system(shared_data), vector_system(shared_data)]
    runs = []
    for system in parts:
        hits = system.search_many(list(some.values()), 1000)
        ranking = {q: [(h.doc_id, h.score) for h in hs] for q, hs in zip(some, hits, strict=True)}
        runs.append(Run.from_dict(ranking, name=system.name))
    expected = fuse_rrf(runs, k=60, depth=1000, limit=10).to_dict(ties="given")
    got = HybridSystem(parts).search_many(list(some.values()), 10)
    for qid, hits in zip(some, got, strict=True):
        assert [(h.doc_id, h.score) for h in hits] == expected[qid]


def test_rrf_minmax_interpolation_by_hand() -> None:
    a = _fixed("a", [("x", 10.0), ("y", 5.0), ("z", 0.0)])
    b = _fixed("b", [("z", 0.9), ("x", 0.1)])
    rrf = HybridSystem([a, b], k_rrf=1).search("q", 10)
    assert rrf == [Hit("x", 1 / 2 + 1 / 3), Hit("z", 1 / 4 + 1 / 2), Hit("y", 1 / 3)]
    mm = HybridSystem([a, b], method="minmax", weights=[1, 3]).search("q", 2)
    assert [h.doc_id for h in mm] == ["z", "x"]
    assert [h.score for h in mm] == pytest.approx([3.0, 1.0])
    ip = HybridSystem([a, b], method="interpolation", alpha=0.4).search("q", 3)
    assert [h.doc_id for h in ip] == ["x", "y", "z"]
    assert [h.score for h in ip] == pytest.approx([4.06, 2.0, 0.54])


def test_depth_limits_what_each_system_contributes() -> None:
    a = _fixed("a", [("x", 3.0), ("y", 2.0), ("w", 1.0)])
    b = _fixed("b", [("w", 3.0), ("y", 2.0)])
    shallow = HybridSystem([a, b], depth=1)
    assert [h.doc_id for h in shallow.search("q", 1)] == ["w"]  # w and x tie; id ascending
    # full depth: w gets 1/61 + 1/63, just above y (2/62)
    assert [h.doc_id for h in HybridSystem([a, b]).search("q", 3)] == ["w", "y", "x"]


def test_config_nests_the_fused_systems() -> None:
    a, b = _fixed("a", [("x", 1.0)]), _fixed("b", [("x", 1.0)])
    hybrid = HybridSystem([a, b])
    assert isinstance(hybrid, System)
    cfg = hybrid.config
    assert cfg["type"] == "hybrid" and cfg["method"] == "rrf" and cfg["k_rrf"] == 60
    assert [s["name"] for s in cfg["systems"]] == ["a", "b"]
    assert config_hash(cfg) != config_hash(HybridSystem([a, b], k_rrf=10).config)


def test_bad_parameters() -> None:
    a, b = _fixed("a", []), _fixed("b", [])
    for kwargs in (
        {"method": "borda"},
        {"k_rrf": -1},
        {"depth": 0},
        {"weights": [1.0]},
        {"method": "interpolation", "alpha": 2.0},
    ):
        with pytest.raises(UsageError):
            HybridSystem([a, b], **kwargs)
    with pytest.raises(UsageError):
        HybridSystem([a])
    with pytest.raises(UsageError):
        HybridSystem([a, a, b], method="interpolation")
    assert HybridSystem([a, b]).search("q", 5) == []


def test_from_config_with_a_resolver(tmp_path: Path) -> None:
    built = {"s1": _fixed("s1", [("x", 1.0), ("y", 0.5)]), "s2": _fixed("s2", [("y", 2.0)])}
    table = {"type": "hybrid", "systems": ["s1", "s2"], "resolve": built.__getitem__, "k_rrf": 1}
    hybrid = from_config("h", table, corpus=None, base_dir=tmp_path)
    assert hybrid.name == "h" and [s.name for s in hybrid.systems] == ["s1", "s2"]
    assert hybrid.search("q", 1) == [Hit("y", 1 / 3 + 1 / 2)]
    direct = HybridSystem(list(built.values()), name="h2", method="minmax")  # built systems
    assert direct.method == "minmax"
    with pytest.raises(UsageError, match="itself"):
        from_config(
            "h", {"systems": ["h", "s1"], "resolve": built.get}, corpus=None, base_dir=tmp_path
        )
    with pytest.raises(UsageError, match="systems: list should have at least 2 items"):
        from_config("h", {"systems": ["s1"]}, corpus=None, base_dir=tmp_path)


def test_from_config_resolves_names_through_the_registry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("assay.systems.config")
    corpus = tmp_path / "docs.jsonl"
    corpus.write_text(
        '{"id": "a", "text": "solar power from the sun"}\n'
        '{"id": "b", "text": "wind power and turbines"}\n'
        '{"id": "c", "text": "tides of the sea"}\n'
    )
    (tmp_path / "assay.toml").write_text(
        '[systems.bm25]\ntype = "bm25"\ncorpus = "docs.jsonl"\n\n'
        '[systems.vector]\ntype = "vector"\nmodel = "wordllama"\n'
        'corpus = "docs.jsonl"\ncache_dir = "cache"\n\n'
        '[systems.hybrid]\ntype = "hybrid"\ncorpus = "docs.jsonl"\nsystems = ["bm25", "vector"]\n'
    )
    from assay.systems.config import build_system

    monkeypatch.chdir(tmp_path)
    hybrid = build_system("hybrid")
    assert isinstance(hybrid, HybridSystem)
    assert [type(s).__name__ for s in hybrid.systems] == ["BM25System", "VectorSystem"]
    assert hybrid.search("wind turbines", 1)[0].doc_id == "b"
    assert isinstance(Corpus, type)
