"""How much two runs retrieve the same documents: RBO and Jaccard@k per query.

* **RBO** (rank-biased overlap, Webber, Moffat and Zobel 2010), extrapolated:
  with ``S`` the shorter list (length ``s``), ``L`` the longer (length ``l``)
  and ``X_d`` the documents the two share within depth ``d`` (``S`` whole past
  its end), ``RBO_ext = (1-p)/p * (sum_{d<=l} X_d/d p^d + sum_{s<d<=l} X_s (d-s)/(s d)
  p^d) + ((X_l - X_s)/l + X_s/s) p^l`` (their equation 32; equation 30 when the
  lengths are equal). ``p`` is the persistence: the weight of the top ``d``
  ranks is about ``1 - p^d``.
* **Jaccard@k**: ``|A_k ∩ B_k| / |A_k ∪ B_k|`` of the two top-k sets.

Two empty lists agree fully (1); one empty list shares nothing (0). Lists are
put in rank order by the scoring's tie rule first. The per-query work is whole
arrays (a merge on (query, doc) and per-query sums), no loop over documents.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assay.core.bounds import at_least, level
from assay.stats.models import Overlap

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from assay.runs.models import Run


def _ranks(run: Run, queries: list[str], ties: str) -> Any:
    """``q`` (index into ``queries``), ``doc_id`` and 1-based ``rank`` of the run's rows."""
    import pandas as pd

    frame = run.ranked(ties)  # type: ignore[arg-type]
    q = pd.Categorical(frame["query_id"].astype(str), categories=queries).codes
    out = pd.DataFrame({"q": q, "doc_id": frame["doc_id"].astype(str).to_numpy()})
    out = out[out["q"] >= 0]
    return out.assign(rank=out.groupby("q", sort=False).cumcount() + 1)


def overlap(
    a: Run, b: Run, queries: list[str], *, k: int = 10, p: float = 0.9, ties: str = "score"
) -> tuple[np.ndarray, np.ndarray]:
    """(RBO_ext, Jaccard@k) per query of ``queries`` between runs ``a`` and ``b``."""
    import numpy as np

    nq = len(queries)
    ra, rb = _ranks(a, queries, ties), _ranks(b, queries, ties)
    len_a = np.bincount(ra["q"], minlength=nq).astype(np.int64)
    len_b = np.bincount(rb["q"], minlength=nq).astype(np.int64)
    shared = ra.merge(rb, on=["q", "doc_id"], suffixes=("_a", "_b"))
    q = shared["q"].to_numpy(np.int64)
    rank_a, rank_b = shared["rank_a"].to_numpy(), shared["rank_b"].to_numpy()
    both_top = np.bincount(q[(rank_a <= k) & (rank_b <= k)], minlength=nq)
    union = np.minimum(len_a, k) + np.minimum(len_b, k) - both_top
    jaccard = np.where(union > 0, both_top / np.maximum(union, 1), 1.0)
    rbo = _rbo(q, np.maximum(rank_a, rank_b), len_a, len_b, p)
    return rbo, jaccard


def _rbo(q: np.ndarray, depth: np.ndarray, len_a: Any, len_b: Any, p: float) -> np.ndarray:
    """RBO_ext per query from the depth at which each shared document is in both lists."""
    import numpy as np

    s, long = np.minimum(len_a, len_b), np.maximum(len_a, len_b)
    nq = len(s)
    starts = np.cumsum(long) - long
    total = int(long.sum())
    if total == 0:  # every list empty: full agreement
        return np.ones(nq)
    counts = np.bincount(starts[q] + depth - 1, minlength=total).astype(np.float64)
    running = np.cumsum(counts)
    at_start = np.repeat(running[starts[long > 0]] - counts[starts[long > 0]], long[long > 0])
    x = running - at_start  # X_d, query by query
    owner = np.repeat(np.arange(nq), long)
    d = np.arange(total) - np.repeat(starts, long) + 1.0
    weight = p**d
    first = np.bincount(owner, weights=x / d * weight, minlength=nq)
    x_s = np.where(s > 0, x[np.clip(starts + s - 1, 0, total - 1)], 0.0)
    x_l = np.where(long > 0, x[np.clip(starts + long - 1, 0, total - 1)], 0.0)
    past = d > np.repeat(s, long)
    safe_s = np.maximum(s, 1).astype(np.float64)
    tail_terms = np.repeat(x_s / safe_s, long) * (d - np.repeat(s, long)) / d * weight
    second = np.bincount(owner[past], weights=tail_terms[past], minlength=nq)
    end = ((x_l - x_s) / np.maximum(long, 1) + x_s / safe_s) * p ** long.astype(np.float64)
    rbo = (1.0 - p) / p * (first + second) + end
    return np.where(s > 0, rbo, np.where(long > 0, 0.0, 1.0))


def candidate_overlaps(
    rankings: Sequence[Run | None] | None,
    order: list[int],
    names: list[str],
    queries: list[str],
    settings: tuple[int, float, str],
) -> list[Any]:
    """Each candidate's overlap with the baseline where both rankings are at hand.

    ``names`` are in compared order (baseline first), ``rankings`` in input
    order (``order`` maps one to the other); ``settings`` is ``(k, p, ties)``.
    """

    k, p, ties = settings
    at_least("overlap_k", k)
    level("rbo_p", p)
    if rankings is None:
        return []
    runs = [rankings[i] for i in order]
    base = runs[0]
    out = []
    for name, run in zip(names[1:], runs[1:], strict=True):
        if base is None or run is None:
            continue
        rbo, jaccard = overlap(base, run, queries, k=k, p=p, ties=ties)
        out.append(
            Overlap(
                candidate=name,
                baseline=names[0],
                k=k,
                p=p,
                rbo=float(rbo.mean()),
                jaccard=float(jaccard.mean()),
                query_ids=list(queries),
                rbo_per_query=rbo.tolist(),
                jaccard_per_query=jaccard.tolist(),
            )
        )
    return out
