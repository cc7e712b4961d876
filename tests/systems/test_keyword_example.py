"""The bundled statistics example reproduces seed 003's keyword baseline.

Oracles: the seed's stated rank facts and its published table (all n=14
R@5 0.57 R@10 0.57 MRR 0.57; en n=10 0.80; es and fr 0.00), computed here with
pytrec_eval, an independent implementation.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from assay.corpora import load_corpus
from assay.systems.base import System
from assay.systems.keyword import KeywordSystem

ENGLISH_HITS = ("q02", "q03", "q04", "q06", "q07", "q08", "q09", "q10")
PARAPHRASE_MISSES = ("q01", "q05")
OTHER_LANGUAGE = ("q11", "q12", "q13", "q14")


@pytest.fixture(scope="module")
def example(examples_dir: Path) -> Path:
    return examples_dir / "statistics"


@pytest.fixture(scope="module")
def questions(example: Path) -> list[dict[str, str]]:
    with (example / "questions.csv").open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _ranks(system: System, questions: list[dict[str, str]]) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for q in questions:
        ids = [h.doc_id for h in system.search(q["question"], 10)]
        out[q["question_id"]] = ids.index(q["expected_id"]) + 1 if q["expected_id"] in ids else None
    return out


def test_questions_file_is_the_seed_set(questions: list[dict[str, str]]) -> None:
    assert len(questions) == 15
    assert list(questions[0]) == ["question_id", "language", "question", "expected_id", "note"]
    by_id = {q["question_id"]: q for q in questions}
    assert by_id["q04"]["note"] == "paraphrase; description field empty"
    assert by_id["q12"]["question"] == "mortalité des enfants de moins de cinq ans"
    assert by_id["q15"]["expected_id"] == "NONE"
    assert sum(q["language"] == "en" for q in questions) == 11


def test_catalog_has_the_five_series(example: Path) -> None:
    c = load_corpus(example / "catalog.csv")
    assert sorted(c.ids) == sorted(
        [
            "FS_UNDERNOURISH_PCT",
            "ED_PRIMARY_NER_PCT",
            "HE_U5_MORT_RATE",
            "LF_UNEMP_PCT",
            "PV_HEADCOUNT_NPL_PCT",
        ]
    )
    assert c.get("LF_UNEMP_PCT")["definition_long"] == ""


def test_rank_facts_of_the_seed(example: Path, questions: list[dict[str, str]]) -> None:
    system = KeywordSystem(load_corpus(example / "catalog.csv"))
    ranks = _ranks(system, questions)
    for qid in ENGLISH_HITS:
        assert ranks[qid] == 1, qid
    for qid in PARAPHRASE_MISSES + OTHER_LANGUAGE:
        assert ranks[qid] is None, qid
    # "share no word with any record": nothing at all comes back.
    text = {q["question_id"]: q["question"] for q in questions}
    for qid in PARAPHRASE_MISSES + OTHER_LANGUAGE:
        assert system.search(text[qid], 10) == [], qid


def test_published_table(example: Path, questions: list[dict[str, str]]) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    system = KeywordSystem(load_corpus(example / "catalog.csv"))
    answerable = [q for q in questions if q["expected_id"] != "NONE"]
    qrels = {q["question_id"]: {q["expected_id"]: 1} for q in answerable}
    run = {
        q["question_id"]: {h.doc_id: h.score for h in system.search(q["question"], 10)}
        for q in answerable
    }
    measures = pytrec_eval.RelevanceEvaluator(qrels, {"recall.5,10", "recip_rank"}).evaluate(run)

    def table(lang: str | None) -> tuple[int, float, float, float]:
        ids = [q["question_id"] for q in answerable if lang is None or q["language"] == lang]
        get = lambda m: round(sum(measures[i][m] for i in ids if i in measures) / len(ids), 2)  # noqa: E731
        return len(ids), get("recall_5"), get("recall_10"), get("recip_rank")

    assert table(None) == (14, 0.57, 0.57, 0.57)
    assert table("en") == (10, 0.80, 0.80, 0.80)
    assert table("es") == (2, 0.0, 0.0, 0.0)
    assert table("fr") == (2, 0.0, 0.0, 0.0)


def test_worse_configuration_scores_lower(example: Path, questions: list[dict[str, str]]) -> None:
    """Seed 003, verification of the suite: dropping descriptions must cost hits."""
    catalog = load_corpus(example / "catalog.csv")
    full = _ranks(KeywordSystem(catalog), questions)
    names_only = _ranks(KeywordSystem(catalog.select(["name"])), questions)

    def hits(ranks: dict[str, int | None]) -> int:
        return sum(1 for r in ranks.values() if r is not None and r <= 5)

    assert hits(names_only) < hits(full)
