"""The summary figures of a paired comparison: means, or totals for counts.

Every measure is summarised by its mean over the paired queries, except counts
(``NumRet``, ``NumRel``, ``NumRelRet``, ``NumQ``: :func:`assay.policies.is_count`),
which sum, as trec_eval's summary line does. The test is on the same per-query
differences either way: a total's difference and interval are ``n`` times the
mean's (p-values and effect sizes do not change).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.policies import is_count

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
