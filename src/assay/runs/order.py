"""trec_eval's rank order, written once: score descending, then doc id descending.

trec_eval ignores the rank column of a run: within a query it sorts results by
score, highest first, and breaks ties by doc id in descending code-point order
(``strcmp`` on UTF-8 bytes). :meth:`assay.runs.models.Run.ranked` and every
other consumer that needs that order call :func:`trec_order`.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def trec_order(
    queries: np.ndarray, scores: np.ndarray, docs: np.ndarray, doc_ids: Any
) -> np.ndarray | None:
    """The row permutation into trec_eval rank order; ``None`` when the rows already are.

    ``queries`` and ``docs`` are integer codes per row; ``doc_ids`` maps a doc
    code to its id (anything with ``take``: numpy, pandas or pyarrow array).
    Rows of a query end up in one block. When every query already is one block
    the blocks keep their order; otherwise they follow the query codes, so pass
    codes in order of first appearance to keep the queries' first-seen order.
    Within a query rows are sorted by score descending, then doc id descending.
    Only the doc ids of tied rows are compared, so the usual run (scores strictly
    descending, queries in blocks) costs two vectorised passes.
    """
    n = len(queries)
    if n < 2:
        return None
    q, s, d = queries, scores, docs
    boundary = q[1:] != q[:-1]
    heads = q[np.r_[0, np.flatnonzero(boundary) + 1]]
    order = None
    if len(np.unique(heads)) != len(heads) or not (boundary | (s[1:] <= s[:-1])).all():
        order = np.lexsort((-s, q))
        q, s, d = q[order], s[order], d[order]
        boundary = q[1:] != q[:-1]
    tie = ~boundary & (s[1:] == s[:-1])
    pos = np.flatnonzero(tie)
    if not len(pos) or (_strings(d[pos], doc_ids) > _strings(d[pos + 1], doc_ids)).all():
        return order
    # Re-sort only the rows inside tie groups (same query and score), in place.
    rows = np.unique(np.r_[pos, pos + 1])
    _, inv = np.unique(_strings(d[rows], doc_ids), return_inverse=True)
    # a tie group starts at a row that does not tie with the row before it
    group = np.cumsum((rows == 0) | ~tie[np.maximum(rows - 1, 0)])
    local = np.lexsort((-inv.reshape(-1), group))
    final = np.arange(n) if order is None else order.copy()
    final[rows] = final[rows[local]]
    return final


def _strings(codes: np.ndarray, doc_ids: Any) -> np.ndarray:
    """Doc id strings (object array) for the given codes; compared by code point."""
    return np.asarray([str(x) for x in doc_ids.take(codes)], dtype=object)
