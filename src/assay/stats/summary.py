"""The summary figures of a paired comparison: means, or totals for counts.

Every measure is summarised by its mean over the paired queries, except counts
(``NumRet``, ``NumRel``, ``NumRelRet``, ``NumQ``: :func:`assay.metrics.measures.is_count`),
which sum, as trec_eval's summary line does. The test is on the same per-query
differences either way: a total's difference and interval are ``n`` times the
mean's (p-values and effect sizes do not change).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.metrics.measures import is_count
from assay.stats.verdict import verdict

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np


def summary_figures(
    metric: str,
    baseline: np.ndarray,
    candidate: np.ndarray,
    delta: float,
    low: float,
    high: float,
) -> dict[str, float]:
    """``baseline_mean``, ``candidate_mean``, ``delta``, ``ci_low``, ``ci_high`` of one row.

    ``baseline`` and ``candidate`` are the paired per-query values; ``delta``,
    ``low`` and ``high`` the mean difference and its interval.
    """
    if is_count(metric):
        n = float(baseline.size)
        base, cand = float(baseline.sum()), float(candidate.sum())
        return {
            "baseline_mean": base,
            "candidate_mean": cand,
            "delta": cand - base,
            "ci_low": float(low) * n,
            "ci_high": float(high) * n,
        }
    return {
        "baseline_mean": float(baseline.mean()),
        "candidate_mean": float(candidate.mean()),
        "delta": float(delta),
        "ci_low": float(low),
        "ci_high": float(high),
    }


def paired_row(
    metric: str,
    baseline: np.ndarray,
    candidate: np.ndarray,
    stats: dict[str, Any],
    p_adjusted: Any,
    row: int,
    alpha: float,
) -> dict[str, Any]:
    """The fields every paired comparison row has (a whole comparison's or a slice's).

    :func:`summary_figures` plus the p-values, effect size, verdict and the
    wins, losses and ties of row ``row`` of ``stats`` (the batched test's
    output) and ``p_adjusted`` (Holm).
    """

    figures = summary_figures(
        metric, baseline, candidate, stats["delta"][row], stats["low"][row], stats["high"][row]
    )
    p_adj = float(p_adjusted[row])
    return {
        **figures,
        "p_value": float(stats["p"][row]),
        "p_adjusted": p_adj,
        "effect_size": stats["effect"][row],
        "verdict": verdict(figures["delta"], p_adj, alpha),
        "wins": int(stats["wins"][row]),
        "losses": int(stats["losses"][row]),
        "ties": int(stats["ties"][row]),
    }
