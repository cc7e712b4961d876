"""Run rows to judged rows in rank order: steps 1-4 of :mod:`assay.metrics.engine`.

A run's rows are mapped to the judgment set's queries, put in trec_eval's
rank order (or ranked by counting, when sorting would cost more), and only
the rows whose (query, doc) pair is judged go on to the kernels, with their
rank and grade.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np

from assay.core._threads import PIECE, pieces
from assay.core.pairs import arrow_text, encode, grouped_blocks, hashed_pairs, hashes
from assay.judgments.models import JudgmentSet
from assay.metrics.annotated import annotated_rows
from assay.runs.models import Run
from assay.runs.order import (
    counted_ranks,
    counting_pays,
    group_order,
    in_score_order,
    ranked,
    run_starts,
    score_matrix,
)


@dataclass
class Rows:
    """Run rows of evaluated queries whose doc is judged for the query, in rank order,
    grouped by query.

    The rest gain nothing in any measure; ``retrieved`` counts all rows per query.
    """

    q: np.ndarray  # int64 evaluated-query index per kept row
    rank: np.ndarray  # int64 1-based rank within its query
    grade: np.ndarray  # int64 judged grade per kept row (UNJUDGED for a negative grade)
    retrieved: np.ndarray  # float64 rows per evaluated query (all rows, judged or not)
    present: np.ndarray  # evaluated-query indices present in the run
    ignored: int  # run queries that are not answerable in the judgments
    tied: int  # (query, cutoff) pairs whose k-th and (k+1)-th rows tie on score
    annotated: tuple[np.ndarray, np.ndarray] | None = None  # see kernels.Context
    judgment: np.ndarray | None = None  # int64 index into the Qrels arrays per kept row


@dataclass
class Qrels:
    """The judgments of the evaluated queries, keyed by (query, doc-id hash)."""

    q: np.ndarray  # int64 evaluated-query index per judgment
    grade: np.ndarray  # int64 per judgment
    ids: Any  # pyarrow doc id per judgment
    h: np.ndarray  # uint64 doc-id hash per judgment (assay.core.pairs.hashes)
    key: np.ndarray  # uint64 (query, doc hash) keys, sorted
    by_key: np.ndarray  # the judgment of each sorted key
    unique: bool  # no two judgments share a key


def _codes(series: Any) -> tuple[np.ndarray, Any]:
    """Integer codes (any int width, no copy) and uniques (pandas Index) of a string column."""
    import pandas as pd

    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.cat.codes.to_numpy(), series.cat.categories  # int8 to int64
    if "pyarrow" in str(getattr(series.dtype, "storage", "")):  # Arrow strings: hash in Arrow
        import pyarrow as pa

        codes, dictionary = encode(pa.array(series.array))
        return codes, pd.Index(pd.array(dictionary, dtype=series.dtype))
    codes, uniques = pd.factorize(series)
    return codes.astype(np.int64, copy=False), pd.Index(uniques)


def positions_in(values: Any, universe: Any, dtype: Any = np.int64) -> np.ndarray:
    """Position of each of ``values`` in ``universe`` (both string arrays), -1 if absent,
    as ``dtype`` (int64, or int32: Arrow's own, no copy)."""
    import pyarrow.compute as pc

    idx = pc.index_in(arrow_text(values), value_set=arrow_text(universe))
    return idx.fill_null(-1).to_numpy(zero_copy_only=False).astype(dtype, copy=False)


class Positions:
    """:func:`positions_in` against one ``universe``, asked many times: the universe's
    hashes are sorted once, so each call costs what its values do, not the universe
    (a block's queries against a set of a million)."""

    def __init__(self, universe: Any) -> None:
        self.universe = universe
        self.ids = arrow_text(universe)
        h = hashes(self.ids)
        self.order = np.argsort(h, kind="stable")
        self.sorted = h[self.order]
        # two ids of one hash (long ids may collide): the first would hide the second
        self.collide = len(h) == 0 or bool((self.sorted[1:] == self.sorted[:-1]).any())

    def __call__(self, values: Any) -> np.ndarray:
        """Position of each of ``values`` in the universe, -1 if absent."""
        import pyarrow.compute as pc

        if self.collide:  # (or nothing to find in): the exact lookup
            return positions_in(values, self.universe)
        wanted = arrow_text(values)
        h = hashes(wanted)
        at = np.minimum(np.searchsorted(self.sorted, h), len(self.sorted) - 1)
        found = self.order[at]
        same = self.sorted[at] == h  # a candidate; the strings decide
        same &= pc.equal(self.ids.take(found), wanted).to_numpy(zero_copy_only=False)
        return np.where(same, found, -1)


def qrels_arrays(judgments: JudgmentSet, qids: list[str]) -> Qrels:
    import pyarrow as pa

    qr = judgments.qrels
    if len(qr) == 0 or not qids:
        empty, none = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64)
        return Qrels(empty, empty, pa.array([], pa.string()), none, none, empty, True)
    qcodes, quniq = _qrels_codes(judgments)
    q = positions_in(quniq, qids)[qcodes]
    ids = arrow_text(qr["doc_id"])
    h = hashes(ids)
    grade = qr["grade"].to_numpy().astype(np.int64)
    # trec_eval: a negative grade is "in the pool, not judged" (UNJUDGED, -2)
    grade = np.where(grade < 0, -2, grade)
    keep = q >= 0
    if not keep.all():
        rows = np.flatnonzero(keep)
        q, grade, ids, h = q[rows], grade[rows], ids.take(rows), h[rows]
    key = hashed_pairs(q, h)
    by_key = np.argsort(key)
    key = key[by_key]
    unique = not bool((key[1:] == key[:-1]).any())
    return Qrels(q, grade, ids, h, key, by_key, unique)


