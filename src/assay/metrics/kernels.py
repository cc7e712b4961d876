"""Per-measure kernels: per-query reductions over rank-ordered flat arrays.

Every kernel takes a :class:`Context` (one row per retrieved document of an
evaluated query, grouped by query and in rank order, with its grade; rows of
documents that are judged for no query may be left out when the number of
retrieved documents per query is given; plus the judged grades per query) and
returns a float64 array with one value per evaluated query. Definitions follow
trec_eval 9.x (``m_P.c``, ``m_recall.c``, ``m_recip_rank.c``, ``m_map.c``,
``m_map_cut.c``, ``m_ndcg.c``, ``m_ndcg_cut.c``, ``m_Rprec.c``, ``m_success.c``,
``m_num_*.c``): a query without relevant documents scores 0 on every ratio;
nDCG gains are the grades (``gain='exp'``: ``2**grade - 1``), grade 0 and unjudged documents gain
nothing, and the ideal ranking uses every judged grade of the query. Judged@k
follows ir_measures: judged documents in the top k over ``min(k, retrieved)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from assay.metrics.measures import Measure


@dataclass
class Context:
    """Flat inputs shared by all kernels (see module docstring)."""

    nq: int
    q: np.ndarray  # int64 query index per row, rows grouped by query in rank order
    rank: np.ndarray  # int64 1-based rank per row
    grade: np.ndarray  # int64 grade per row; -1 when unjudged
    qrels_q: np.ndarray  # int64 query index per judgment
    qrels_grade: np.ndarray  # int64 grade per judgment
    #: float64 retrieved rows per query when ``q`` holds only some of them (the
    #: engine keeps just the rows of judged documents); ``None``: ``q`` holds all
    retrieved: np.ndarray | None = None
    _cache: dict = field(default_factory=dict)

    def count(self, mask: np.ndarray | None = None) -> np.ndarray:
        """Rows per query (optionally only rows where ``mask``), float64.

        Without ``mask`` this is the number of retrieved documents per query.
        """
        if mask is None and self.retrieved is not None:
            return self.retrieved.astype(np.float64, copy=True)
        q = self.q if mask is None else self.q[mask]
        return np.bincount(q, minlength=self.nq).astype(np.float64)

    def num_rel(self, rel: int) -> np.ndarray:
        """Judged documents with grade >= ``rel`` per query, float64."""
        key = ("num_rel", rel)
        if key not in self._cache:
            self._cache[key] = np.bincount(
                self.qrels_q[self.qrels_grade >= rel], minlength=self.nq
            ).astype(np.float64)
        return self._cache[key]

    def relevant(self, rel: int) -> np.ndarray:
        """Row mask: retrieved document with grade >= ``rel``."""
        key = ("relevant", rel)
        if key not in self._cache:
            self._cache[key] = self.grade >= rel
        return self._cache[key]


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros_like(num, dtype=np.float64)
    np.divide(num, den, out=out, where=den > 0)
    return out


def first_rank(ctx: Context, rel: int) -> np.ndarray:
    """1-based rank of the first row with grade >= ``rel`` per query (0: none)."""
    key = ("first", rel)
    if key not in ctx._cache:
        idx = np.flatnonzero(ctx.relevant(rel))
        qs = ctx.q[idx]
        first = np.r_[True, qs[1:] != qs[:-1]] if len(qs) else np.zeros(0, dtype=bool)
        out = np.zeros(ctx.nq, dtype=np.int64)
        out[qs[first]] = ctx.rank[idx[first]]
        ctx._cache[key] = out
    return ctx._cache[key]


def _precision_at_rel(ctx: Context, rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For relevant rows: query, rank, precision at that rank (rows in rank order)."""
    key = ("prec", rel)
    if key not in ctx._cache:
        idx = np.flatnonzero(ctx.relevant(rel))
        qs, ranks = ctx.q[idx], ctx.rank[idx]
        n = len(qs)
        starts = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]]) if n else np.zeros(0, np.int64)
        within = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n])) + 1
        ctx._cache[key] = (qs, ranks, within / ranks)
    return ctx._cache[key]


