"""BM25 indexes and document embeddings are cached on disk by corpus version and settings.

Builds are counted (bm25s ``BM25.index`` calls, encoder calls), never timed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from assay.cli.app import main
from assay.corpora import Corpus
from assay.systems.bm25 import BM25System


def _toy(extra: str = "") -> Corpus:
    return Corpus.from_records(
        [
            {"id": "a", "text": "running shoes for runners who run daily"},
            {"id": "b", "text": "rain coats that keep the rain out"},
            {"id": "c", "text": f"the trail runner's guide {extra}"},
        ]
    )


@pytest.fixture
def index_builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every bm25s index build in this process."""
    import bm25s

    calls: list[int] = []
    real = bm25s.BM25.index

    def counting(self: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(bm25s.BM25, "index", counting)
    return calls


def test_second_system_loads_the_index(tmp_path: Path, index_builds: list[int]) -> None:
    first = BM25System(_toy(), cache_dir=tmp_path).prepare()
    second = BM25System(_toy(), cache_dir=tmp_path).prepare()
    assert len(index_builds) == 1
    assert not first.loaded_from_cache and second.loaded_from_cache
    for query in ("trail runner", "rain", "shoes daily", "nothing matches"):
        assert second.search(query, 3) == first.search(query, 3)


def test_other_corpus_or_settings_build_again(tmp_path: Path, index_builds: list[int]) -> None:
    BM25System(_toy(), cache_dir=tmp_path).prepare()
    BM25System(_toy("edited"), cache_dir=tmp_path).prepare()  # another corpus version
    BM25System(_toy(), cache_dir=tmp_path, k1=1.2).prepare()
    BM25System(_toy(), cache_dir=tmp_path, stemmer=None).prepare()
    BM25System(_toy(), cache=False).prepare()
    assert len(index_builds) == 5
    BM25System(_toy(), cache_dir=tmp_path, k1=1.2).prepare()
    assert len(index_builds) == 5


def test_unreadable_entry_is_rebuilt(tmp_path: Path, index_builds: list[int]) -> None:
    system = BM25System(_toy(), cache_dir=tmp_path).prepare()
    assert system.cache_path is not None
    (system.cache_path / "params.index.json").write_text("{not json", encoding="utf-8")
    again = BM25System(_toy(), cache_dir=tmp_path).prepare()
    assert len(index_builds) == 2 and not again.loaded_from_cache
    assert again.search("rain", 2) == system.search("rain", 2)


def test_default_cache_is_under_assay_cache_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "c"))
    system = BM25System(_toy())
    assert system.cache_path is not None and system.cache_path.parent == tmp_path / "c" / "bm25"


def test_second_evaluate_bm25_on_scifact_builds_no_index(
    shared_data: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    index_builds: list[int],
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("ASSAY_CACHE_DIR", str(tmp_path / "cache"))
    argv = ["evaluate", str(shared_data / "beir_scifact"), "--system", "bm25"]
    argv += ["--no-record", "-f", "json", "-m", "nDCG@10"]
    scores = []
    for _ in range(2):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code in (0, None)
        scores.append(json.loads(capsys.readouterr().out)["aggregate"]["nDCG@10"])
    assert len(index_builds) == 1  # the second call loaded the index from disk
    assert scores[0] == scores[1] and abs(scores[0] - 0.679) <= 0.01
