"""Build :class:`EvaluationResult` objects from per-query values, without a run.

A test helper (tests and benchmarks, not the package) for results with known per-query
scores (e.g. to check a statistic against scipy or a simulation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from assay.results.models import EvaluationResult


def synthetic_result(
    name: str,
    values: Mapping[str, Sequence[float]],
    *,
    query_ids: Sequence[str] | None = None,
    texts: Sequence[str] | None = None,
    metadata: Mapping[str, Sequence[Any]] | None = None,
    first_rel_rank: Sequence[int | None] | None = None,
    judgments_version: str = "v1",
    judgments_name: str = "synthetic",
) -> EvaluationResult:
    """An :class:`EvaluationResult` named ``name`` with the given per-query values.

    ``values`` maps metric name -> one value per query (all the same length);
    ``query_ids`` default to ``q0, q1, ...``; ``metadata`` maps field -> one
    value per query; the aggregate is the mean of each metric.
    """
    from assay.results.models import EvaluationResult, JudgmentsInfo, RunInfo

    columns = {m: [float(v) for v in vals] for m, vals in values.items()}
    lengths = {len(v) for v in columns.values()}
    if len(lengths) != 1:
        raise UsageError("every metric needs the same number of per-query values")
    (n,) = lengths
    ids = [str(q) for q in query_ids] if query_ids is not None else [f"q{i}" for i in range(n)]
    extra = {f: list(v) for f, v in (metadata or {}).items()}
    for seq in (ids, texts, first_rel_rank, *extra.values()):
        if seq is not None and len(seq) != n:
            raise UsageError("query ids, texts, ranks and metadata need one entry per query")
    rows = []
    for j, qid in enumerate(ids):
        row: dict[str, Any] = {
            "query_id": qid,
            "text": texts[j] if texts is not None else f"query {qid}",
            "first_rel_rank": first_rel_rank[j] if first_rel_rank is not None else None,
            "in_run": True,
        }
        row.update({f: v[j] for f, v in extra.items()})
        row.update({m: v[j] for m, v in columns.items()})
        rows.append(row)
    return EvaluationResult(
        judgments=JudgmentsInfo(
            name=judgments_name, version=judgments_version, queries=n, total_queries=n
        ),
        run=RunInfo(name=name, queries_in_run=n),
        metrics=list(columns),
        aggregate={m: (sum(v) / n if n else 0.0) for m, v in columns.items()},
        per_query=rows,
    )