#: Per judgment set: its qrels frame and that frame's (query codes, query ids),
#: hashed once however many runs are scored against the set.
_QRELS_CODES: WeakKeyDictionary[JudgmentSet, tuple[Any, tuple[Any, ...]]] = WeakKeyDictionary()


def _qrels_codes(judgments: JudgmentSet) -> tuple[Any, ...]:
    qr = judgments.qrels
    found = _QRELS_CODES.get(judgments)
    if found is None or found[0] is not qr:  # a new set, or its qrels were replaced
        found = (qr, _codes(qr["query_id"]))
        _QRELS_CODES[judgments] = found
    return found[1]


def ranked_rows(
    run: Run,
    qids: list[str],
    qrels: Qrels,
    ties: str,
    cutoffs: list[int],
    holes: tuple[Any, int] = (None, 0),
) -> Rows:
    """The judged rows of ``run`` for the queries ``qids``, with rank and grade (steps 1-4
    of :mod:`assay.metrics.engine`); ``holes`` is ``(named docs, depth)`` for Hole@k."""
    frame = run.frame
    nq = len(qids)
    empty = np.zeros(0, dtype=np.int64)
    if len(frame) == 0:
        return Rows(empty, empty, empty, np.zeros(nq), empty, 0, 0, (empty, empty))
    gcodes, guniq = _codes(frame["query_id"])
    gmap = positions_in(guniq, qids) if qids else np.full(len(guniq), -1, dtype=np.int64)
    blocks, counts = _query_blocks(gcodes, len(guniq))
    used = counts > 0
    ignored = int(np.count_nonzero(used & (gmap < 0)))
    evaluated = used & (gmap >= 0)
    present = np.unique(gmap[evaluated])
    retrieved = np.zeros(nq, dtype=np.float64)
    retrieved[gmap[evaluated]] = counts[evaluated]  # distinct ids map to distinct queries

    d, duniq, dhash = _doc_refs(frame["doc_id"])
    unmoved = d if duniq is frame["doc_id"].array else None  # row numbers, rows in place
    score = frame["score"].to_numpy(dtype=np.float64)
    keep = (gmap[gcodes] >= 0) if ignored else None
    gcodes, d, score, starts, heads = _grouped(gcodes, d, score, keep, blocks)
    scored = run.has_scores and ties == "score"
    done = (retrieved, present, ignored)
    docs = (duniq, dhash, unmoved)
    # rows in score order without ties: a row's rank is its place in its block; else the
    # judged rows' ranks are counted (ties broken by doc id for those rows only)
    if scored and holes[0] is None and not in_score_order(score, starts, strict=True):
        rows = _counted_rows(gcodes, d, score, starts, docs, gmap, qrels, cutoffs, done)
        if rows is not None:
            return rows
    sort = (scored, run.has_scores, cutoffs, holes)
    return _placed_rows(gcodes, d, score, (starts, heads), docs, gmap, qrels, sort, done)


