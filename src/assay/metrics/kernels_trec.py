"""Kernels of the measures trec_eval adds to the common ones (bpref, infAP, IPrec, G, RBP...).

Same contract as :mod:`assay.metrics.kernels`: a :class:`Context` in, one
float64 value per query out, vectorised over the kept rows. Each follows the
``m_*.c`` file of trec_eval 10.0 named in its docstring, quirks included (the
rounding of recall levels to ranks, the ``+ 0.9`` of Rprec_mult, the end of
the ranking in Rndcg), so that every value matches trec_eval's printout.
"""

from __future__ import annotations

import numpy as np

from assay.metrics.kernels import (
    UNJUDGED,
    Context,
    cum_within,
    gains,
    ideal,
    precision_at_rel,
    ratio,
    running,
)
from assay.metrics.measures import Measure


def prefix_at(
    qs: np.ndarray, pos: np.ndarray, w: np.ndarray, q: np.ndarray, upto: np.ndarray
) -> np.ndarray:
    """Sum of ``w`` over rows of query ``q[j]`` whose ``pos`` is <= ``upto[j]``, for each j."""
    if not len(q):
        return np.zeros(0)
    width = np.int64(max(int(pos.max()) if len(pos) else 0, int(upto.max()), 0) + 2)
    key = qs.astype(np.int64) * width + pos
    order = np.argsort(key, kind="stable")
    key = key[order]
    total = np.r_[0.0, np.cumsum(w[order], dtype=np.float64)]
    hi = np.searchsorted(key, q * width + np.maximum(upto, 0), side="right")
    lo = np.searchsorted(key, q * width, side="right")
    return total[hi] - total[lo]


def rprec_mult(ctx: Context, m: Measure) -> np.ndarray:
    """trec_eval Rprec_mult: precision at ``(long)(mult * R + 0.9)`` (m_Rprec_mult.c)."""
    cut = np.floor(float(m.param("mult")) * ctx.num_rel(m.rel) + 0.9)
    rel = ctx.relevant(m.rel)
    hits = prefix_at(ctx.q[rel], ctx.rank[rel], np.ones(int(rel.sum())), np.arange(ctx.nq), cut)
    return ratio(hits, cut)


def _nonrel_judged(ctx: Context, rel: int) -> np.ndarray:
    return (ctx.grade >= 0) & (ctx.grade < rel)


def bpref(ctx: Context, m: Measure) -> np.ndarray:
    """Bpref (m_bpref.c): judged non-relevant above each retrieved relevant document."""
    big_r = ctx.num_rel(m.rel)
    big_n = ctx.num_nonrel(m.rel)
    above = cum_within(ctx.q, _nonrel_judged(ctx, m.rel))
    rel = ctx.relevant(m.rel)
    qs, n_r = ctx.q[rel], above[rel]
    den = np.minimum(big_n, big_r)[qs]
    part = np.where(n_r > 0, 1.0 - ratio(np.minimum(n_r, big_r[qs]), den), 1.0)
    return ratio(np.bincount(qs, weights=part, minlength=ctx.nq), big_r)


def infap(ctx: Context, m: Measure) -> np.ndarray:
    """Inferred AP (m_infap.c)."""
    eps = 0.00001
    rel = ctx.relevant(m.rel)
    nonrel = cum_within(ctx.q, _nonrel_judged(ctx, m.rel))[rel]
    unj = cum_within(ctx.q, ctx.grade == UNJUDGED)[rel]
    qs = ctx.q[rel]
    k = running(qs) - 1.0  # relevant documents above
    j = ctx.rank[rel] - 1.0
    safe = np.maximum(j, 1.0)
    part = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((k + nonrel + unj) / safe) * (
        (k + eps) / (k + nonrel + 2 * eps)
    )
    part = np.where(j == 0, 1.0, part)
    return ratio(np.bincount(qs, weights=part, minlength=ctx.nq), ctx.num_rel(m.rel))


def lround(x: np.ndarray) -> np.ndarray:
    """C ``lround`` for non-negative values (halves away from zero)."""
    low = np.floor(x)
    return np.where(x - low >= 0.5, low + 1.0, low)


