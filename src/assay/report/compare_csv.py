"""Render the paired per-query values of a :class:`ComparisonResult` as CSV."""

from __future__ import annotations

from assay.io.csvout import csv_text
from assay.report.digits import exact
from assay.stats.models import ComparisonResult


def render_csv(result: ComparisonResult) -> str:
    """One row per paired query: id, text, slices, each system's value per metric,
    each candidate's delta per metric, each system's first relevant rank."""
    systems = [s.name for s in result.systems]
    candidates = result.candidates
    fields = list(result.settings.by)
    header = ["query_id", "text", *fields]
    header += [f"{m} [{s}]" for m in result.metrics for s in systems]
    header += [f"delta {m} [{c}]" for m in result.metrics for c in candidates]
    header += [f"first_rel_rank [{s}]" for s in systems]
    rows: list[list[object]] = []
    for q in result.per_query:
        row: list[object] = [q.query_id, q.text, *(q.slices.get(f) or "" for f in fields)]
        row += [repr(exact(q.values[s][m], m)) for m in result.metrics for s in systems]
        row += [repr(exact(q.deltas[c][m], m)) for m in result.metrics for c in candidates]
        row += ["" if q.first_rel_rank.get(s) is None else q.first_rel_rank[s] for s in systems]
        rows.append(row)
    return csv_text(header, rows)
