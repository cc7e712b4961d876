"""BEIR's ``ignore_identical_ids``: drop a retrieved document whose id is its query's id.

In collections where queries are documents of the corpus (ArguAna, Quora,
SCIDOCS-style citation sets), a system finds the query itself at the top.
BEIR's ``EvaluateRetrieval.evaluate`` deletes such documents from the results
before scoring (by default): the documents below move up one rank. assay does
the same when asked (``ignore_identical_ids``), never by default, since
trec_eval scores every retrieved document.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from assay.core.pairs import arrow_text

if TYPE_CHECKING:  # pragma: no cover
    from assay.runs.models import Run


def drop_identical_ids(run: Run) -> tuple[Run, int]:
    """``run`` without the rows whose doc id equals their query id, and how many were dropped.

    The rows left keep their order and scores, so every later document moves
    up one rank per dropped row above it (as BEIR, which deletes them from its
    results). The run itself is returned when no row matches.
    """
    import numpy as np
    import pyarrow.compute as pc

    frame = run.frame
    if not len(frame):
        return run, 0
    same = pc.equal(_strings(frame["query_id"]), _strings(frame["doc_id"]))
    mask = same.to_numpy(zero_copy_only=False).astype(bool, copy=False)
    dropped = int(np.count_nonzero(mask))
    if not dropped:
        return run, 0
    kept = frame.loc[~mask].reset_index(drop=True)
    return dataclasses.replace(run, frame=kept), dropped


def _strings(column: Any) -> Any:
    """A pandas column of ids (str, Arrow or categorical) as an Arrow ``large_string`` array."""
    import pandas as pd
    import pyarrow as pa

    if isinstance(column.dtype, pd.CategoricalDtype):
        categories = arrow_text(column.cat.categories)
        codes = pa.array(column.cat.codes.to_numpy())
        return categories.cast(pa.large_string()).take(codes)
    return arrow_text(column).cast(pa.large_string())
