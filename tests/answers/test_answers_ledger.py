"""The integrity ledger: every case read is, for every measure, scored or left out with a reason."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from helpers_answers import run

from assay.answers import load_cases, score_cases
from assay.answers.rows import read_text_cases
from assay.answers.text_score import score_text_cases

CASE_LEVEL = (
    "status_accuracy",
    "provenance_pass_rate",
    "refusal_accuracy",
    "false_refusal_rate",
    "hallucination_rate",
    "numeric_accuracy",
    "evidence_hit_rate",
)


def test_structured_ledger_matches_each_denominator(examples_dir: Path) -> None:
    result = score_cases(load_cases(examples_dir / "answers" / "cases.jsonl"))
    ledger = result.ledger
    assert ledger is not None and ledger.cases_read == len(result.per_case)
    assert set(ledger.measures) == set(result.scores)
    for name, entry in ledger.measures.items():
        assert entry.scored + sum(entry.left_out.values()) == ledger.cases_read, name
        for reason, ids in entry.left_out_cases.items():
            assert len(ids) == entry.left_out[reason]
        if name in CASE_LEVEL:  # scores over cases: the ledger's count is the denominator
            assert entry.scored == result.scores[name].denominator, name
    claims = [r for r in result.per_case if r["claims"]]
    assert ledger.measures["claim_support_rate"].scored == len(claims)


def test_text_ledger_counts_and_no_nan_averaged(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [
        {"user_input": "q1", "response": "Paris", "reference": "Paris"},
        {"user_input": "q2", "response": None, "reference": "Rome"},
        {"user_input": "q3", "response": "Lyon", "reference": None},
        {"user_input": "q4", "response": "東京", "reference": "東京"},
        {"user_input": "q5", "response": "the Seine", "reference": "Seine river"},
    ]
    path = tmp_path / "cases.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    result = score_text_cases(read_text_cases(path, "ragas"))
    ledger = result.ledger
    assert ledger.cases_read == 5
    em = ledger.measures["exact_match"]
    assert em.scored == 3 and em.left_out == {"no response": 1, "no reference": 1}
    assert em.left_out_cases == {"no response": ["row 2"], "no reference": ["row 3"]}
    rouge = ledger.measures["rouge_l"]
    assert rouge.left_out == {"no response": 1, "no reference": 1, "no ROUGE tokens": 1}
    for score in result.scores.values():
        assert score.value is not None and math.isfinite(score.value)
    assert (result.scores["exact_match"].numerator, result.scores["exact_match"].denominator) == (
        2,
        3,
    )
    f1 = [r["token_f1"] for r in result.per_case if r["token_f1"] is not None]
    assert result.scores["token_f1"].value == pytest.approx(sum(f1) / 3)
    assert (result.scores["token_f1"].numerator, result.scores["token_f1"].denominator) == (3, 5)


def test_nan_cells_are_left_out_not_averaged(tmp_path: Path) -> None:
    import pandas as pd

    frame = pd.DataFrame({"user_input": ["q1", "q2"], "response": [float("nan"), float("nan")]})
    frame["reference"] = ["a", "b"]
    frame.to_parquet(tmp_path / "nan.parquet")
    result = score_text_cases(read_text_cases(tmp_path / "nan.parquet", "ragas"))
    assert result.ledger.measures["token_f1"].left_out == {"no response": 2}
    assert result.scores["token_f1"].value is None
    assert (result.scores["token_f1"].numerator, result.scores["token_f1"].denominator) == (0, 2)


def test_report_shows_every_rate_as_n_of_n(
    data_dir: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = data_dir / "answers_text" / "ragas.jsonl"
    code, out, _ = run(["answers", str(path), "--no-record", "-f", "markdown"], capsys)
    assert code == 0
    assert "| exact match | 3/5 | 2/5 | no reference: 1; no response: 1 |" in out
    assert "Policy: exact_match and token_f1: SQuAD v1.1 rule" in out
    code, out, _ = run(["answers", str(path), "--no-record", "-f", "json"], capsys)
    result = json.loads(out)
    assert result["source"] == "ragas" and result["policy"]