def _iprec_levels(ctx: Context, m: Measure, levels: list[float]) -> np.ndarray:
    """Interpolated precision at each recall level, shape (levels, nq) (m_iprec_at_recall.c)."""
    import pandas as pd

    qs, _, prec = precision_at_rel(ctx, m.rel)
    # suffix maximum of precision over the relevant rows of each query
    best = pd.Series(prec[::-1]).groupby(qs[::-1]).cummax().to_numpy()[::-1]
    found = np.bincount(qs, minlength=ctx.nq)
    start = np.zeros(ctx.nq, dtype=np.int64)  # first relevant row of each query
    start[qs[::-1]] = np.arange(len(qs) - 1, -1, -1)
    big_r = ctx.num_rel(m.rel)
    out = np.zeros((len(levels), ctx.nq))
    for i, level in enumerate(levels):
        cut = lround(level * big_r).astype(np.int64)
        ok = (found > 0) & (cut <= found)
        at = start + np.maximum(cut, 1) - 1
        out[i, ok] = best[at[ok]]
    return out


def iprec(ctx: Context, m: Measure) -> np.ndarray:
    """Interpolated precision at one recall level (trec_eval iprec_at_recall)."""
    return _iprec_levels(ctx, m, [float(m.param("recall"))])[0]


def iprec_avg(ctx: Context, m: Measure) -> np.ndarray:
    """Mean interpolated precision over the levels ``at=`` (trec_eval 11pt_avg)."""
    levels = [float(v) for v in m.param("at").split(",")]
    return _iprec_levels(ctx, m, levels).mean(axis=0)


def bing(ctx: Context, m: Measure) -> np.ndarray:
    """Binary G (m_binG.c)."""
    qs, ranks, _ = precision_at_rel(ctx, m.rel)
    part = 1.0 / np.log2(2.0 + ranks - running(qs))
    return ratio(np.bincount(qs, weights=part, minlength=ctx.nq), ctx.num_rel(m.rel))


def _row_gains(ctx: Context, m: Measure) -> np.ndarray:
    return np.where(ctx.grade >= 0, gains(ctx.grade, m), 0.0)


def _ideal_prefix(
    ctx: Context, m: Measure, upto: np.ndarray, qidx: np.ndarray, dcg: bool
) -> np.ndarray:
    iq, ipos, ig = ideal(ctx, m)
    w = ig / np.log2(ipos + 1.0) if dcg else ig
    return prefix_at(iq, ipos, w, qidx, upto)


def g_measure(ctx: Context, m: Measure) -> np.ndarray:
    """trec_eval's G (m_G.c)."""
    iq, ipos, ig = ideal(ctx, m)
    npos = np.bincount(iq, minlength=ctx.nq)
    sum_ideal = np.bincount(iq, weights=ig, minlength=ctx.nq)
    g = _row_gains(ctx, m)
    seen = cum_within(ctx.q, g)
    nz = g != 0
    qs, r = ctx.q[nz], ctx.rank[nz].astype(np.float64)
    extra = prefix_at(iq, ipos, np.maximum(ig - 1.0, 0.0), qs, np.minimum(r, npos[qs]))
    part = g[nz] / np.log2(2.0 + r + extra - seen[nz])
    return ratio(np.bincount(qs, weights=part, minlength=ctx.nq), sum_ideal)


def _dcg_rows(ctx: Context, m: Measure) -> tuple[np.ndarray, np.ndarray]:
    g = _row_gains(ctx, m)
    return g, cum_within(ctx.q, g / np.log2(ctx.rank + 1.0))


def ndcg_rel(ctx: Context, m: Measure) -> np.ndarray:
    """trec_eval ndcg_rel (m_ndcg_rel.c)."""
    iq, _, _ = ideal(ctx, m)
    npos = np.bincount(iq, minlength=ctx.nq).astype(np.float64)
    allq = np.arange(ctx.nq)
    full = _ideal_prefix(ctx, m, npos, allq, True)
    g, dcg = _dcg_rows(ctx, m)
    total = np.bincount(
        ctx.q, weights=np.where(ctx.grade >= 0, g / np.log2(ctx.rank + 1.0), 0), minlength=ctx.nq
    )
    pos = g > 0
    qs = ctx.q[pos]
    idcg = _ideal_prefix(ctx, m, np.minimum(ctx.rank[pos], npos[qs]), qs, True)
    s = np.bincount(qs, weights=ratio(dcg[pos], idcg), minlength=ctx.nq).astype(np.float64)
    s += (npos - np.bincount(qs, minlength=ctx.nq)) * ratio(total, full)
    return np.where(s > 0, ratio(s, npos), 0.0)


