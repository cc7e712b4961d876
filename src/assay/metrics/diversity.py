"""Diversity measures over subtopic judgments, as TREC's ndeval defines them.

A query's subtopics are those of its diversity qrels (``--judgments-format
trec-diversity``); a judgment set without subtopics reads each query as one
subtopic. A document is relevant to a subtopic when its grade for it is >=
``rel`` (ndeval: >= 1). ``S`` is the number of the query's subtopics with a
relevant document; every measure is 0 when ``S`` is 0. With ``g(i)`` the gain
of the document at rank ``i``, the sum over the subtopics it is relevant to of
``(1 - alpha)^c``, ``c`` the documents above it relevant to that subtopic:

* ``alpha_nDCG@k``: ``sum_{i<=k} g(i) / log2(i + 1)`` over the same sum for the
  ideal ranking, built greedily as ndeval does (at each rank the judged document
  of largest gain, ties to the greatest doc id in byte order);
* ``ERR_IA@k``: ``sum_{i<=k} g(i) / i`` over ``sum_{i<=k} S (1 - alpha)^(i-1) / i``
  (ndeval's collection-independent normalisation; at k = 1 ndeval leaves the
  sum unnormalised, and so does assay), alpha 0.5;
* ``NRBP``: ``(1 - (1 - alpha) beta) / S * sum_i g(i) beta^(i-1)`` over the whole
  ranking;
* ``P_IA@k``: relevant (document, subtopic) pairs in the top k over ``k S``;
* ``StRecall@k``: subtopics with a relevant document in the top k over ``S``.

Every kernel works on (row, subtopic) pairs with whole-array numpy operations;
the greedy ideal ranking takes one vectorised step per rank up to ``k`` (across
all queries at once). Values equal ir_measures' ndeval provider (pyndeval)
query by query (``tests/metrics/test_diversity.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from assay.core.pairs import arrow_text, hashes
from assay.metrics.rows import _judgments_of, _same_ids, positions_in

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.metrics.kernels import Context
    from assay.metrics.measures import Measure
    from assay.metrics.rows import Qrels

#: ndeval's default redundancy intolerance (alpha) and patience (beta)
ALPHA = 0.5
BETA = 0.5


@dataclass
class Subtopics:
    """Subtopic judgments in the index space of the engine's qrels arrays.

    Pairs are sorted by judgment; those of judgment ``j`` are
    ``indptr[j]:indptr[j + 1]``. ``code`` numbers the (query, subtopic) pairs
    of the whole set; ``doc_order`` is each judgment's place in doc-id byte
    order (ndeval's tie-break in the ideal ranking).
    """

    judgment: np.ndarray
    code: np.ndarray
    grade: np.ndarray
    indptr: np.ndarray
    code_q: np.ndarray
    doc_order: np.ndarray


def subtopic_judgments(judgments: JudgmentSet, qrels: Qrels, qids: list[str]) -> Subtopics:
    """The :class:`Subtopics` of ``judgments`` over the engine's ``qrels`` arrays."""
    import pyarrow.compute as pc

    n = len(qrels.q)
    doc_order = np.empty(n, dtype=np.int64)
    if n:
        doc_order[pc.sort_indices(qrels.ids).to_numpy()] = np.arange(n)
    if judgments.subtopics is None:  # each query one subtopic
        judgment = np.arange(n, dtype=np.int64)
        code, grade, code_q = qrels.q, qrels.grade, np.arange(len(qids), dtype=np.int64)
    else:
        judgment, code, grade, code_q = _mapped(judgments.subtopics, qrels, qids)
    order = np.argsort(judgment, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(judgment, minlength=n), out=indptr[1:])
    return Subtopics(judgment[order], code[order], grade[order], indptr, code_q, doc_order)


def _mapped(frame: Any, qrels: Qrels, qids: list[str]) -> tuple[np.ndarray, ...]:
    """(judgment, code, grade, query of each code) of a subtopics frame's rows."""
    import pandas as pd

    empty = np.zeros(0, dtype=np.int64)
    q = positions_in(frame["query_id"], qids)
    rows = np.flatnonzero(q >= 0)
    if not len(rows) or not len(qrels.q):
        return empty, empty, empty, empty
    ids = arrow_text(frame["doc_id"]).take(rows)
    at, judgment = _judgments_of(q[rows], hashes(ids), qrels)
    same = _same_ids(ids.take(at), qrels.ids.take(judgment))
    at, judgment = at[same], judgment[same]
    picked = rows[at]
    keys = pd.MultiIndex.from_arrays([q[picked], frame["subtopic"].to_numpy()[picked]])
    code, uniques = pd.factorize(keys)
    code_q = np.asarray(uniques.get_level_values(0), dtype=np.int64)
    grade = frame["grade"].to_numpy().astype(np.int64)[picked]
    return judgment, code.astype(np.int64), grade, code_q


@dataclass
class _Pairs:
    """Relevant (row, subtopic) pairs of the ranking, rows in rank order."""

    q: np.ndarray  # query of the pair's row
    rank: np.ndarray  # rank of the pair's row
    row: np.ndarray  # the row
    code: np.ndarray  # the subtopic
    gain: np.ndarray  # (1 - alpha)^(documents above relevant to the subtopic)


def _float(m: Measure, key: str, default: float) -> float:
    value = m.param(key)
    return float(value) if value else default


def _subtopic_count(ctx: Context, rel: int) -> np.ndarray:
    """S per query: subtopics with a judgment >= ``rel``."""
    sub = ctx.subtopics
    relevant = np.zeros(len(sub.code_q), dtype=bool)
    relevant[sub.code[sub.grade >= rel]] = True
    return np.bincount(sub.code_q[relevant], minlength=ctx.nq).astype(np.float64)


def _powers(ratio: float, n: int) -> np.ndarray:
    """``ratio^0 .. ratio^n`` by repeated multiplication, as ndeval updates its gains."""
    return np.cumprod(np.r_[1.0, np.full(n, ratio)])


def _pairs(ctx: Context, rel: int, alpha: float) -> _Pairs:
    sub = ctx.subtopics
    judgment = ctx.judgment if ctx.judgment is not None else np.zeros(0, dtype=np.int64)
    start, stop = sub.indptr[judgment], sub.indptr[judgment + 1]
    count = stop - start
    row = np.repeat(np.arange(len(judgment)), count)
    offset = np.arange(len(row)) - np.repeat(np.cumsum(count) - count, count)
    pair = np.repeat(start, count) + offset
    keep = sub.grade[pair] >= rel
    row, pair = row[keep], pair[keep]
    code = sub.code[pair]
    seen = np.zeros(len(code), dtype=np.int64)  # relevant documents above, per subtopic
    if len(code):
        by_code = np.argsort(code, kind="stable")  # rank order kept within a subtopic
        sorted_codes = code[by_code]
        first = np.r_[True, sorted_codes[1:] != sorted_codes[:-1]]
        starts = np.flatnonzero(first)
        runs = np.diff(np.r_[starts, len(code)])
        seen[by_code] = np.arange(len(code)) - np.repeat(starts, runs)
    gain = _powers(1.0 - alpha, int(seen.max(initial=0)))[seen]
    return _Pairs(ctx.q[row], ctx.rank[row], row, code, gain)


def _row_gains(ctx: Context, pairs: _Pairs, cutoff: int | None) -> tuple[np.ndarray, ...]:
    """(query, rank, gain) per ranked row with a relevant subtopic, within ``cutoff``."""
    gain = np.bincount(pairs.row, weights=pairs.gain, minlength=len(ctx.q))
    rows = np.unique(pairs.row)
    if cutoff is not None:
        rows = rows[ctx.rank[rows] <= cutoff]
    return ctx.q[rows], ctx.rank[rows], gain[rows]


def _discount(rank: np.ndarray) -> np.ndarray:
    return np.log(2.0) / np.log(rank + 1.0)


def _ideal_dcg(ctx: Context, rel: int, alpha: float, k: int) -> np.ndarray:
    """alpha-DCG@k of ndeval's greedy ideal ranking, per query (one step per rank)."""
    sub = ctx.subtopics
    relevant = sub.grade >= rel
    pair_j, code = sub.judgment[relevant], sub.code[relevant]
    docs = np.unique(pair_j)
    out = np.zeros(ctx.nq)
    if not len(docs):
        return out
    local = np.searchsorted(docs, pair_j)  # candidate index of each pair
    doc_q = ctx.qrels_q[docs]
    order_key = sub.doc_order[docs]
    weight = np.ones(len(sub.code_q))
    taken = np.zeros(len(docs), dtype=bool)
    for step in range(1, k + 1):
        score = np.bincount(local, weights=weight[code], minlength=len(docs))
        free = ~taken
        if not free.any():
            break
        cand = np.flatnonzero(free)
        ranked = cand[np.lexsort((order_key[cand], score[cand], doc_q[cand]))]
        last = np.r_[doc_q[ranked][1:] != doc_q[ranked][:-1], True]
        picked = ranked[last]  # per query: largest gain, then greatest doc id
        out[doc_q[picked]] += score[picked] * _discount(np.array(float(step)))
        taken[picked] = True
        hit = taken[local] & np.isin(local, picked)
        weight[code[hit]] *= 1.0 - alpha
    return out


def diversity_alpha_ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """alpha_nDCG@k (ndeval alpha-nDCG)."""
    alpha = _float(m, "alpha", ALPHA)
    k = int(m.cutoff or 0)
    q, rank, gain = _row_gains(ctx, _pairs(ctx, m.rel, alpha), k)
    dcg = np.bincount(q, weights=gain * _discount(rank), minlength=ctx.nq)
    ideal = _ideal_dcg(ctx, m.rel, alpha, k)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(dcg > 0, dcg / np.where(ideal > 0, ideal, 1.0), 0.0)


def diversity_err_ia(ctx: Context, m: Measure) -> np.ndarray:
    """ERR_IA@k (ndeval ERR-IA, collection-independent normalisation)."""
    k = int(m.cutoff or 0)
    q, rank, gain = _row_gains(ctx, _pairs(ctx, m.rel, ALPHA), k)
    err = np.bincount(q, weights=gain / rank, minlength=ctx.nq)
    if k == 1:
        return err
    s = _subtopic_count(ctx, m.rel)
    steps = np.arange(1, k + 1, dtype=np.float64)
    ideal_ideal = float(np.cumsum(_powers(1.0 - ALPHA, k - 1) / steps)[-1])
    return np.where(s > 0, err / np.where(s > 0, s * ideal_ideal, 1.0), 0.0)


def diversity_nrbp(ctx: Context, m: Measure) -> np.ndarray:
    """NRBP (ndeval NRBP, collection-independent normalisation)."""
    alpha, beta = _float(m, "alpha", ALPHA), _float(m, "beta", BETA)
    q, rank, gain = _row_gains(ctx, _pairs(ctx, m.rel, alpha), None)
    depth = int(rank.max(initial=1))
    total = np.bincount(q, weights=gain * _powers(beta, depth)[rank - 1], minlength=ctx.nq)
    s = _subtopic_count(ctx, m.rel)
    scale = 1.0 - (1.0 - alpha) * beta
    return np.where(s > 0, total * scale / np.where(s > 0, s, 1.0), 0.0)


def diversity_p_ia(ctx: Context, m: Measure) -> np.ndarray:
    """P_IA@k (ndeval P-IA)."""
    k = int(m.cutoff or 0)
    pairs = _pairs(ctx, m.rel, ALPHA)
    top = pairs.rank <= k
    count = np.bincount(pairs.q[top], minlength=ctx.nq).astype(np.float64)
    s = _subtopic_count(ctx, m.rel)
    return np.where(s > 0, count / np.where(s > 0, k * s, 1.0), 0.0)


def diversity_st_recall(ctx: Context, m: Measure) -> np.ndarray:
    """StRecall@k (ndeval strec)."""
    k = int(m.cutoff or 0)
    pairs = _pairs(ctx, m.rel, ALPHA)
    top = pairs.rank <= k
    covered = np.zeros(len(ctx.subtopics.code_q), dtype=bool)
    covered[pairs.code[top]] = True
    count = np.bincount(ctx.subtopics.code_q[covered], minlength=ctx.nq).astype(np.float64)
    s = _subtopic_count(ctx, m.rel)
    return np.where(s > 0, count / np.where(s > 0, s, 1.0), 0.0)
