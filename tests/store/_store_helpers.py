"""Helpers for the store tests: small evaluation results built without scoring."""

from __future__ import annotations

from typing import Any

from assay.results.models import EvaluationResult, JudgmentsInfo, RunInfo


def make_result(
    system: str = "sys",
    *,
    judgments: str = "qs",
    version: str = "sha256:aaaaaaaaaaaaaaaa",
    values: list[float] | None = None,
    created_at: str | None = None,
    tag: str = "",
    environment: dict[str, Any] | None = None,
    queries: int = 20,
) -> EvaluationResult:
    """An evaluation result with ``queries`` per-query rows of nDCG@10 and RR."""
    vals = values if values is not None else [((i * 7) % 11) / 10 for i in range(queries)]
    per_query = [
        {
            "query_id": f"q{i:03d}",
            "text": f"query {i} {tag}",
            "first_rel_rank": 1 if v > 0 else None,
            "in_run": True,
            "nDCG@10": v,
            "RR": v / 2,
        }
        for i, v in enumerate(vals)
    ]
    extra = {"created_at": created_at} if created_at else {}
    return EvaluationResult(
        judgments=JudgmentsInfo(name=judgments, version=version, queries=len(vals)),
        run=RunInfo(name=system, queries_in_run=len(vals), system={"type": "test", "tag": tag}),
        metrics=["nDCG@10", "RR"],
        aggregate={
            "nDCG@10": sum(vals) / len(vals),
            "RR": sum(v / 2 for v in vals) / len(vals),
        },
        per_query=per_query,
        environment=environment or {"git_commit": "abc123", "git_dirty": False},
        **extra,
    )
