"""Per-measure kernels: per-query reductions over rank-ordered flat arrays.

Every kernel takes a :class:`Context` (one row per retrieved document of an
evaluated query, grouped by query and in rank order, with its grade; rows of
documents that are judged for no query may be left out when the number of
retrieved documents per query is given; plus the judged grades per query) and
returns a float64 array with one value per evaluated query. The kernel of each
family is named in :mod:`assay.metrics.registry`; the families trec_eval adds
to the common ones live in :mod:`assay.metrics.kernels_trec`.

Grades follow trec_eval's ``RES_RELS``: a row's grade is its judged grade
(>= 0), ``NONPOOL`` (-1) when the document is not in the qrels of its query,
or ``UNJUDGED`` (-2) when the qrels give it a negative grade (trec_eval reads
it as "in the pool but not judged"): both are non-relevant for every measure,
nDCG gain included, and neither counts as judged non-relevant. Definitions
follow trec_eval 10.0 (``m_*.c``): a query without relevant documents scores 0
on every ratio; nDCG gains are the grades (``gain='exp'``: ``2**grade - 1``;
``gains=1:3,2:9`` overrides levels), and the ideal ranking uses every judged
grade of the query. Judged@k follows ir_measures.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.metrics.measures import Measure

NONPOOL = -1
UNJUDGED = -2


@dataclass
class Context:
    """Flat inputs shared by all kernels (see module docstring)."""

    nq: int
    q: np.ndarray  # int64 query index per row, rows grouped by query in rank order
    rank: np.ndarray  # int64 1-based rank per row
    grade: np.ndarray  # int64 grade per row; NONPOOL / UNJUDGED as above
    qrels_q: np.ndarray  # int64 query index per judgment
    qrels_grade: np.ndarray  # int64 grade per judgment (negative: pooled, unjudged)
    #: float64 retrieved rows per query when ``q`` holds only some of them (the
    #: engine keeps just the rows of judged documents); ``None``: ``q`` holds all
    retrieved: np.ndarray | None = None
    #: ``(query index, rank)`` of the rows whose doc any judgment of the set names (for
    #: any query, any grade), down to the deepest Hole@k cutoff; ``None``: not gathered
    annotated: tuple[np.ndarray, np.ndarray] | None = None
    #: int64 index of each row's judgment in the qrels arrays, and the subtopic
    #: judgments (:class:`assay.metrics.diversity.Subtopics`) when a diversity measure asks
    judgment: np.ndarray | None = None
    subtopics: Any = None
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

    def num_nonrel(self, rel: int) -> np.ndarray:
        """Judged documents with 0 <= grade < ``rel`` per query, float64."""
        g = self.qrels_grade
        return np.bincount(self.qrels_q[(g >= 0) & (g < rel)], minlength=self.nq).astype(float)

    def relevant(self, rel: int) -> np.ndarray:
        """Row mask: retrieved document with grade >= ``rel``."""
        key = ("relevant", rel)
        if key not in self._cache:
            self._cache[key] = self.grade >= rel
        return self._cache[key]

    def condensed(self) -> Context:
        """The context with unjudged rows removed and ranks closed up (trec_eval ``-J``)."""
        if "condensed" not in self._cache:
            keep = self.grade >= 0
            q = self.q[keep]
            rank = running(q)  # every row left is judged: none is a hole
            self._cache["condensed"] = Context(
                self.nq, q, rank, self.grade[keep], self.qrels_q, self.qrels_grade,
                annotated=(q, rank), judgment=self._kept(self.judgment, keep),
                subtopics=self.subtopics,
            )  # fmt: skip
        return self._cache["condensed"]

    def truncated(self, depth: int) -> Context:
        """The context cut to the first ``depth`` ranks of every query (trec_eval ``-M``)."""
        keep = self.rank <= depth
        retrieved = np.minimum(self.count(), float(depth))
        annotated = self.annotated
        if annotated is not None:
            top = annotated[1] <= depth
            annotated = (annotated[0][top], annotated[1][top])
        return Context(
            self.nq, self.q[keep], self.rank[keep], self.grade[keep], self.qrels_q,
            self.qrels_grade, retrieved, annotated, self._kept(self.judgment, keep),
            self.subtopics,
        )  # fmt: skip

    @staticmethod
    def _kept(values: np.ndarray | None, keep: np.ndarray) -> np.ndarray | None:
        return None if values is None else values[keep]


def running(qs: np.ndarray) -> np.ndarray:
    """1-based position of each row within its run of equal query indices."""
    n = len(qs)
    if not n:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]])
    return np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n])) + 1


def cum_within(qs: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Inclusive cumulative sum of ``x`` within each run of equal query indices."""
    n = len(qs)
    if not n:
        return np.zeros(0, dtype=np.float64)
    total = np.cumsum(x, dtype=np.float64)
    starts = np.flatnonzero(np.r_[True, qs[1:] != qs[:-1]])
    before = np.r_[0.0, total][starts]
    return total - np.repeat(before, np.diff(np.r_[starts, n]))