def _grouped(
    g: np.ndarray, d: np.ndarray, score: np.ndarray, keep: Any, blocks: Any
) -> tuple[np.ndarray, ...]:
    """``(g, d, score, starts, heads)`` of the rows ``keep`` (all if ``None``), grouped by
    query code (a stable regrouping only when the queries are interleaved); ``blocks`` is
    :func:`assay.core.pairs.grouped_blocks` of all the rows."""
    if keep is not None:
        g, d, score = g[keep], d[keep], score[keep]
        blocks = grouped_blocks(g)
    if blocks is None:  # queries interleaved: group them, stably
        pre = group_order(g)
        g, d, score = g[pre], d[pre], score[pre]
        del pre
        blocks = run_starts(g)
    return g, d, score, *blocks


def _placed_rows(
    gcodes: np.ndarray,
    d: np.ndarray,
    score: np.ndarray,
    blocks: tuple[np.ndarray, np.ndarray],
    docs: tuple[Any, np.ndarray, Any],
    gmap: np.ndarray,
    qrels: Qrels,
    sort: tuple[bool, bool, list[int], tuple[Any, int]],
    done: tuple[np.ndarray, np.ndarray, int],
) -> Rows:
    """:class:`Rows` with the rows put in rank order (:func:`assay.runs.order.ranked`):
    a judged row's rank is its place in its query's block. ``sort`` is ``(scored,
    has_scores, cutoffs, holes)``."""
    scored, has_scores, cutoffs, holes = sort
    duniq, dhash, unmoved = docs
    starts, heads = blocks
    before = gcodes
    order, moved, gcodes, d, score = ranked(gcodes, d, score, duniq, scored, starts, heads)
    if gcodes is not before:  # rows regrouped (else only reordered within each query)
        starts, heads = run_starts(gcodes)
    row_hash = dhash if d is unmoved else None  # rows in file order: no gather
    if moved is not None:  # tie groups re-sorted: their rows swap docs (same query, score)
        d = d.copy() if order is None else d
        d[moved[0]] = d[moved[1]]
        if row_hash is not None:
            row_hash = row_hash.copy()
            row_hash[moved[0]] = row_hash[moved[1]]
    tied = _tied_pairs(starts, score, cutoffs) if has_scores else 0
    named = None
    if holes[0] is not None:
        named = annotated_rows(gcodes, d, duniq, gmap, starts, heads, *holes)
    empty = np.zeros(0, dtype=np.int64)
    if not len(qrels.q) or not len(gcodes):
        return Rows(empty, empty, empty, *done, tied, named)
    idx, judgment = _judged_rows(gcodes, d, (duniq, dhash, row_hash), gmap, qrels)
    qcode = gcodes[idx]
    first_row = np.zeros(int(gcodes.max()) + 1, dtype=np.int64)
    first_row[heads] = starts  # rows are grouped now: one run of rows per query
    rank = idx - first_row[qcode] + 1
    return Rows(gmap[qcode], rank, qrels.grade[judgment], *done, tied, named, judgment)


def _query_blocks(g: np.ndarray, ng: int) -> tuple[Any, np.ndarray]:
    """``(blocks, counts)``: :func:`assay.core.pairs.grouped_blocks` of the query codes ``g``
    (``None`` when interleaved) and the rows per code, float64."""
    blocks = grouped_blocks(g, ng)
    if blocks is None:
        return None, np.bincount(g, minlength=ng).astype(np.float64)
    starts, heads = blocks
    return blocks, np.bincount(heads, weights=np.diff(np.r_[starts, len(g)]), minlength=ng)


def _judged_rows(
    g: np.ndarray, d: np.ndarray, docs: tuple[Any, np.ndarray, Any], gmap: np.ndarray, qrels: Qrels
) -> tuple[np.ndarray, np.ndarray]:
    """``(rows, judgment)``: the rows (ascending) whose (query, doc id) a judgment has, and it.

    ``docs`` is ``(doc_ids, hashes, row_hash)``: row ``i``'s doc id is
    ``doc_ids.take(d[i])``, its hash ``hashes[d[i]]``, already gathered in
    ``row_hash`` when that is not ``None``.
    """
    doc_ids, dhash, row_hash = docs
    idx = _maybe_judged(g, dhash[d] if row_hash is None else row_hash, gmap, qrels)
    q = gmap[g[idx]]
    at, judgment = _judgments_of(q, dhash[d[idx]], qrels)
    same = _same_ids(doc_ids.take(d[idx[at]]), qrels.ids.take(judgment))
    return idx[at[same]], judgment[same]  # exact: a hash match was a candidate


