"""trec_eval's preference measures (``-m all_prefs`` with ``-R prefs`` or ``-R qrels_prefs``).

For one query, every judged document gets an internal rank: the judged
documents retrieved (within ``-M``) take 0, 1, ... in ranking order, the
judged documents not retrieved follow in doc id order. A preference ``A > B``
of a judgment group is *fulfilled* when A ranks above B; counted among the
*retrieved* when both were retrieved, *implied* when one was, *not occurring*
when neither was. A group with one sub-group is a set of equivalence classes
(one per level); a group with several sub-groups is a preference matrix closed
under transitivity. :func:`query_counts` counts each group's preferences as
trec_eval's ``form_prefs_counts`` does, and :func:`query_values` turns the
counts into the fourteen measures of ``all_prefs`` (names and docs in
:data:`assay.metrics.registry.PREFERENCE_MEASURES`), including trec_eval's
``*_Rnonrel`` recounts (non-relevant documents capped at R) as it writes them.
A per-query loop over groups; the pair counts are numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from assay.core.errors import InputError, Problem, UsageError

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.prefs import Pref, Preferences
    from assay.runs.models import Run

#: the document trec_eval -c ranks for a judged query absent from the run
PLACEHOLDER_DOC = "ceci_nest_pas_un_docno"


@dataclass
class Group:
    """Counts of one judgment group (trec_eval's ``JG``) and what the recounts need."""

    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0
    rel: int = 0
    rel_ret: int = 0
    nonrel: int = 0
    nonrel_ret: int = 0
    ecs: list[Any] = field(default_factory=list)  # EC form: internal ranks per level, sorted
    matrix: Any = None  # matrix form: closed preference matrix (bool)
    levels: Any = None  # matrix form: level per internal rank (-1: not in the group)


@dataclass(frozen=True)
class QueryCounts:
    """Groups of one query, the pair counts over groups and the retrieved boundary."""

    groups: list[Group]
    pairs: Any  # (k, 3) int: preferred doc's rank, other doc's rank, groups preferring so
    num_judged: int
    num_judged_ret: int


def internal_ranks(prefs: tuple[Pref, ...], ranking: list[str]) -> tuple[dict[str, int], int]:
    """Internal rank of every judged doc and the number of judged docs retrieved."""
    judged = {p.doc_id for p in prefs}
    ranks: dict[str, int] = {}
    for doc in ranking:
        if doc in judged and doc not in ranks:
            ranks[doc] = len(ranks)
    retrieved = len(ranks)
    for doc in sorted(judged - set(ranks)):
        ranks[doc] = len(ranks)
    return ranks, retrieved


def query_counts(qid: str, prefs: tuple[Pref, ...], ranking: list[str], path: str) -> QueryCounts:
    """trec_eval's preference counts of one query for the ranked doc ids ``ranking``."""
    ranks, njr = internal_ranks(prefs, ranking)
    rows = sorted(prefs, key=lambda p: (p.jg, p.jsg, -p.level, ranks[p.doc_id]))
    groups: list[Group] = []
    keys: list[Any] = []
    start = 0
    for end in range(1, len(rows) + 1):
        if end == len(rows) or rows[end].jg != rows[start].jg:
            block = rows[start:end]
            if len({p.jsg for p in block}) > 1:
                group, pair_keys = _matrix_group(qid, block, ranks, njr, path)
            else:
                group, pair_keys = _ec_group(block, ranks, njr)
            groups.append(group)
            keys.append(pair_keys)
            start = end
    n = len(ranks)
    flat = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    uniq, counts = np.unique(flat, return_counts=True)
    pairs = np.stack([uniq // n, uniq % n, counts], axis=1) if n else np.zeros((0, 3), np.int64)
    return QueryCounts(groups, pairs, n, njr)


def _ec_group(block: list[Pref], ranks: dict[str, int], njr: int) -> tuple[Group, Any]:
    """A one-sub-group judgment group: equivalence classes by level, all pairs between them."""
    g = Group()
    levels: list[float] = []
    for p in block:  # sorted by level (descending), then rank
        if not levels or p.level != levels[-1]:
            levels.append(p.level)
            g.ecs.append([])
        g.ecs[-1].append(ranks[p.doc_id])
    g.ecs = [np.asarray(e, dtype=np.int64) for e in g.ecs]
    n = max(ranks.values()) + 1
    keys = []
    for i, ec in enumerate(g.ecs):
        retrieved = int(np.count_nonzero(ec < njr))
        if levels[i] > 0.0:
            g.rel_ret, g.rel = g.rel_ret + retrieved, g.rel + len(ec)
        else:
            g.nonrel_ret, g.nonrel = g.nonrel_ret + retrieved, g.nonrel + len(ec)
        for lower in g.ecs[i + 1 :]:
            a, b = np.meshgrid(ec, lower, indexing="ij")
            a, b = a.ravel(), b.ravel()
            keys.append(a * n + b)
            above = a < b
            g.ful_ret += int(np.count_nonzero(above & (b < njr)))
            g.ful_imp += int(np.count_nonzero(above & (b >= njr) & (a < njr)))
            g.poss_ret += int(np.count_nonzero(~above & (a < njr)))
            g.poss_imp += int(np.count_nonzero(~above & (a >= njr) & (b < njr)))
            g.notoccur += int(np.count_nonzero((a >= njr) & (b >= njr)))
    g.poss_ret += g.ful_ret
    g.poss_imp += g.ful_imp
    return g, np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)


def _matrix_group(
    qid: str, block: list[Pref], ranks: dict[str, int], njr: int, path: str
) -> tuple[Group, Any]:
    """A judgment group of several sub-groups: a preference matrix closed under transitivity."""
    n = max(ranks.values()) + 1
    m = np.zeros((n, n), dtype=bool)
    levels = np.full(n, -1.0)
    for p in block:  # sorted by sub-group, level (descending), rank
        r, old = ranks[p.doc_id], levels[ranks[p.doc_id]]
        if (old > 0.0 and p.level == 0.0) or (old == 0.0 and p.level > 0.0):
            raise _conflict(path, p, f"document {p.doc_id!r} is both non-relevant (0) and "
                            f"relevant in query {qid!r}, group {p.jg!r}")  # fmt: skip
        levels[r] = p.level
    start = 0
    for end in range(1, len(block) + 1):
        if end == len(block) or block[end].jsg != block[start].jsg:
            sub = block[start:end]
            r = np.array([ranks[p.doc_id] for p in sub])
            lv = np.array([p.level for p in sub])
            m[np.ix_(r, r)] |= lv[:, None] > lv[None, :]
            start = end
    for k in range(n):  # transitive closure (Warshall)
        m |= m[:, k : k + 1] & m[k : k + 1, :]
    np.fill_diagonal(m, False)
    if (m & m.T).any():
        i, j = (int(x) for x in np.argwhere(m & m.T)[0])
        docs = {v: d for d, v in ranks.items()}
        raise _conflict(path, block[0], f"query {qid!r}, group {block[0].jg!r}: documents "
                        f"{docs[i]!r} and {docs[j]!r} are each preferred to the other")  # fmt: skip
    g = Group(matrix=m, levels=levels)
    i, j = np.nonzero(m)
    ret_i, ret_j = i < njr, j < njr
    g.ful_ret = int(np.count_nonzero(ret_i & ret_j & (j > i)))
    g.poss_ret = int(np.count_nonzero(ret_i & ret_j))
    g.ful_imp = int(np.count_nonzero(ret_i & ~ret_j))
    g.poss_imp = g.ful_imp + int(np.count_nonzero(~ret_i & ret_j))
    g.notoccur = int(np.count_nonzero(~ret_i & ~ret_j))
    g.rel, g.rel_ret = int(np.sum(levels > 0)), int(np.sum(levels[:njr] > 0))
    g.nonrel, g.nonrel_ret = int(np.sum(levels == 0)), int(np.sum(levels[:njr] == 0))
    return g, i * n + j


def _conflict(path: str, p: Pref, message: str) -> InputError:
    hint = "a judgment group must be consistent; put disagreeing users in different groups"
    return InputError([Problem(path, p.line, message, "rel_level", hint)])


def _ratio(num: float, den: float) -> float:
    """C's double division: 0/0 is NaN (it then poisons trec_eval's sums)."""
    return num / den if den else (np.nan if num == 0 else np.inf)


def _rnonrel(g: Group, njr: int, retrieved_only: bool) -> float:
    """One group's ``prefs_avgjg_Rnonrel`` (``_ret``) ratio: non-relevant docs capped at R."""
    if retrieved_only:
        big_r, big_n = g.rel_ret, g.nonrel_ret
        ful, poss = g.ful_ret, g.poss_ret
    else:
        big_r, big_n = g.rel, g.nonrel
        ful, poss = g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.notoccur
    if big_r >= big_n:  # add R - N fulfilled non-relevant docs per relevant doc
        return _ratio(ful + g.rel_ret * (big_r - big_n), poss + g.rel * (big_r - big_n))
    if g.matrix is None:
        ful, poss = _recount_ecs(g, njr, retrieved_only)
    else:
        ful, poss = _recount_matrix(g, njr, retrieved_only)
    return _ratio(ful, poss)


def _recount_ecs(g: Group, njr: int, retrieved_only: bool) -> tuple[int, int]:
    """trec_eval's recount with the last class cut to its first R docs (as trec_eval loops)."""
    cap = g.rel_ret if retrieved_only else g.rel
    ecs = [e[e < njr] for e in g.ecs] if retrieved_only else g.ecs
    capped = g.ecs[-1][:cap]
    capped = capped[capped < njr] if retrieved_only else capped
    ful = poss = 0
    pairs = [(i, j) for i in range(len(ecs)) for j in range(i + 1, len(ecs) - 1)]
    for a_ranks, b_ranks in [(ecs[i], ecs[j]) for i, j in pairs] + [(e, capped) for e in ecs]:
        a, b = np.meshgrid(a_ranks, b_ranks, indexing="ij")
        won = (a < b) if retrieved_only else (a < b) & (a < njr)
        ful += int(np.count_nonzero(won))
        poss += int(won.size - np.count_nonzero(won))
    return ful, poss + ful


def _recount_matrix(g: Group, njr: int, retrieved_only: bool) -> tuple[int, int]:
    """The matrix recount: non-relevant docs after the (R + 1)-th one leave the matrix."""
    levels = g.levels
    scan = levels[:njr] if retrieved_only else levels
    nonrel_seen = np.cumsum(scan == 0.0)
    hit = np.nonzero(nonrel_seen == g.rel + 1)[0]
    first = int(hit[0]) if hit.size else len(scan)
    idx = np.arange(len(levels))
    keep = ~((idx >= first) & (levels == 0.0))
    i, j = np.nonzero(g.matrix & keep[:, None] & keep[None, :])
    if retrieved_only:
        inside = (i < njr) & (j < njr)
        i, j = i[inside], j[inside]
    ful = int(np.count_nonzero((i < njr) & (j > i)))
    return ful, len(i)


def _pair_mean(c: QueryCounts, scope: str) -> float:
    """``prefs_pair``: mean over doc pairs of the share of groups whose preference is met."""
    n, njr = c.num_judged, c.num_judged_ret
    if not len(c.pairs):
        return 0.0
    lo = np.minimum(c.pairs[:, 0], c.pairs[:, 1])
    hi = np.maximum(c.pairs[:, 0], c.pairs[:, 1])
    key = lo * n + hi
    forward = np.where(c.pairs[:, 0] == lo, c.pairs[:, 2], 0)
    uniq, inverse = np.unique(key, return_inverse=True)
    fwd = np.bincount(inverse, weights=forward).astype(np.int64)
    total = np.bincount(inverse, weights=c.pairs[:, 2]).astype(np.int64)
    i, j = uniq // n, uniq % n
    inside = {"all": np.ones(len(i), bool), "ret": j < njr, "imp": i < njr}[scope]
    i, j, share = i[inside], j[inside], (fwd / total)[inside]
    if not len(i):
        return 0.0
    # trec_eval adds pairs both retrieved first, then retrieved-unretrieved, row by row
    order = np.lexsort((j, i, j >= njr))
    added = share[order][i[order] < njr]
    total_share = float(np.cumsum(added)[-1]) if added.size else 0.0
    return total_share / len(i)


def _avg_groups(ratios: list[float], num_groups: int) -> float:
    """trec_eval's average over groups: the sum (sequential; NaN poisons it) if positive."""
    total = 0.0
    for r in ratios:
        total += r
    return total / num_groups if total > 0.0 else 0.0


def query_values(c: QueryCounts) -> dict[str, float]:
    """The fourteen ``all_prefs`` values of one query from its counts."""
    gs, njr = c.groups, c.num_judged_ret
    ful_ret = sum(g.ful_ret for g in gs)
    ful_imp = sum(g.ful_imp for g in gs)
    poss_ret = sum(g.poss_ret for g in gs)
    poss_imp = sum(g.poss_imp for g in gs)
    poss = poss_ret + poss_imp + sum(g.notoccur for g in gs)
    ng = len(gs)

    def simple(num: int, den: int) -> float:
        return num / den if den else 0.0

    return {
        "prefs_num_prefs_poss": float(poss),
        "prefs_num_prefs_ful": float(ful_ret + ful_imp),
        "prefs_num_prefs_ful_ret": float(ful_ret),
        "prefs_simp": simple(ful_ret + ful_imp, poss),
        "prefs_pair": _pair_mean(c, "all"),
        "prefs_avgjg": _avg_groups(
            [simple(g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.notoccur) for g in gs], ng
        ),
        "prefs_avgjg_Rnonrel": _avg_groups([_rnonrel(g, njr, False) for g in gs], ng),
        "prefs_simp_ret": simple(ful_ret, poss_ret),
        "prefs_pair_ret": _pair_mean(c, "ret"),
        "prefs_avgjg_ret": _avg_groups([simple(g.ful_ret, g.poss_ret) for g in gs], ng),
        "prefs_avgjg_Rnonrel_ret": _avg_groups([_rnonrel(g, njr, True) for g in gs], ng),
        "prefs_simp_imp": simple(ful_ret + ful_imp, poss_ret + poss_imp),
        "prefs_pair_imp": _pair_mean(c, "imp"),
        "prefs_avgjg_imp": _avg_groups(
            [simple(g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp) for g in gs], ng
        ),
    }


def rankings(run: Run, depth: int | None = None) -> dict[str, list[str]]:
    """Each query's doc ids as trec_eval ranks them for preferences, top ``depth``.

    Score descending, ties by doc id *ascending*: trec_eval's preference code
    breaks ties the other way round from its qrels code.
    """
    frame = run.frame[["query_id", "doc_id", "score"]].astype({"query_id": str, "doc_id": str})
    frame = frame.sort_values(["score", "doc_id"], ascending=[False, True], kind="mergesort")
    out: dict[str, list[str]] = {}
    for q, docs in frame.groupby("query_id", sort=False)["doc_id"]:
        out[str(q)] = docs.tolist()[:depth]
    return out


def score_prefs(
    prefs: Preferences, run: Run, *, complete: bool = False, depth: int | None = None
) -> tuple[list[str], dict[str, Any]]:
    """Per-query ``all_prefs`` values of ``run``: (sorted query ids, name -> values).

    Queries judged but absent from the run are left out, or (``complete``,
    trec_eval -c) ranked as trec_eval's one placeholder document.
    """

    ranked = rankings(run, depth)
    qids, rows = [], []
    for qid, judged in prefs.queries.items():
        ranking = ranked.get(qid)
        if ranking is None and complete:
            ranking = [PLACEHOLDER_DOC]
        if ranking is None:
            continue
        qids.append(qid)
        rows.append(query_values(query_counts(qid, judged, ranking, prefs.path)))
    if not qids:
        raise UsageError("no queries with both results and judgments")
    names = list(rows[0])
    return qids, {n: np.array([r[n] for r in rows], dtype=np.float64) for n in names}
