"""The bundled example reproduces seed 000's fixture report; the CLI renders it."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from helpers_answers import run

from assay.answers import AnswersResult, load_cases, score_cases

# Seed 000, step 5 "Evaluate grounded generation": the published fixture report.
SEED_FIXTURE_REPORT = {
    "status_accuracy": 0.75,
    "provenance_pass_rate": 1.0,
    "claim_support_rate": 0.5,
}


@pytest.fixture
def example(examples_dir: Path) -> Path:
    return examples_dir / "answers" / "cases.jsonl"


def test_example_reproduces_seed_fixture_report(example: Path) -> None:
    summary = score_cases(load_cases(example)).summary()
    assert {k: summary[k] for k in SEED_FIXTURE_REPORT} == SEED_FIXTURE_REPORT


def test_example_has_the_seed_failures(example: Path) -> None:
    rows = score_cases(load_cases(example)).per_case
    # one valid, retrieved citation attached to an unsupported claim: provenance passes
    unsupported = [r for r in rows if r["first_failure"] == "unsupported_claim"]
    assert len(unsupported) == 1 and unsupported[0]["provenance_ok"]
    assert unsupported[0]["invalid_citations"] == []
    # one refusal despite sufficient evidence
    refused = [r for r in rows if r["first_failure"] == "wrong_status"]
    assert len(refused) == 1
    assert refused[0]["status"] == "declined" and refused[0]["retrieval_miss"] is False


def test_cli_json_result_file(example: Path, examples_dir: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "result.json"
    corpus = examples_dir / "answers" / "corpus.jsonl"
    argv = ["answers", str(example), "--corpus", str(corpus), "--by", "language"]
    code, stdout, _ = run([*argv, "-o", str(out), "-o", "-"], capsys)
    assert code == 0
    assert "status accuracy" in stdout and "First failing layer" in stdout
    result = AnswersResult.from_file(out)
    assert result.kind == "answers" and result.schema_version == "1"
    assert result.cases.version == load_cases(example).version
    assert result.cases.corpus_ids == 5
    assert {k: result.summary()[k] for k in SEED_FIXTURE_REPORT} == SEED_FIXTURE_REPORT
    assert {v: g["n"] for v, g in result.groups["language"].items()} == {"en": 2, "es": 1, "fr": 1}


def test_cli_json_to_stdout(example: Path, capsys) -> None:
    code, stdout, _ = run(["answers", str(example), "--format", "json"], capsys)
    assert code == 0
    data = json.loads(stdout)
    assert data["kind"] == "answers"
    assert data["scores"]["status_accuracy"]["value"] == SEED_FIXTURE_REPORT["status_accuracy"]


def test_cli_markdown_and_csv(example: Path, capsys) -> None:
    code, md, _ = run(["answers", str(example), "--format", "markdown", "--by", "language"], capsys)
    assert code == 0
    assert "| status accuracy | 0.75 | 3/4 |" in md and "### By language" in md
    code, text, _ = run(["answers", str(example), "--format", "csv", "--by", "language"], capsys)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [(r["group_field"], r["group"], r["n"]) for r in rows] == [
        ("", "", "4"),
        ("language", "en", "2"),
        ("language", "es", "1"),
        ("language", "fr", "1"),
    ]
    assert float(rows[0]["claim_support_rate"]) == SEED_FIXTURE_REPORT["claim_support_rate"]


def test_result_file_refuses_other_files(tmp_path: Path) -> None:
    from assay.core.errors import InputError

    bad = tmp_path / "x.json"
    bad.write_text('{"kind": "evaluation"}', encoding="utf-8")
    with pytest.raises(InputError):
        AnswersResult.from_file(bad)