def _gain(grades: np.ndarray, gain: str) -> np.ndarray:
    g = np.where(grades > 0, grades, 0).astype(np.float64)
    return np.exp2(g) - 1.0 if gain == "exp" else g


def _ideal_dcg(ctx: Context, gain: str, cutoff: int | None) -> np.ndarray:
    order = np.lexsort((-ctx.qrels_grade, ctx.qrels_q))
    qs, grades = ctx.qrels_q[order], ctx.qrels_grade[order]
    pos_mask = grades > 0
    qs, grades = qs[pos_mask], grades[pos_mask]
    n = len(qs)
    starts = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]]) if n else np.zeros(0, np.int64)
    pos = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n])) + 1
    if cutoff is not None:
        keep = pos <= cutoff
        qs, grades, pos = qs[keep], grades[keep], pos[keep]
    w = _gain(grades, gain) / np.log2(pos + 1.0)
    return np.bincount(qs, weights=w, minlength=ctx.nq)


def _ndcg(ctx: Context, m: Measure) -> np.ndarray:
    mask = ctx.grade > 0
    if m.cutoff is not None:
        mask &= ctx.rank <= m.cutoff
    w = _gain(ctx.grade[mask], m.gain) / np.log2(ctx.rank[mask] + 1.0)
    dcg = np.bincount(ctx.q[mask], weights=w, minlength=ctx.nq)
    return _ratio(dcg, _ideal_dcg(ctx, m.gain, m.cutoff))


def _ap(ctx: Context, m: Measure) -> np.ndarray:
    qs, ranks, prec = _precision_at_rel(ctx, m.rel)
    if m.cutoff is not None:
        keep = ranks <= m.cutoff
        qs, prec = qs[keep], prec[keep]
    total = np.bincount(qs, weights=prec, minlength=ctx.nq)
    return _ratio(total, ctx.num_rel(m.rel))


def _rr(ctx: Context, m: Measure) -> np.ndarray:
    first = first_rank(ctx, m.rel).astype(np.float64)
    if m.cutoff is not None:
        first = np.where(first <= m.cutoff, first, 0.0)
    return _ratio(np.ones(ctx.nq), first)


def _rprec(ctx: Context, m: Measure) -> np.ndarray:
    num_rel = ctx.num_rel(m.rel)
    mask = ctx.relevant(m.rel) & (ctx.rank <= num_rel[ctx.q])
    return _ratio(ctx.count(mask), num_rel)


def _judged(ctx: Context, m: Measure) -> np.ndarray:
    top = ctx.rank <= m.cutoff
    judged = ctx.count(top & (ctx.grade >= 0))
    return _ratio(judged, np.minimum(ctx.count(), float(m.cutoff)))


def evaluate(m: Measure, ctx: Context) -> np.ndarray:
    """Per-query values of one measure (float64, length ``ctx.nq``)."""
    fam = m.family
    if fam == "nDCG":
        return _ndcg(ctx, m)
    if fam == "AP":
        return _ap(ctx, m)
    if fam in ("RR",):
        return _rr(ctx, m)
    if fam == "Rprec":
        return _rprec(ctx, m)
    if fam == "Judged":
        return _judged(ctx, m)
    if fam == "NumRet":
        return ctx.count()
    if fam == "NumRel":
        return ctx.num_rel(m.rel).copy()
    if fam == "NumRelRet":
        return ctx.count(ctx.relevant(m.rel))
    top = ctx.relevant(m.rel) & (ctx.rank <= m.cutoff)
    hits = ctx.count(top)
    if fam == "P":
        return hits / float(m.cutoff)
    if fam == "R":
        return _ratio(hits, ctx.num_rel(m.rel))
    if fam == "Success":
        return (hits > 0).astype(np.float64)
    raise ValueError(f"no kernel for {m.name}")  # pragma: no cover - Measure validates
