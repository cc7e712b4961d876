"""Every result kind, as written by the release before issue 9, still reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from assay.results.models import read_result_file

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "results"
KINDS = {
    "evaluation.json": "evaluation",
    "evaluation_failed.json": "evaluation",
    "comparison.json": "comparison",
    "gate.json": "gate",
    "verify.json": "verify",
    "answers.json": "answers",
    "matrix.json": "matrix",
    "history.json": "history",
    "agreement.json": "agreement",
    "calibration.json": "calibration",
    "model_judgments.json": "model_judgments",
    "model_claims.json": "model_claims",
    "model_answers.json": "model_answers",
    "synthetic_queries.json": "synthetic-queries",
    "implicit_judgments.json": "implicit_judgments",
    "validation.json": "validation",
    "rubric_judge.json": "rubric_judge",
    "pairwise_judge.json": "pairwise_judge",
    "tuning.json": "tuning",
}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_fixture_reads(name: str) -> None:
    path = FIXTURES / name
    result = read_result_file(path)
    assert result.kind == KINDS[name]
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert result.schema_version == raw["schema_version"] or raw["schema_version"] == "1"


def test_every_kind_has_a_fixture() -> None:
    from assay.report.render import FORMATS_BY_KIND

    assert set(KINDS.values()) == set(FORMATS_BY_KIND)


@pytest.mark.parametrize("name", sorted(n for n in KINDS if KINDS[n] != "verify"))
def test_fixture_round_trips_without_loss(name: str) -> None:
    """Reading an old file and writing it again keeps every field and value."""
    path = FIXTURES / name
    raw = json.loads(path.read_text(encoding="utf-8"))
    again = json.loads(read_result_file(path).to_json())
    if KINDS[name] == "evaluation":  # schema 1 -> 2: the rows are now columns
        assert raw["schema_version"] == "1" and again["schema_version"] == "2"
        again["schema_version"] = "1"
        again["per_query"] = _as_rows(again["per_query"], raw["per_query"])
    if KINDS[name] == "comparison":  # schema 1 -> 2: the paired rows are now columns
        assert raw["schema_version"] == "1" and again["schema_version"] == "2"
        again["schema_version"] = "1"
        again["per_query"] = _paired_rows(again["per_query"])
    assert _old_fields(again, raw) == raw


def _paired_rows(columns: dict) -> list:
    """A comparison's columns back to its paired-query rows."""

    def at(nested: dict, j: int) -> dict:
        return {s: {m: v[j] for m, v in ms.items()} for s, ms in nested.items()}

    return [
        {
            "query_id": q,
            "text": columns["text"][j],
            "slices": {f: v[j] for f, v in columns["slices"].items()},
            "values": at(columns["values"], j),
            "deltas": at(columns["deltas"], j),
            "first_rel_rank": {s: v[j] for s, v in columns["first_rel_rank"].items()},
        }
        for j, q in enumerate(columns["query_id"])
    ]


def _as_rows(columns: dict, old_rows: list) -> list:
    """Columns back to rows, each with the keys its old row had; a key an old row
    lacked (a metadata field without a value) must be null in its column."""
    assert all(len(v) == len(old_rows) for v in columns.values())
    rows = []
    for i, old in enumerate(old_rows):
        rows.append({k: columns[k][i] for k in old})
        assert all(columns[k][i] is None for k in columns if k not in old)
    return rows


#: Fields added since the fixtures were written: the policy both sides of a gate
#: used, and the failed queries that gates, comparisons and verify-suite report.
NEW_FIELDS = {
    "policies",
    "policy",
    "failed_queries",
    "max_failed",
    "failed_check",
    "label_sources",
    "synthetic_queries",
    "synthetic_overlap",
    "ignore_identical_ids",
    "identical_ids_dropped",
    "assay_version",  # history results before they were registered result kinds
    "output",  # synthetic-queries: the queries file written
    # answers: the integrity ledger, the format read, how contexts got ids, a score's kind
    "ledger",
    "source",
    "context_matches",
    "kind",
    # model-claims: claims extracted from free text, the PPI++ interval of support
    "extraction",
    "faithfulness",
    "reliability",  # matrix: pass@k, pass^k and flip rates (issue 37)
    "overlap",  # comparisons: the runs' RBO and Jaccard@k
    "correction",  # matrix: the comparisons' multiple-testing correction
}


def _old_fields(new: object, old: object) -> object:
    """``new`` without the :data:`NEW_FIELDS` that ``old`` lacks, at any depth."""
    if isinstance(new, dict) and isinstance(old, dict):
        extra = set(new) - set(old)
        assert extra <= NEW_FIELDS, extra
        return {k: _old_fields(new[k], old[k]) for k in old if k in new}
    if isinstance(new, list) and isinstance(old, list) and len(new) == len(old):
        return [_old_fields(a, b) for a, b in zip(new, old, strict=True)]
    return new