def _counted_rows(
    g: np.ndarray,
    d: np.ndarray,
    score: np.ndarray,
    starts: np.ndarray,
    docs: tuple[Any, np.ndarray, Any],
    gmap: np.ndarray,
    qrels: Qrels,
    cutoffs: list[int],
    done: tuple[np.ndarray, np.ndarray, int],
) -> Rows | None:
    """:class:`Rows` of grouped rows not strictly in score order, without sorting them.

    Only the judged rows need a rank, and a few per list are cheaper to rank
    by counting (:func:`assay.runs.order.counted_ranks`) than every row is to
    sort. ``None`` when the run is too ragged or tied for that, or most rows
    are judged (decided before the judged rows are looked for): the caller
    sorts.
    """
    matrix = score_matrix(score, starts)
    # the judgments of the run's queries bound the judged rows: decided before the probe
    in_run = np.zeros(len(done[0]), dtype=bool)
    in_run[done[1]] = True
    if matrix is None or not counting_pays(int(np.count_nonzero(in_run[qrels.q])), matrix):
        return None
    doc_ids, dhash, unmoved = docs
    tied = _tied_in_matrix(matrix, np.diff(np.r_[starts, len(g)]), cutoffs)
    empty = np.zeros(0, dtype=np.int64)
    if not len(qrels.q):
        return Rows(empty, empty, empty, *done, tied, None)
    row_hash = dhash if d is unmoved else None
    idx, judgment = _judged_rows(g, d, (doc_ids, dhash, row_hash), gmap, qrels)
    block = np.searchsorted(starts, idx, side="right") - 1
    rank = counted_ranks(matrix, starts, block, idx, d, doc_ids)
    if rank is None:
        return None
    # rows grouped by query, each query's in rank order (the kernels' contract)
    key = block * (matrix.shape[1] + 1) + rank
    if len(key) > 1 and not (key[1:] > key[:-1]).all():
        by_rank = np.argsort(key, kind="stable")
        idx, judgment, rank = idx[by_rank], judgment[by_rank], rank[by_rank]
    return Rows(gmap[g[idx]], rank, qrels.grade[judgment], *done, tied, None, judgment)


def _judgments_of(q: np.ndarray, h: np.ndarray, qrels: Qrels) -> tuple[np.ndarray, np.ndarray]:
    """``(at, judgment)``: rows ``at`` of (``q``, ``h``) whose (query, doc hash) key a
    judgment has, and that judgment; a row is repeated for each judgment sharing its
    key (two doc ids of one query with one hash), so that the ids can decide."""

    key = hashed_pairs(q, h)
    ask = np.argsort(key)  # sorted needles walk the sorted keys once: cache-friendly
    lo = np.empty(len(key), dtype=np.int64)
    lo[ask] = np.searchsorted(qrels.key, key[ask], side="left")
    if qrels.unique:  # the usual case: one judgment per key
        found = np.minimum(lo, len(qrels.key) - 1)
        at = np.flatnonzero(qrels.key[found] == key)
        return at, qrels.by_key[lo[at]]
    count = np.empty(len(key), dtype=np.int64)
    count[ask] = np.searchsorted(qrels.key, key[ask], side="right")
    count -= lo
    at = np.repeat(np.arange(len(key)), count)
    start = np.repeat(lo - (np.cumsum(count) - count), count)
    judgment = qrels.by_key[start + np.arange(len(at))]
    keep = qrels.q[judgment] == q[at]  # keys mix the query in: compare it too
    return at[keep], judgment[keep]


def _same_ids(a: Any, b: Any) -> np.ndarray:
    """Bool per position: the doc ids of ``a`` and ``b`` (string arrays) are equal."""
    import pyarrow as pa
    import pyarrow.compute as pc

    a, b = arrow_text(a), arrow_text(b)
    if a.type != b.type:
        a, b = a.cast(pa.large_string()), b.cast(pa.large_string())
    return pc.equal(a, b).to_numpy(zero_copy_only=False).astype(bool, copy=False)


