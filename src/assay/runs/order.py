"""trec_eval's rank order, written once: score descending, then doc id descending.

trec_eval ignores the rank column of a run: within a query it sorts results by
score, highest first, and breaks ties by doc id in descending code-point order
(``strcmp`` on UTF-8 bytes). The metrics engine (:func:`ranked`, on its
integer-coded rows), :meth:`assay.runs.models.Run.ranked` and every other
consumer that needs that order (:func:`trec_order`) use this module.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from assay.core._threads import PIECE, halves, pieces
from assay.core.pairs import is_grouped, run_starts


def trec_order(
    queries: np.ndarray, scores: np.ndarray, docs: np.ndarray, doc_ids: Any
) -> np.ndarray | None:
    """The row permutation into trec_eval rank order; ``None`` when the rows already are.

    ``queries`` and ``docs`` are integer codes per row; ``doc_ids`` maps a doc
    code to its id (anything with ``take``: numpy, pandas or pyarrow array).
    Rows of a query end up in one block, sorted by score descending, then doc
    id descending (see :func:`ranked`).
    """
    starts, heads = run_starts(queries)
    order, moved = ranked(queries, docs, scores, doc_ids, True, starts, heads)[:2]
    if moved is None:
        return order
    final = np.arange(len(queries)) if order is None else order.copy()
    positions, sources = moved
    final[positions] = final[sources]
    return final


def group_order(g: np.ndarray) -> np.ndarray:
    """The stable permutation that groups rows by their non-negative integer codes ``g``.

    ``np.argsort(g, kind="stable")``, as one or two 16-bit radix passes (numpy
    sorts 16-bit keys by radix): several times faster on millions of rows.
    """
    top = int(g.max()) if len(g) else 0
    if top < 1 << 16:
        return np.argsort(g.astype(np.uint16), kind="stable")
    if top >= 1 << 32:  # pragma: no cover - more than 4 billion queries
        return np.argsort(g, kind="stable")
    order = np.argsort(g.astype(np.uint16), kind="stable")  # the low 16 bits (a wrapping cast)
    high = (g >> 16).astype(np.uint16)[order]
    return order[np.argsort(high, kind="stable")]


def ranked(
    g: np.ndarray,
    d: np.ndarray,
    s: np.ndarray,
    duniq: Any,
    scored: bool,
    starts: np.ndarray,
    heads: np.ndarray,
) -> tuple[Any, ...]:
    """``(order, moved, g, d, s)``: how to put the rows in rank order, and the three
    arrays taken in ``order`` (the same objects when ``order`` is ``None``).

    ``starts``/``heads`` are the runs of equal query codes in ``g``. ``order``
    is a permutation of all rows, ``None`` when the rows already are grouped
    by query (one run each) and, if ``scored``, sorted by score descending.
    ``moved`` fixes the order of tied scores after ``order``: ``(positions,
    sources)``, the row at each position takes the doc of its source (rows of
    a tie group share query and score); ``None`` when every tie already is in
    doc id descending order.
    """
    n = len(g)
    if n < 2:
        return None, None, g, d, s
    grouped = is_grouped(heads)
    if not scored:
        order = None if grouped else group_order(g)
        return (
            (order, None, g, d, s) if order is None else (order, None, g[order], d[order], s[order])
        )
    boundary = _boundaries(n, starts)
    order = None
    if not grouped or not (boundary | (s[1:] <= s[:-1])).all():
        order = _score_order(g, s, starts, grouped)
        d, s = d[order], s[order]
        if not grouped:  # grouped rows are only reordered within their query's block
            g = g[order]
            boundary = g[1:] != g[:-1]
    tie = ~boundary & (s[1:] == s[:-1])
    pos = np.flatnonzero(tie)
    if not len(pos):
        return order, None, g, d, s
    # Break score ties by doc id descending (code-point order == UTF-8 byte order).
    if (_strings(d[pos], duniq) > _strings(d[pos + 1], duniq)).all():
        return order, None, g, d, s
    # Re-sort only the rows inside tie groups, in place of their positions.
    rows = np.unique(np.r_[pos, pos + 1])
    _, inv = np.unique(_strings(d[rows], duniq), return_inverse=True)
    # the rows of a tie group are consecutive; a group starts at a row that
    # does not tie with the row before it
    group = np.cumsum((rows == 0) | ~tie[np.maximum(rows - 1, 0)])
    local = np.lexsort((-inv.reshape(-1), group))
    return order, (rows, rows[local]), g, d, s


#: padding cells a score matrix may hold beyond twice the rows (else pyarrow sorts)
PAD_SLACK = 4096


def _score_order(g: np.ndarray, s: np.ndarray, starts: np.ndarray, grouped: bool) -> np.ndarray:
    """A permutation grouping rows by query, scores descending; ties in any order.

    Rows already grouped are only reordered within their query's block.

    Rows are first grouped by query (a stable integer sort, skipped when they
    already are); then every query's scores are sorted at once as the rows of
    a padded matrix (n log(list length) instead of n log(n) for one global
    sort, and cache friendly). A very ragged run, whose padded matrix would be
    mostly padding, is sorted by pyarrow instead. The callers order tied
    scores by doc id afterwards.
    """
    n = len(g)
    pre = None
    if not grouped:
        pre = group_order(g)
        g, s = g[pre], s[pre]
        starts, _ = run_starts(g)
    lens = np.diff(np.r_[starts, n])
    width, nseg = int(lens.max()), len(starts)
    if not _fits_matrix(n, nseg, width):
        import pyarrow as pa
        import pyarrow.compute as pc

        # by block, not by code: a query's rows stay in its block, blocks in place
        table = pa.table({"g": np.repeat(np.arange(nseg), lens), "s": s})
        keys = [("g", "ascending"), ("s", "descending")]
        order = pc.sort_indices(table, sort_keys=keys).to_numpy()
    elif nseg * width == n:  # every list has the same length: the rows are the matrix
        matrix = s.reshape(nseg, width)
        order = np.empty(n, dtype=np.intp)  # written in place by both halves: no copy
        cells = order.reshape(nseg, width)

        def sort_rows(rows: slice) -> None:
            # ascending, read backwards (scores are finite, a Run's rule): descending
            np.add(np.argsort(matrix[rows], axis=1)[:, ::-1], starts[rows, None], out=cells[rows])

        halves(sort_rows, nseg, n)
    else:
        # ascending, read backwards: descending, the -inf padding cells last
        within = np.argsort(score_matrix(s, starts), axis=1)[:, ::-1] + starts[:, None]
        # drop the padding cells (their cell numbers run past the list's length)
        order = within[within - starts[:, None] < lens[:, None]]
    return order if pre is None else pre[order]


def in_score_order(s: np.ndarray, starts: np.ndarray, strict: bool = False) -> bool:
    """True when the scores ``s`` never rise within a block of rows starting at ``starts``
    (with ``strict``: always fall, so that no two rows of a block tie)."""
    n = len(s)
    if n < 2:
        return True
    below = s[1:] < s[:-1] if strict else s[1:] <= s[:-1]
    below |= _boundaries(n, starts)
    return bool(below.all())


def _boundaries(n: int, starts: np.ndarray) -> np.ndarray:
    """Bool per pair of neighbouring rows ``(i, i + 1)``: they belong to different blocks."""
    boundary = np.zeros(max(n - 1, 0), dtype=bool)
    boundary[starts[1:] - 1] = True
    return boundary


def _fits_matrix(n: int, nseg: int, width: int) -> bool:
    """A (lists x longest list) matrix of ``n`` rows is not mostly padding."""
    return nseg * width <= 2 * n + PAD_SLACK


def score_matrix(s: np.ndarray, starts: np.ndarray) -> np.ndarray | None:
    """The scores of each block of rows as a row of a (blocks x longest block) matrix.

    Shorter blocks are padded with ``-inf`` after their scores (a Run's scores
    are finite, so padding never ties with or beats a score). When every block
    has the same length the matrix is a view of ``s``; ``None`` when the
    matrix would be mostly padding (:data:`PAD_SLACK`).
    """
    n, nseg = len(s), len(starts)
    lens = np.diff(np.r_[starts, n])
    width = int(lens.max()) if nseg else 0
    if not _fits_matrix(n, nseg, width):
        return None
    if nseg * width == n:
        return s.reshape(nseg, width)
    matrix = np.full(nseg * width, -np.inf)
    cell = np.arange(n, dtype=np.int64)
    cell += np.repeat(np.arange(nseg, dtype=np.int64) * width - starts, lens)
    matrix[cell] = s
    return matrix.reshape(nseg, width)


#: Comparisons :func:`counted_ranks` may make, in multiples of a sort of every list
#: (cells x log2(list length)); beyond it the caller sorts.
COUNT_BUDGET = 8


def counting_pays(rows: int, matrix: np.ndarray) -> bool:
    """Counting the ranks of ``rows`` rows against ``matrix`` (:func:`counted_ranks`)
    stays within :data:`COUNT_BUDGET` sorts of every list."""
    width = matrix.shape[1]
    return rows * width <= COUNT_BUDGET * matrix.size * max(np.log2(max(width, 1)), 1.0)


def counted_ranks(
    matrix: np.ndarray,
    starts: np.ndarray,
    block: np.ndarray,
    rows: np.ndarray,
    d: np.ndarray,
    doc_ids: Any,
) -> np.ndarray | None:
    """The trec_eval rank (1-based) of each of ``rows`` in its block, counted, not sorted.

    ``matrix`` is :func:`score_matrix` of the rows' scores, ``block`` the block
    of each of ``rows``, ``d`` the doc code of every row (``doc_ids.take``
    gives its id). A row's rank is one plus the rows of its block with a
    higher score, or the same score and a higher doc id: the place that
    :func:`ranked` gives it. ``len(rows) x width`` comparisons instead of a sort
    of every row, when only a few rows per list need a rank (the judged
    ones). ``None`` when counting would cost more than :data:`COUNT_BUDGET`
    times a sort of every list, or ties would need more doc id comparisons
    than there are cells (the caller sorts instead).
    """
    width = matrix.shape[1]
    if not counting_pays(len(rows), matrix):
        return None  # most rows need a rank (a fully judged pool): sorting is cheaper
    x = matrix.reshape(-1)[block * width + (rows - starts[block])]

    def count(at: slice) -> tuple[np.ndarray, np.ndarray]:
        got, mine = matrix[block[at]], x[at, None]
        return np.count_nonzero(got > mine, axis=1), np.count_nonzero(got == mine, axis=1)

    counted = pieces(count, len(rows), PIECE // max(width, 1), len(rows) * width)
    if not counted:
        return np.zeros(0, dtype=np.int64)
    above = np.concatenate([c[0] for c in counted]).astype(np.int64, copy=False)
    level = np.concatenate([c[1] for c in counted])
    tied = np.flatnonzero(level > 1)  # the row itself is one
    if len(tied):
        if int(level[tied].sum()) - len(tied) > matrix.size:
            return None
        above[tied] += _tied_above(matrix, starts, block[tied], rows[tied], x[tied], d, doc_ids)
    above += 1
    return above


def _tied_above(
    matrix: np.ndarray,
    starts: np.ndarray,
    block: np.ndarray,
    rows: np.ndarray,
    x: np.ndarray,
    d: np.ndarray,
    doc_ids: Any,
) -> np.ndarray:
    """Per row of ``rows``: the rows of its block with its score and a higher doc id."""
    which, cell = np.nonzero(matrix[block] == x[:, None])
    other = starts[block[which]] + cell
    keep = other != rows[which]
    which, other = which[keep], other[keep]
    codes = np.r_[d[other], d[rows[which]]]
    _, inv = np.unique(_strings(codes, doc_ids), return_inverse=True)
    inv = inv.reshape(-1)
    higher = inv[: len(other)] > inv[len(other) :]
    return np.bincount(which[higher], minlength=len(rows))


def _strings(codes: np.ndarray, doc_ids: Any) -> np.ndarray:
    """Doc id strings (object array) for the given codes; compared by code point."""
    return np.asarray([str(x) for x in doc_ids.take(codes)], dtype=object)