def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` where ``den > 0``, else 0."""
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


def precision_at_rel(ctx: Context, rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For relevant rows: query, rank, precision at that rank (rows in rank order)."""
    key = ("prec", rel)
    if key not in ctx._cache:
        idx = np.flatnonzero(ctx.relevant(rel))
        qs, ranks = ctx.q[idx], ctx.rank[idx]
        ctx._cache[key] = (qs, ranks, running(qs) / ranks)
    return ctx._cache[key]


def gains(grades: np.ndarray, m: Measure) -> np.ndarray:
    """Gain of each grade: the grade (``exp``: ``2**g - 1``), levels overridden by ``gains=``.

    Negative grades (unjudged, not in the pool) gain nothing.
    """
    g = np.where(grades > 0, grades, 0).astype(np.float64)
    if m.gain == "exp":
        g = np.exp2(g) - 1.0
    for item in filter(None, m.param("gains").split(",")) if "gains" in _params(m) else ():
        level, _, value = item.partition(":")
        g = np.where(grades == int(level), float(value), g)
    return g


def _params(m: Measure) -> dict[str, str]:
    return dict(m.params)


def ideal(ctx: Context, m: Measure) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Positive ideal gains per query, best first: (query, position, gain)."""
    key = ("ideal", m.gain, m.param("gains") if "gains" in _params(m) else "")
    if key not in ctx._cache:
        judged = ctx.qrels_grade >= 0
        qs, g = ctx.qrels_q[judged], gains(ctx.qrels_grade[judged], m)
        keep = g > 0
        qs, g = qs[keep], g[keep]
        order = np.lexsort((-g, qs))
        qs, g = qs[order], g[order]
        ctx._cache[key] = (qs, running(qs), g)
    return ctx._cache[key]


def _ideal_dcg(ctx: Context, m: Measure, cutoff: int | None) -> np.ndarray:
    qs, pos, g = ideal(ctx, m)
    if cutoff is not None:
        keep = pos <= cutoff
        qs, g, pos = qs[keep], g[keep], pos[keep]
    return np.bincount(qs, weights=g / np.log2(pos + 1.0), minlength=ctx.nq)


def ndcg(ctx: Context, m: Measure) -> np.ndarray:
    """nDCG (trec_eval ndcg / ndcg_cut)."""
    mask = ctx.grade >= 0
    if m.cutoff is not None:
        mask &= ctx.rank <= m.cutoff
    w = gains(ctx.grade[mask], m) / np.log2(ctx.rank[mask] + 1.0)
    dcg = np.bincount(ctx.q[mask], weights=w, minlength=ctx.nq)
    return ratio(dcg, _ideal_dcg(ctx, m, m.cutoff))


def ap(ctx: Context, m: Measure) -> np.ndarray:
    """Average precision (trec_eval map / map_cut)."""
    qs, ranks, prec = precision_at_rel(ctx, m.rel)
    if m.cutoff is not None:
        keep = ranks <= m.cutoff
        qs, prec = qs[keep], prec[keep]
    total = np.bincount(qs, weights=prec, minlength=ctx.nq)
    return ratio(total, ctx.num_rel(m.rel))


def rr(ctx: Context, m: Measure) -> np.ndarray:
    """Reciprocal rank (trec_eval recip_rank)."""
    first = first_rank(ctx, m.rel).astype(np.float64)
    if m.cutoff is not None:
        first = np.where(first <= m.cutoff, first, 0.0)
    return ratio(np.ones(ctx.nq), first)


def rprec(ctx: Context, m: Measure) -> np.ndarray:
    """Precision at R."""
    num_rel = ctx.num_rel(m.rel)
    mask = ctx.relevant(m.rel) & (ctx.rank <= num_rel[ctx.q])
    return ratio(ctx.count(mask), num_rel)


def hits_at(ctx: Context, rel: int, cutoff: int) -> np.ndarray:
    """Relevant rows in the top ``cutoff`` per query."""
    return ctx.count(ctx.relevant(rel) & (ctx.rank <= cutoff))


def precision(ctx: Context, m: Measure) -> np.ndarray:
    """P@k."""
    return hits_at(ctx, m.rel, m.cutoff) / float(m.cutoff)


def recall(ctx: Context, m: Measure) -> np.ndarray:
    """R@k."""
    return ratio(hits_at(ctx, m.rel, m.cutoff), ctx.num_rel(m.rel))


def success(ctx: Context, m: Measure) -> np.ndarray:
    """Success@k."""
    return (hits_at(ctx, m.rel, m.cutoff) > 0).astype(np.float64)


def hits(ctx: Context, m: Measure) -> np.ndarray:
    """Relevant rows in the top k, all rows without a cutoff (ranx hits)."""
    if m.cutoff is None:
        return ctx.count(ctx.relevant(m.rel))
    return hits_at(ctx, m.rel, m.cutoff)


def f1(ctx: Context, m: Measure) -> np.ndarray:
    """ranx f1@k: 2 hits@k / (k + R), k the number retrieved without a cutoff."""
    depth = ctx.count() if m.cutoff is None else np.full(ctx.nq, float(m.cutoff))
    return ratio(2.0 * hits(ctx, m), depth + ctx.num_rel(m.rel))


def hole(ctx: Context, m: Measure) -> np.ndarray:
    """BEIR Hole@k: rows in the top k whose doc no judgment names, over k."""
    if ctx.annotated is None:
        raise ValueError("Hole@k needs the annotated rows (Context.annotated)")
    q, rank = ctx.annotated
    named = np.bincount(q[rank <= m.cutoff], minlength=ctx.nq).astype(np.float64)
    return (np.minimum(ctx.count(), float(m.cutoff)) - named) / float(m.cutoff)


def relative_p(ctx: Context, m: Measure) -> np.ndarray:
    """Relative precision at k."""
    num_rel = ctx.num_rel(m.rel)
    return ratio(hits_at(ctx, m.rel, m.cutoff), np.minimum(float(m.cutoff), num_rel))


def judged(ctx: Context, m: Measure) -> np.ndarray:
    """Judged@k (ir_measures)."""
    top = ctx.rank <= m.cutoff
    count = ctx.count(top & (ctx.grade >= 0))
    return ratio(count, np.minimum(ctx.count(), float(m.cutoff)))


def unjudged(ctx: Context, m: Measure) -> np.ndarray:
    """trec_eval unj@k."""
    judged_top = ctx.count((ctx.rank <= m.cutoff) & (ctx.grade >= 0))
    return (np.minimum(ctx.count(), float(m.cutoff)) - judged_top) / float(m.cutoff)


def num_q(ctx: Context, m: Measure) -> np.ndarray:
    """1 per query."""
    return np.ones(ctx.nq)


def num_ret(ctx: Context, m: Measure) -> np.ndarray:
    """Retrieved documents."""
    return ctx.count()


def num_rel(ctx: Context, m: Measure) -> np.ndarray:
    """Relevant judged documents."""
    return ctx.num_rel(m.rel).copy()


def num_rel_ret(ctx: Context, m: Measure) -> np.ndarray:
    """Relevant retrieved documents."""
    return ctx.count(ctx.relevant(m.rel))


def num_nonrel_judged_ret(ctx: Context, m: Measure) -> np.ndarray:
    """Retrieved documents judged non-relevant."""
    return ctx.count((ctx.grade >= 0) & (ctx.grade < m.rel))


def set_p(ctx: Context, m: Measure) -> np.ndarray:
    """NumRelRet / NumRet."""
    return ratio(num_rel_ret(ctx, m), ctx.count())


def set_r(ctx: Context, m: Measure) -> np.ndarray:
    """NumRelRet / NumRel."""
    return ratio(num_rel_ret(ctx, m), ctx.num_rel(m.rel))


def set_rel_p(ctx: Context, m: Measure) -> np.ndarray:
    """NumRelRet / min(NumRet, NumRel)."""
    return ratio(num_rel_ret(ctx, m), np.minimum(ctx.count(), ctx.num_rel(m.rel)))


def set_ap(ctx: Context, m: Measure) -> np.ndarray:
    """SetP * SetR, computed as trec_eval's set_map: NumRelRet^2 / (NumRet * NumRel).

    The product of the two ratios can differ from it in the last bit.
    """
    rr_ = num_rel_ret(ctx, m)
    return ratio(rr_ * rr_, ctx.count() * ctx.num_rel(m.rel))


def set_f(ctx: Context, m: Measure) -> np.ndarray:
    """F-measure of the retrieved set with weight ``beta``."""
    p, r, beta = set_p(ctx, m), set_r(ctx, m), float(m.param("beta"))
    return ratio((beta + 1.0) * p * r, beta * p + r)


def utility(ctx: Context, m: Measure) -> np.ndarray:
    """Linear utility of the retrieved set."""
    a, b, c, _ = (float(v) for v in m.param("coef").split(","))
    rr_, n, big_r = num_rel_ret(ctx, m), ctx.count(), ctx.num_rel(m.rel)
    return a * rr_ + b * (n - rr_) + c * (big_r - rr_)
