"""Pairing evaluation results by query id, over their per-query columns.

Each result's ``query_id`` column is matched against the baseline's with
Arrow's ``index_in`` (a query repeated in a result counts once, at its first
row), and the measure columns are gathered by position into one
systems x metrics x queries array: no Python object per query.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.results.perquery import _chunk

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from assay.results.models import EvaluationResult


@dataclass
class Paired:
    """Rows of each system holding the queries every system has, baseline order."""

    shared: int  # queries in every system
    rows: list[np.ndarray]  # per system: row of each paired query (finite values only)
    unique: list[int]  # per system: distinct query ids
    values: np.ndarray  # systems x metrics x paired queries


def _positions(ids: Any, within: Any) -> np.ndarray:
    """Row of each of ``ids`` in ``within`` (its first, when repeated); -1 where absent."""
    import numpy as np
    import pyarrow.compute as pc

    found = pc.index_in(ids, value_set=within).fill_null(-1)
    return found.to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def pair_results(results: list[EvaluationResult], metric_names: list[str]) -> Paired:
    """Pair ``results`` (baseline first) on query id; keep queries finite in every value."""
    import numpy as np

    tables = [r.per_query_table() for r in results]
    ids = [_chunk(t.table.column("query_id")) for t in tables]
    firsts = [_positions(i, i) == np.arange(len(i)) for i in ids]
    base_rows = np.flatnonzero(firsts[0])
    base_ids = ids[0].take(base_rows)
    rows = [base_rows] + [_positions(base_ids, i) for i in ids[1:]]
    shared = np.logical_and.reduce([r >= 0 for r in rows]) if rows else np.zeros(0, bool)
    rows = [r[shared] for r in rows]
    values = np.array(
        [[_measure(t, m)[r] for m in metric_names] for t, r in zip(tables, rows, strict=True)],
        dtype=np.float64,
    ).reshape(len(tables), len(metric_names), -1)
    finite = np.isfinite(values).all(axis=(0, 1))
    return Paired(
        shared=int(shared.sum()),
        rows=[r[finite] for r in rows],
        unique=[int(f.sum()) for f in firsts],
        values=values[:, :, finite],
    )


def _measure(table: Any, name: str) -> np.ndarray:
    """A measure column as float64 (NaN throughout when the result lacks it)."""
    import numpy as np

    if name not in table.columns:
        return np.full(len(table), np.nan)
    return np.asarray(table.column(name), dtype=np.float64)


def column_values(result: EvaluationResult, name: str, rows: np.ndarray) -> list[Any]:
    """The values of column ``name`` at ``rows`` as Python values (for the few listed)."""
    import pyarrow as pa

    table = result.per_query_table().table
    if name not in table.column_names:
        return [None] * len(rows)
    return table.column(name).take(pa.array(rows)).to_pylist()
