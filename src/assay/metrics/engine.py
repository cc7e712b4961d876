"""The vectorised metric engine: judgments + run -> per-query scores, trec_eval-exact.

Everything runs over flat numpy arrays, with no Python loop per query or per
document:

1. query ids are mapped to the judgment set's answerable queries, doc ids to
   the judged documents (Arrow hash look-ups over the *unique* ids only);
2. rows are put in rank order: grouped by query, score descending, then doc
   id descending (byte-wise, trec_eval's rule), or kept in the given order;
   an already-ordered run (the usual case) is detected in O(n) and not sorted;
3. each row gets its grade by one ``searchsorted`` over combined int64
   ``(query, doc)`` keys;
4. measures are per-query reductions (``bincount`` with weights) over the
   rows, see :mod:`assay.metrics.kernels`.

Missing queries: ``missing='zero'`` is trec_eval ``-c`` (answerable queries
absent from the run score 0, except ``NumRel``, and count in the mean);
``'skip'`` is trec_eval's default (only queries present in the run are
evaluated). No-answer queries are never scored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from assay.errors import UsageError
from assay.judgments.models import JudgmentSet
from assay.metrics.measures import Measure, parse_measure
from assay.runs.models import Run

MISSING_POLICIES = ("zero", "skip")
TIE_POLICIES = ("score", "given")


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

    def aggregate(self) -> dict[Measure, float]:
        """Mean of each measure over the evaluated queries.

        With no evaluated query every mean is 0.0 (as trec_eval prints for an
        empty evaluation), so the result never holds NaN.
        """
        if not self.query_ids:
            return {m: 0.0 for m in self.values}
        return {m: float(np.mean(v)) for m, v in self.values.items()}

    def __len__(self) -> int:
        return len(self.query_ids)


def compute(
    judgments: JudgmentSet,
    run: Run,
    measures: list[Measure] | list[str],
    *,
    missing: str = "zero",
    ties: str = "score",
) -> ScoreTable:
    """Score ``run`` against ``judgments`` with each measure, per query.

    ``missing``: 'zero' (trec_eval -c) or 'skip' (trec_eval default).
    ``ties``: 'score' (score descending, then doc id descending, as
    trec_eval) or 'given' (the run's order). Runs without scores keep the
    given order. Raises :class:`UsageError` on an unknown policy or measure.
    """
    from assay.metrics import kernels

    if missing not in MISSING_POLICIES:
        raise UsageError(f"missing must be one of {', '.join(MISSING_POLICIES)}, got {missing!r}")
    if ties not in TIE_POLICIES:
        raise UsageError(f"ties must be one of {', '.join(TIE_POLICIES)}, got {ties!r}")
    ms = list(dict.fromkeys(parse_measure(m) for m in measures))

    qids = judgments.answerable_ids
    nq = len(qids)
    qrels = _qrels_arrays(judgments, qids)
    rows = _ranked_rows(run, qids, qrels.docs, ties)
    grade = _join_grades(rows, qrels)

    ctx = kernels.Context(
        nq=nq,
        q=rows.q,
        rank=rows.rank,
        grade=grade,
        qrels_q=qrels.q,
        qrels_grade=qrels.grade,
    )
    values = {m: kernels.evaluate(m, ctx) for m in ms}
    first = kernels.first_rank(ctx, 1).astype(np.int64)

    in_run = np.zeros(nq, dtype=bool)
    in_run[rows.present] = True
    tied = _tied_pairs(rows, ms)
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
        tied_pairs_at_cutoff=tied,
    )


# --------------------------------------------------------------------- arrays
@dataclass
class _Rows:
    """Run rows of evaluated queries, in rank order, grouped by query."""

    q: np.ndarray  # int64 evaluated-query index per row
    rank: np.ndarray  # int64 1-based rank within its query
    doc: np.ndarray  # int64 judged-doc code per row (-1: never judged)
    score: np.ndarray  # float64
    present: np.ndarray  # evaluated-query indices present in the run
    ignored: int  # run queries that are not answerable in the judgments
    has_scores: bool


@dataclass
class _Qrels:
    q: np.ndarray  # int64 evaluated-query index
    doc: np.ndarray  # int64 judged-doc code
    grade: np.ndarray  # int64
    ndocs: int
    docs: Any  # pyarrow array of the judged doc ids (code -> id)


def _to_arrow(values: Any) -> Any:
    """A pandas Index/array of strings as a pyarrow string array."""
    import pyarrow as pa

    arr = getattr(values, "array", values)
    try:
        out = pa.array(arr)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError):
        out = pa.array([str(v) for v in arr], pa.string())
    if not (pa.types.is_string(out.type) or pa.types.is_large_string(out.type)):
        out = pa.array([str(v) for v in arr.tolist()], pa.string())
    return out


def _codes(series: Any) -> tuple[np.ndarray, Any]:
    """Integer codes and uniques (pandas Index) of a string column."""
    import pandas as pd

    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.cat.codes.to_numpy().astype(np.int64, copy=False), series.cat.categories
    codes, uniques = pd.factorize(series)
    return codes.astype(np.int64, copy=False), pd.Index(uniques)


def _lookup(values: Any, universe: Any) -> np.ndarray:
    """Position of each of ``values`` in ``universe`` (both string arrays), -1 if absent."""
    import pyarrow.compute as pc

    idx = pc.index_in(_to_arrow(values), value_set=_to_arrow(universe))
    return idx.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64, copy=False)


def _qrels_arrays(judgments: JudgmentSet, qids: list[str]) -> _Qrels:
    import pyarrow as pa

    qr = judgments.qrels
    if len(qr) == 0 or not qids:
        empty = np.zeros(0, dtype=np.int64)
        return _Qrels(empty, empty, empty, 0, pa.array([], pa.string()))
    qcodes, quniq = _codes(qr["query_id"])
    qmap = _lookup(quniq, qids)
    q = qmap[qcodes]
    keep = q >= 0
    dcodes, duniq = _codes(qr["doc_id"])
    grade = qr["grade"].to_numpy().astype(np.int64)
    return _Qrels(q[keep], dcodes[keep], grade[keep], len(duniq), _to_arrow(duniq))


def _ranked_rows(run: Run, qids: list[str], judged_docs: Any, ties: str) -> _Rows:
    frame = run.frame
    empty = np.zeros(0, dtype=np.int64)
    if len(frame) == 0:
        return _Rows(empty, empty, empty, np.zeros(0), empty, 0, run.has_scores)
    gcodes, guniq = _codes(frame["query_id"])
    used = np.bincount(gcodes, minlength=len(guniq)) > 0
    gmap = _lookup(guniq, qids) if qids else np.full(len(guniq), -1, dtype=np.int64)
    ignored = int(np.count_nonzero(used & (gmap < 0)))
    present = np.unique(gmap[used & (gmap >= 0)])

    dcodes, duniq = _codes(frame["doc_id"])
    score = frame["score"].to_numpy(dtype=np.float64)
    keep = gmap[gcodes] >= 0
    if not keep.all():
        gcodes, dcodes, score = gcodes[keep], dcodes[keep], score[keep]
    scored = run.has_scores and ties == "score"
    order = _rank_order(gcodes, dcodes, score, duniq, scored)
    if order is not None:
        gcodes, dcodes, score = gcodes[order], dcodes[order], score[order]

    n = len(gcodes)
    starts = np.flatnonzero(np.r_[True, gcodes[1:] != gcodes[:-1]]) if n else empty
    seg_len = np.diff(np.r_[starts, n])
    rank = np.arange(n, dtype=np.int64) - np.repeat(starts, seg_len) + 1
    dmap = _lookup(duniq, judged_docs) if len(judged_docs) else np.full(len(duniq), -1)
    return _Rows(gmap[gcodes], rank, dmap[dcodes], score, present, ignored, run.has_scores)


def _rank_order(
    g: np.ndarray, d: np.ndarray, s: np.ndarray, duniq: Any, scored: bool
) -> np.ndarray | None:
    """Permutation into rank order, or ``None`` when the rows already are in it."""
    if len(g) < 2:
        return None
    dg = np.diff(g)
    if not scored:
        return None if (dg >= 0).all() else np.argsort(g, kind="stable")
    same = dg == 0
    in_order = (dg > 0) | (same & (s[1:] <= s[:-1]))
    order = None
    if not in_order.all():
        order = np.lexsort((-s, g))
        g, d, s = g[order], d[order], s[order]
        same = g[1:] == g[:-1]
    tie = same & (s[1:] == s[:-1])
    if not tie.any():
        return order
    # Break score ties by doc id descending (code-point order == UTF-8 byte order).
    pos = np.flatnonzero(tie)
    if (_doc_strings(d[pos], duniq) > _doc_strings(d[pos + 1], duniq)).all():
        return order
    # Re-sort only the rows inside tie groups, in place of their positions.
    rows = np.unique(np.r_[pos, pos + 1])
    _, inv = np.unique(_doc_strings(d[rows], duniq), return_inverse=True)
    group = np.cumsum(~np.r_[False, tie])[rows]
    local = np.lexsort((-inv.reshape(-1), group))
    order2 = np.arange(len(g))
    order2[rows] = rows[local]
    return order2 if order is None else order[order2]


def _doc_strings(codes: np.ndarray, duniq: Any) -> np.ndarray:
    """Doc id strings (object array) for the given codes."""
    return np.asarray([str(x) for x in duniq.take(codes)], dtype=object)


def _join_grades(rows: _Rows, qrels: _Qrels) -> np.ndarray:
    """Grade of each run row (-1 when unjudged) via one searchsorted on int64 keys."""
    grade = np.full(len(rows.q), -1, dtype=np.int64)
    if not len(qrels.q) or not len(rows.q):
        return grade
    width = np.int64(max(qrels.ndocs, 1))
    qkey = qrels.q * width + qrels.doc
    order = np.argsort(qkey, kind="stable")
    qkey, qgrade = qkey[order], qrels.grade[order]
    judged = rows.doc >= 0
    rkey = rows.q[judged] * width + rows.doc[judged]
    pos = np.searchsorted(qkey, rkey)
    pos_c = np.minimum(pos, len(qkey) - 1)
    hit = qkey[pos_c] == rkey
    sub = np.full(len(rkey), -1, dtype=np.int64)
    sub[hit] = qgrade[pos_c[hit]]
    grade[judged] = sub
    return grade


def _tied_pairs(rows: _Rows, measures: list[Measure]) -> int:
    """(query, k) pairs where the k-th and (k+1)-th results have equal scores."""
    cutoffs = sorted({m.cutoff for m in measures if m.cutoff is not None})
    if not cutoffs or not rows.has_scores or len(rows.q) < 2:
        return 0
    tie_next = np.r_[(rows.q[1:] == rows.q[:-1]) & (rows.score[1:] == rows.score[:-1]), False]
    return int(np.count_nonzero(tie_next & np.isin(rows.rank, cutoffs)))