def rndcg(ctx: Context, m: Measure) -> np.ndarray:
    """trec_eval Rndcg (m_Rndcg.c): nDCG averaged where the ideal gain changes."""
    iq, ipos, ig = ideal(ctx, m)
    npos = np.bincount(iq, minlength=ctx.nq)
    n = ctx.count()
    # boundaries: the last position of each run of equal ideal gains
    last = np.r_[(iq[1:] != iq[:-1]) | (ig[1:] != ig[:-1]), True] if len(iq) else np.zeros(0, bool)
    bq, blen = iq[last], ipos[last].astype(np.float64)
    g, _ = _dcg_rows(ctx, m)
    w = g / np.log2(ctx.rank + 1.0)
    d = prefix_at(ctx.q, ctx.rank, w, bq, np.minimum(blen, n[bq]))
    s = np.bincount(bq, weights=ratio(d, _ideal_prefix(ctx, m, blen, bq, True)), minlength=ctx.nq)
    s = s.astype(np.float64)
    count = np.bincount(bq, minlength=ctx.nq).astype(np.float64)
    tail = n > npos + 1
    allq = np.arange(ctx.nq)
    full = _ideal_prefix(ctx, m, npos.astype(np.float64), allq, True)
    total = np.bincount(ctx.q, weights=w, minlength=ctx.nq)
    s += np.where(tail & (npos > 0), ratio(total, full), 0.0)
    count += tail & (npos > 0)
    out = ratio(s, count)
    return np.where(ctx.num_rel(m.rel) > 0, out, 0.0)


def _rbp_gains(ctx: Context, m: Measure) -> np.ndarray:
    """Gains of trec_eval's rbp: grades scaled by the query's top grade when it exceeds 1."""
    top = np.zeros(ctx.nq)
    np.maximum.at(top, ctx.qrels_q, ctx.qrels_grade.astype(np.float64))
    g = np.where(ctx.grade > 0, ctx.grade, 0).astype(np.float64)
    scale = np.where(top > 1, top, 1.0)[ctx.q]
    return g / scale


def _powers(p: float, top: int) -> np.ndarray:
    """``p**k`` for k = 0..top as trec_eval makes them: one multiplication per rank
    (``np.power`` can differ in the last bit, which a mean at a rounding edge shows)."""
    return np.cumprod(np.r_[1.0, np.full(top, p)])


def rbp(ctx: Context, m: Measure) -> np.ndarray:
    """Rank-biased precision (m_rbp.c)."""
    p = float(m.param("p"))
    top = int(ctx.rank.max()) if len(ctx.rank) else 0
    w = _rbp_gains(ctx, m) * _powers(p, top)[ctx.rank - 1]
    return (1.0 - p) * np.bincount(ctx.q, weights=w, minlength=ctx.nq)


def rbp_resid(ctx: Context, m: Measure) -> np.ndarray:
    """Residual of RBP (m_rbp_resid.c): ``p**n + (1 - p) * sum of p**(i-1)`` over the
    ranks ``i`` of the unjudged documents (``n`` retrieved), summed in rank order as
    trec_eval does; 0 for a query without unjudged documents."""
    p = float(m.param("p"))
    n = ctx.count().astype(np.int64)
    powers = _powers(p, int(n.max()) if len(n) else 0)
    start = np.cumsum(n) - n
    rank0 = np.arange(int(n.sum())) - np.repeat(start, n)  # every retrieved position
    w = powers[rank0]
    judged = ctx.grade >= 0
    w[start[ctx.q[judged]] + ctx.rank[judged] - 1] = 0.0  # adds nothing, as a skip
    unj_sum = np.bincount(np.repeat(np.arange(ctx.nq), n), weights=w, minlength=ctx.nq)
    unj = n - np.bincount(ctx.q[judged], minlength=ctx.nq)
    return np.where(unj > 0, powers[n] + (1.0 - p) * unj_sum, 0.0)


def err(ctx: Context, m: Measure) -> np.ndarray:
    """Expected reciprocal rank with stop probabilities (2^g - 1) / 2^max."""
    top = float(m.param("max"))
    keep = ctx.grade > 0
    if m.cutoff is not None:
        keep &= ctx.rank <= m.cutoff
    qs, ranks = ctx.q[keep], ctx.rank[keep].astype(np.float64)
    g = np.minimum(ctx.grade[keep].astype(np.float64), top)
    stop = (np.exp2(g) - 1.0) / np.exp2(top)
    logs = np.log1p(-stop)
    before = cum_within(qs, logs) - logs
    part = np.exp(before) * stop / ranks
    return np.bincount(qs, weights=part, minlength=ctx.nq)
