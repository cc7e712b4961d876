"""Click models in numpy: CTR by position, COEC, PBM and DBN fitted by EM.

Every model reads the reduced statistics of a log
(:class:`~assay.behavior.stats.ClickStats`, or a click table) and returns a
:class:`Fit`: one estimate per (query, document) pair with a confidence
interval, on the model's own scale:

* ``ctr``: clicks / impressions; Wilson interval.
* ``coec``: clicks over expected clicks, where a pair's expected clicks sum the
  click-through rate of the rank of each of its impressions. 1 means "clicked
  as often as an average result at the same ranks". Bounded at ``cap``; the
  interval is the exact (Garwood) Poisson interval of the clicks over the
  expected clicks.
* ``pbm``: position-based model, P(click) = attractiveness(q, d) x
  examination(rank), fitted by EM with examination at the top rank fixed to 1
  (without it only the products are identifiable). Estimate: attractiveness;
  interval: Wilson around the estimate with the examination-weighted impressions
  as trials.
* ``dbn``: dynamic Bayesian network (Chapelle and Zhang, 2009): users scan down
  the list, examine a result with probability 1 at the top, click it when
  attracted (a), are satisfied after a click with probability s, and otherwise
  go on with probability ``gamma``. EM with exact posteriors (a forward and a
  backward pass over each result list). Estimate: relevance a x s; interval:
  the product of the Wilson bounds of a (expected examinations as trials) and
  of s (clicks as trials). Clicks are binary here (any positive signal).

PBM accepts fractional clicks (weighted actions) as soft observations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from assay.behavior.stats import ClickStats, as_stats
from assay.behavior.table import ClickTable
from assay.core.errors import UsageError

MODELS = ("ctr", "coec", "pbm", "dbn")
_EPS = 1e-9


@dataclass(frozen=True)
class Fit:
    """Per-pair estimates of one click model with their confidence interval."""

    model: str
    estimate: np.ndarray
    low: np.ndarray
    high: np.ndarray
    params: dict[str, Any] = field(default_factory=dict)
    iterations: int = 0
    converged: bool = True
    loglik: list[float] = field(default_factory=list)


def wilson(
    successes: np.ndarray, trials: np.ndarray, z: float = 1.96
) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval of ``successes / trials`` (vectorised; (0, 1) when no trials)."""
    k = np.asarray(successes, dtype=np.float64)
    n = np.asarray(trials, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.where(n > 0, k / n, 0.0)
        denom = 1 + z**2 / n
        centre = (p + z**2 / (2 * n)) / denom
        half = z * np.sqrt(p * (1 - p) / n + z**2 / (4 * n**2)) / denom
    low = np.where(n > 0, np.clip(centre - half, 0, 1), 0.0)
    high = np.where(n > 0, np.clip(centre + half, 0, 1), 1.0)
    return low, high


def ctr_by_position(data: ClickTable | ClickStats) -> tuple[np.ndarray, np.ndarray]:
    """(click-through rate, impressions) at every rank, over all pairs."""
    st = as_stats(data)
    impressions = np.bincount(st.cell_rank, st.cell_n, st.width)
    clicks = np.bincount(st.cell_rank, st.cell_c, st.width)
    with np.errstate(divide="ignore", invalid="ignore"):
        ctr = np.where(impressions > 0, clicks / impressions, 0.0)
    return ctr, impressions.astype(np.int64)


def expected_clicks(data: ClickTable | ClickStats) -> np.ndarray:
    """Per pair, the clicks an average result would get at the ranks the pair was shown."""
    st = as_stats(data)
    ctr, _ = ctr_by_position(st)
    return np.bincount(st.cell_pair, st.cell_n * ctr[st.cell_rank], len(st.pairs))


def fit_ctr(data: ClickTable | ClickStats, z: float = 1.96) -> Fit:
    """Clicks over impressions per pair."""
    st = as_stats(data)
    n = st.pair_impressions()
    c = st.pair_clicks()
    low, high = wilson(c, n, z)
    est = np.where(n > 0, c / np.maximum(n, 1), 0.0)
    return Fit("ctr", est, low, high, {"ctr_by_rank": ctr_by_position(st)[0].tolist()})


def fit_coec(data: ClickTable | ClickStats, cap: float = 4.0, z: float = 1.96) -> Fit:
    """Clicks over expected clicks, bounded at ``cap``; exact Poisson interval."""
    from scipy.stats import chi2, norm

    if cap <= 0:
        raise UsageError(f"the COEC cap must be > 0, got {cap}")
    st = as_stats(data)
    c = st.pair_clicks()
    e = expected_clicks(st)
    alpha = 2 * (1 - norm.cdf(z))
    with np.errstate(divide="ignore", invalid="ignore"):
        est = np.where(e > 0, c / e, 0.0)
        low = np.where((e > 0) & (c > 0), chi2.ppf(alpha / 2, 2 * c) / 2 / e, 0.0)
        high = np.where(e > 0, chi2.ppf(1 - alpha / 2, 2 * c + 2) / 2 / e, cap)
    clip = np.minimum
    params = {"cap": cap, "ctr_by_rank": ctr_by_position(st)[0].tolist()}
    return Fit("coec", clip(est, cap), clip(np.nan_to_num(low), cap), clip(high, cap), params)


def fit_pbm(
    data: ClickTable | ClickStats, *, max_iter: int = 500, tol: float = 1e-9, z: float = 1.96
) -> Fit:
    """Position-based model by EM; examination at rank 0 fixed to 1.

    The posteriors depend only on (pair, rank, click), so the E-step runs on the
    impression and click sums of each (pair, rank) cell (the reduced statistics of
    :mod:`assay.behavior.stats`), not on every impression.
    """
    st = as_stats(data)
    n_pairs, n_ranks = len(st.pairs), st.width
    p, r = st.cell_pair, st.cell_rank
    n = st.cell_n.astype(np.float64)
    c = st.cell_c
    per_pair = np.bincount(p, n, n_pairs)
    per_rank = np.bincount(r, n, n_ranks)
    alpha = np.full(n_pairs, 0.5)
    gamma = np.full(n_ranks, 0.5)
    gamma[0] = 1.0
    history: list[float] = []
    converged = False
    for _ in range(max_iter):
        a, g = alpha[p], gamma[r]
        ag = np.clip(a * g, _EPS, 1 - _EPS)
        history.append(float(np.sum(c * np.log(ag) + (n - c) * np.log1p(-ag))))
        post_a = c + (n - c) * a * (1 - g) / (1 - ag)
        post_g = c + (n - c) * g * (1 - a) / (1 - ag)
        new_alpha = np.clip(
            _ratio(np.bincount(p, post_a, n_pairs), per_pair, alpha), _EPS, 1 - _EPS
        )
        new_gamma = np.clip(_ratio(np.bincount(r, post_g, n_ranks), per_rank, gamma), _EPS, 1.0)
        new_gamma[0] = 1.0
        delta = max(np.max(np.abs(new_alpha - alpha), initial=0), np.max(np.abs(new_gamma - gamma)))
        alpha, gamma = new_alpha, new_gamma
        if delta < 1e-6 or _flat(history, tol):
            converged = True
            break
    trials = np.bincount(p, n * gamma[r], n_pairs)
    low, high = wilson(alpha * trials, trials, z)
    params = {"examination_by_rank": gamma.tolist()}
    return Fit("pbm", alpha, low, high, params, len(history), converged, history)


def _ratio(num: np.ndarray, den: np.ndarray, previous: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / den, previous)


def _flat(history: list[float], tol: float) -> bool:
    """The log-likelihood stopped moving (relative change below ``tol``)."""
    return len(history) > 1 and abs(history[-1] - history[-2]) <= tol * max(1.0, abs(history[-1]))
