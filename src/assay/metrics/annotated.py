"""The rows BEIR's Hole@k needs: retrieved documents that some judgment names.

BEIR calls the doc ids of every qrels line, for any query and with any grade,
the "annotated corpus"; a retrieved document outside it is a hole. The engine
keeps only the rows judged for their own query, so when Hole@k is asked it
also gathers, down to the deepest Hole cutoff, the ``(query, rank)`` of every
row whose doc is annotated (:class:`assay.metrics.kernels.Context.annotated`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from assay.core.pairs import arrow_text

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet


def named_docs(judgments: JudgmentSet) -> Any:
    """Every doc id a judgment of the set names, for any query and any grade (Arrow)."""
    import pyarrow.compute as pc

    return pc.unique(arrow_text(judgments.qrels["doc_id"]))


def annotated_rows(
    g: np.ndarray,
    d: np.ndarray,
    duniq: Any,
    gmap: np.ndarray,
    starts: np.ndarray,
    heads: np.ndarray,
    named: Any,
    depth: int,
) -> tuple[np.ndarray, np.ndarray]:
    """``(query index, rank)`` of the ranked rows down to ``depth`` whose doc is in ``named``.

    ``g`` holds each row's run-query code and ``d`` its doc reference
    (``duniq.take(d)``: the doc ids); rows are grouped by query in rank order,
    ``starts``/``heads`` their runs; ``gmap`` maps a run-query code to the
    evaluated query index (-1: not evaluated, left out).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    first_row = np.zeros(len(gmap), dtype=np.int64)
    first_row[heads] = starts
    rank = np.arange(len(g), dtype=np.int64) - first_row[g] + 1
    top = np.flatnonzero((rank <= depth) & (gmap[g] >= 0))
    ids = arrow_text(duniq.take(d[top])).cast(pa.large_string())
    found = pc.is_in(ids, value_set=named.cast(pa.large_string()))
    top = top[found.to_numpy(zero_copy_only=False).astype(bool, copy=False)]
    return gmap[g[top]], rank[top]
