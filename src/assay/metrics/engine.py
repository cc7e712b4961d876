"""The vectorised metric engine: judgments + run -> per-query scores, trec_eval-exact.

Everything runs over flat numpy arrays, with no Python loop per query or per
document:

1. query ids are mapped to the judgment set's answerable queries (Arrow hash
   look-ups over the *unique* ids only); a run's doc ids are never encoded:
   each row keeps a reference to its id and the id's
   :func:`assay.pairs.hashes` value;
2. rows are put in rank order: grouped by query, score descending, then doc
   id descending (byte-wise, trec_eval's rule), or kept in the given order;
   an already-ordered run (the usual case) is detected in O(n) and not sorted;
3. only rows whose (query, doc-hash) pair may be judged (a probe of a table
   of the judged pairs, no false negatives) go on; every other row can only count as retrieved,
   so the kernels get the per-query number of retrieved rows instead of
   millions of unjudged rows;
4. those rows find their judgment by one ``searchsorted`` over sorted uint64
   ``(query, doc-hash)`` keys, and a match is kept only when the two doc ids
   are equal, so a hash collision never changes a grade;
5. measures are per-query reductions (``bincount`` with weights) over the
   kept rows, see :mod:`assay.metrics.kernels`.

Missing queries: ``missing='zero'`` is trec_eval ``-c`` (answerable queries
absent from the run score 0, except ``NumRel``, and count in the mean);
``'skip'`` is trec_eval's default (only queries present in the run are
evaluated). No-answer queries are never scored.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np

from assay.judgments.models import JudgmentSet
from assay.metrics.annotated import annotated_rows, named_docs
from assay.metrics.measures import Measure, parse_measure
from assay.pairs import arrow_text
from assay.runs.models import Run
from assay.runs.order import group_order, is_grouped, ranked, run_starts


@dataclass
class ScoreTable:
    """Per-query values of several measures for one run on one judgment set.

    ``query_ids`` are the evaluated queries (answerable, judgment-set order;
    with ``missing='skip'`` only those in the run). Every array is aligned
    with ``query_ids``. ``first_rel_rank`` is the 1-based rank of the first
    document with grade >= 1 (0 when none was retrieved).
    """

    query_ids: list[str]
    values: dict[Measure, np.ndarray]
    first_rel_rank: np.ndarray
    in_run: np.ndarray
    ignored_queries: int = 0
    missing_queries: int = 0
    tied_pairs_at_cutoff: int = 0
    run_queries: int | None = None  # distinct queries in the run (None: not counted)

    def aggregate(self) -> dict[Measure, float]:
        """Each measure over the evaluated queries, as its family aggregates.

        Means for ratios, sums for counts (``NumRet``, ``NumRel``...), geometric
        means for ``GMAP``, as trec_eval's summary line; see :func:`aggregate`.
        """
        return {m: aggregate(m, v) for m, v in self.values.items()}

    def __len__(self) -> int:
        return len(self.query_ids)


def aggregate(measure: Measure | str, values: Any) -> float:
    """The summary value of one measure's per-query ``values``, as trec_eval prints it.

    ``mean`` families average, ``sum`` families (counts) add up, ``gmean``
    families (GMAP, GMBpref) take ``exp(mean(log(max(v, 1e-5))))``. No value
    gives 0.0 (as trec_eval prints for an empty evaluation), never NaN.
    """
    from assay.metrics.registry import MIN_GEO_MEAN
    from assay.metrics.treceval_print import c_log, sequential_sum

    m = parse_measure(measure)
    v = np.asarray(values, dtype=np.float64)
    if not v.size:
        return 0.0
    # added one after the other in the queries' order, as trec_eval's loop (numpy's
    # pairwise sum can move the 4th printed decimal at an exact .5)
    if m.aggregate == "sum":
        return sequential_sum(v)
    if m.aggregate == "gmean":
        return math.exp(sequential_sum(c_log(np.maximum(v, MIN_GEO_MEAN))) / v.size)
    return sequential_sum(v) / v.size


def compute(
    judgments: JudgmentSet,
    run: Run,
    measures: list[Measure] | list[str],
    *,
    missing: str = "zero",
    ties: str = "score",
    depth: int | None = None,
) -> ScoreTable:
    """Score ``run`` against ``judgments`` with each measure, per query.

    ``missing``: 'zero' (trec_eval -c) or 'skip' (trec_eval default); a
    query absent from the run takes its family's declared ``missing`` value
    (see :mod:`assay.metrics.registry`). ``ties``: 'score' (score descending,
    then doc id descending, as trec_eval) or 'given' (the run's order). Runs
    without scores keep the given order. ``depth`` keeps only the first
    ``depth`` documents of each query (trec_eval -M). Raises
    :class:`UsageError` on an unknown policy or measure.
    """
    from assay.metrics import kernels
    from assay.policies import check_policies

    check_policies(missing, ties)
    ms = list(dict.fromkeys(parse_measure(m) for m in measures))

    cutoffs = sorted({m.cutoff for m in ms if m.cutoff is not None})
    holes = [m.cutoff for m in ms if m.family == "Hole" and m.cutoff is not None]
    ranked = rank_context(
        judgments, run, ties=ties, depth=depth, cutoffs=cutoffs, hole_depth=max(holes, default=0)
    )
    qids, ctx, in_run, rows = ranked.query_ids, ranked.ctx, ranked.in_run, ranked.rows
    nq = len(qids)
    values = {m: _with_missing(m, kernels.evaluate(m, ctx), in_run) for m in ms}
    first = kernels.first_rank(ctx, 1).astype(np.int64)
    table_ids = qids
    if missing == "skip":
        keep = np.flatnonzero(in_run)
        table_ids = [qids[i] for i in keep.tolist()]
        values = {m: v[keep] for m, v in values.items()}
        first = first[keep]
        in_run = in_run[keep]
    return ScoreTable(
        query_ids=list(table_ids),
        values=values,
        first_rel_rank=first,
        in_run=in_run,
        ignored_queries=rows.ignored,
        missing_queries=int(nq - len(rows.present)),
        tied_pairs_at_cutoff=rows.tied,
        run_queries=int(len(rows.present) + rows.ignored),
    )


@dataclass
class Ranked:
    """A run put in rank order against a judgment set: what every kernel reads."""

    query_ids: list[str]  # the judgment set's evaluated queries, set order
    ctx: Any  # kernels.Context
    in_run: np.ndarray  # bool per query: present in the run
    rows: Any  # _Rows (counts of ignored queries and ties)


def rank_context(
    judgments: JudgmentSet,
    run: Run,
    *,
    ties: str = "score",
    depth: int | None = None,
    cutoffs: list[int] | None = None,
    hole_depth: int = 0,
) -> Ranked:
    """Map, order and grade the run's rows once (steps 1-4 of the module docstring).

    ``depth`` cuts every ranking to its first ``depth`` documents (trec_eval
    -M); ``cutoffs`` only serve to count score ties straddling a cutoff;
    ``hole_depth`` > 0 also gathers, down to that rank, the rows whose doc any
    judgment of the set names (BEIR's Hole@k, :mod:`assay.metrics.annotated`).
    """
    from assay.metrics import kernels

    qids = judgments.answerable_ids
    nq = len(qids)
    qrels = _qrels_arrays(judgments, qids)
    named = named_docs(judgments) if hole_depth > 0 else None
    rows = _ranked_rows(run, qids, qrels, ties, list(cutoffs or []), (named, hole_depth))
    ctx = kernels.Context(
        nq=nq,
        q=rows.q,
        rank=rows.rank,
        grade=rows.grade,
        qrels_q=qrels.q,
        qrels_grade=qrels.grade,
        retrieved=rows.retrieved,
        annotated=rows.annotated,
    )
    if depth is not None:
        ctx = ctx.truncated(depth)
    in_run = np.zeros(nq, dtype=bool)
    in_run[rows.present] = True
    return Ranked(list(qids), ctx, in_run, rows)


def _with_missing(m: Measure, values: np.ndarray, in_run: np.ndarray) -> np.ndarray:
    """``values`` with the family's declared value for queries absent from the run."""
    from assay.metrics.registry import REGISTRY

    fixed = REGISTRY[m.family].missing
    if fixed is not None and not in_run.all():
        values = values.copy()
        values[~in_run] = fixed
    return values


# --------------------------------------------------------------------- arrays
@dataclass
class _Rows:
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


@dataclass
class _Qrels:
    """The judgments of the evaluated queries, keyed by (query, doc-id hash)."""

    q: np.ndarray  # int64 evaluated-query index per judgment
    grade: np.ndarray  # int64 per judgment
    ids: Any  # pyarrow doc id per judgment
    h: np.ndarray  # uint64 doc-id hash per judgment (assay.pairs.hashes)
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

        from assay.pairs import encode

        codes, dictionary = encode(pa.array(series.array))
        return codes, pd.Index(pd.array(dictionary, dtype=series.dtype))
    codes, uniques = pd.factorize(series)
    return codes.astype(np.int64, copy=False), pd.Index(uniques)


def _lookup(values: Any, universe: Any) -> np.ndarray:
    """Position of each of ``values`` in ``universe`` (both string arrays), -1 if absent."""
    import pyarrow.compute as pc

    idx = pc.index_in(arrow_text(values), value_set=arrow_text(universe))
    return idx.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def _qrels_arrays(judgments: JudgmentSet, qids: list[str]) -> _Qrels:
    import pyarrow as pa

    from assay.pairs import hashed_pairs, hashes

    qr = judgments.qrels
    if len(qr) == 0 or not qids:
        empty, none = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint64)
        return _Qrels(empty, empty, pa.array([], pa.string()), none, none, empty, True)
    qcodes, quniq = _qrels_codes(judgments)
    q = _lookup(quniq, qids)[qcodes]
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
    return _Qrels(q, grade, ids, h, key, by_key, unique)


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


def _ranked_rows(
    run: Run,
    qids: list[str],
    qrels: _Qrels,
    ties: str,
    cutoffs: list[int],
    holes: tuple[Any, int] = (None, 0),
) -> _Rows:
    frame = run.frame
    nq = len(qids)
    empty = np.zeros(0, dtype=np.int64)
    if len(frame) == 0:
        return _Rows(empty, empty, empty, np.zeros(nq), empty, 0, 0, (empty, empty))
    gcodes, guniq = _codes(frame["query_id"])
    gmap = _lookup(guniq, qids) if qids else np.full(len(guniq), -1, dtype=np.int64)
    starts, heads = run_starts(gcodes)
    counts = np.bincount(heads, weights=np.diff(np.r_[starts, len(gcodes)]), minlength=len(guniq))
    used = counts > 0
    ignored = int(np.count_nonzero(used & (gmap < 0)))
    evaluated = used & (gmap >= 0)
    present = np.unique(gmap[evaluated])
    retrieved = np.zeros(nq, dtype=np.float64)
    retrieved[gmap[evaluated]] = counts[evaluated]  # distinct ids map to distinct queries

    d, duniq, dhash = _doc_refs(frame["doc_id"])
    unmoved = d if duniq is frame["doc_id"].array else None  # row numbers, rows in place
    score = frame["score"].to_numpy(dtype=np.float64)
    if ignored:
        keep = gmap[gcodes] >= 0
        gcodes, d, score = gcodes[keep], d[keep], score[keep]
        starts, heads = run_starts(gcodes)
    if not is_grouped(heads):  # queries interleaved (merged shards): group them first, stably
        pre = group_order(gcodes)
        gcodes, d, score = gcodes[pre], d[pre], score[pre]
        del pre
        starts, heads = run_starts(gcodes)
    scored = run.has_scores and ties == "score"
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

    tied = _tied_pairs(starts, score, cutoffs) if run.has_scores else 0
    named = None
    if holes[0] is not None:
        named = annotated_rows(gcodes, d, duniq, gmap, starts, heads, *holes)
    if not len(qrels.q) or not len(gcodes):
        return _Rows(empty, empty, empty, retrieved, present, ignored, tied, named)
    idx = _maybe_judged(gcodes, dhash[d] if row_hash is None else row_hash, gmap, qrels)
    q = gmap[gcodes[idx]]
    at, judgment = _judgments_of(q, dhash[d[idx]], qrels)
    same = _same_ids(duniq.take(d[idx[at]]), qrels.ids.take(judgment))
    idx, judgment = idx[at[same]], judgment[same]  # exact: a hash match was a candidate
    qcode = gcodes[idx]
    first_row = np.zeros(len(guniq), dtype=np.int64)
    first_row[heads] = starts  # rows are grouped now: one run of rows per query
    rank = idx - first_row[qcode] + 1
    grade = qrels.grade[judgment]
    return _Rows(gmap[qcode], rank, grade, retrieved, present, ignored, tied, named)


def _judgments_of(q: np.ndarray, h: np.ndarray, qrels: _Qrels) -> tuple[np.ndarray, np.ndarray]:
    """``(at, judgment)``: rows ``at`` of (``q``, ``h``) whose (query, doc hash) key a
    judgment has, and that judgment; a row is repeated for each judgment sharing its
    key (two doc ids of one query with one hash), so that the ids can decide."""
    from assay.pairs import hashed_pairs

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
    and ``hashes[d]`` its :func:`assay.pairs.hashes` value.

    A categorical column gives its codes and categories; any other column its
    row numbers and its own array (``ids is docs.array``), so that no doc id is
    hashed into a dictionary.
    """
    import pandas as pd

    from assay.pairs import hashes

    if isinstance(docs.dtype, pd.CategoricalDtype):
        categories = docs.cat.categories
        return docs.cat.codes.to_numpy(), categories, hashes(arrow_text(categories))
    rows = np.arange(len(docs), dtype=np.int32 if len(docs) < 1 << 31 else np.int64)
    return rows, docs.array, hashes(arrow_text(docs))


def _maybe_judged(g: np.ndarray, h: np.ndarray, gmap: np.ndarray, qrels: _Qrels) -> np.ndarray:
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
    """Rows whose pair hash hits ``table`` (a large run in two halves on two threads)."""
    from assay._threads import halves

    def hits(rows: slice) -> np.ndarray:
        return np.flatnonzero(table[_pair_hash(g[rows], h[rows], bits)]) + rows.start

    return np.concatenate(halves(hits, len(g)))


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