def _doc_refs(docs: Any) -> tuple[np.ndarray, Any, np.ndarray]:
    """``(d, ids, hashes)`` for a run's doc column: ``ids.take(d)`` gives each row's doc id
    and ``hashes[d]`` its :func:`assay.core.pairs.hashes` value.

    A categorical column gives its codes and categories; any other column its
    row numbers and its own array (``ids is docs.array``), so that no doc id is
    hashed into a dictionary.
    """
    import pandas as pd

    if isinstance(docs.dtype, pd.CategoricalDtype):
        categories = docs.cat.categories
        return docs.cat.codes.to_numpy(), categories, hashes(arrow_text(categories))
    rows = np.arange(len(docs), dtype=np.int32 if len(docs) < 1 << 31 else np.int64)
    return rows, docs.array, hashes(arrow_text(docs))


def _maybe_judged(g: np.ndarray, h: np.ndarray, gmap: np.ndarray, qrels: Qrels) -> np.ndarray:
    """Rows whose (query, doc) pair may be judged: all judged rows, few others.

    ``h`` holds each row's doc-id hash. A hash set of the judged pairs (the
    run's query codes, the judged docs' hashes) is probed by every row; a false
    positive only costs a row that the exact match then drops.
    """
    if not len(qrels.q) or not len(gmap):
        return np.zeros(0, dtype=np.int64)
    run_q = np.full(max(int(gmap.max()), int(qrels.q.max()), 0) + 1, -1, dtype=np.int64)
    known = np.flatnonzero(gmap >= 0)
    run_q[gmap[known]] = known
    kq = run_q[qrels.q]
    ok = kq >= 0
    if not ok.any():
        return np.zeros(0, dtype=np.int64)
    kh = qrels.h[ok]
    bits = int(min(max(np.ceil(np.log2(np.count_nonzero(ok) * 32.0)), 10), 27))
    table = np.zeros(1 << bits, dtype=bool)
    table[_pair_hash(kq[ok], kh, bits)] = True
    return _probe(table, g, h, bits)


def _probe(table: np.ndarray, g: np.ndarray, h: np.ndarray, bits: int) -> np.ndarray:
    """Rows whose pair hash hits ``table`` (a large run piece by piece, on two threads)."""

    def hits(rows: slice) -> np.ndarray:
        return np.flatnonzero(table[_pair_hash(g[rows], h[rows], bits)]) + rows.start

    found = pieces(hits, len(g))
    return np.concatenate(found) if found else np.zeros(0, dtype=np.int64)


def _pair_hash(q: np.ndarray, h: np.ndarray, bits: int) -> np.ndarray:
    """A ``bits``-bit multiplicative hash of (query code, doc hash) pairs (uint32 math)."""
    # the high and low 32-bit words of each hash, XORed (either word order gives the
    # same value): one uint32 array, no uint64 temporaries
    words = np.ascontiguousarray(h, dtype=np.uint64).view(np.uint32).reshape(-1, 2)
    folded = np.bitwise_xor(words[:, 0], words[:, 1])
    # int32 codes are read as uint32 in place (the same bits as astype, without a copy)
    words_q = q.view(np.uint32) if q.dtype == np.int32 else q.astype(np.uint32, copy=False)
    out = np.multiply(words_q, np.uint32(0x9E3779B1))
    out += np.multiply(folded, np.uint32(0x85EBCA77), out=folded)
    out *= np.uint32(0xC2B2AE35)
    out >>= np.uint32(32 - bits)
    return out


def _tied_pairs(starts: np.ndarray, score: np.ndarray, cutoffs: list[int]) -> int:
    """(query, k) pairs where the k-th and (k+1)-th results have equal scores.

    ``starts`` are the first rows of the queries (rows grouped, in rank order).
    """
    n = len(score)
    if not cutoffs or n < 2:
        return 0
    length = np.diff(np.r_[starts, n])
    total = 0
    for k in cutoffs:
        at = starts[length > k] + (k - 1)
        total += int(np.count_nonzero(score[at] == score[at + 1]))
    return total


def _tied_in_matrix(matrix: np.ndarray, lens: np.ndarray, cutoffs: list[int]) -> int:
    """:func:`_tied_pairs` from a :func:`assay.runs.order.score_matrix` (rows unsorted)."""

    width = matrix.shape[1]
    cutoffs = [k for k in cutoffs if k < width]
    if not cutoffs:
        return 0

    def count(rows: slice) -> int:
        # ascending: the -inf padding sorts first, a list's k-th best is at width - k
        part = np.sort(matrix[rows], axis=1)
        return sum(
            int(np.count_nonzero((part[:, width - k] == part[:, width - k - 1]) & (lens[rows] > k)))
            for k in cutoffs
        )

    return sum(pieces(count, len(matrix), PIECE // width, matrix.size))
