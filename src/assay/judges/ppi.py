"""Prediction-powered inference for a mean (PPI++ with a tuned lambda), in numpy.

People label ``n`` items (``y``); a model labels the same items (``yhat``)
and ``N`` more (``yhat_unlabeled``). The estimate

    theta = mean(lam * yhat_unlabeled) + mean(y - lam * yhat)

is unbiased for any ``lam``; ``lam`` is tuned to minimise its variance,
``lam = cov(y, yhat) / ((1 + n / N) * var(yhat over all n + N items))``,
clipped to [0, 1] (0 gives back the people-only mean, 1 plain PPI). The
interval is the normal one with the two independent variance terms
(Angelopoulos, Duchi and Zrnic, "PPI++: Efficient Prediction-Powered
Inference", 2023). Tests check it against ``ppi_py.ppi_mean_ci``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Interval:
    """A point estimate with a two-sided confidence interval."""

    estimate: float
    low: float
    high: float
    n: int
    lam: float | None = None

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low


def tuned_lambda(y: Any, yhat: Any, yhat_unlabeled: Any) -> float:
    """The variance-minimising power-tuning parameter, clipped to [0, 1]."""
    import numpy as np

    y, yhat, yu = (np.asarray(a, dtype=np.float64) for a in (y, yhat, yhat_unlabeled))
    n, big_n = len(y), len(yu)
    covariance = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    pooled = np.concatenate([yhat, yu])
    variance = float(np.var(pooled, ddof=1)) if len(pooled) > 1 else 0.0
    if variance == 0.0:
        return 0.0
    return float(np.clip(covariance / ((1 + n / big_n) * variance), 0.0, 1.0))


def ppi_mean_interval(
    y: Any, yhat: Any, yhat_unlabeled: Any, *, alpha: float = 0.05, lam: float | None = None
) -> Interval:
    """PPI++ estimate and ``1 - alpha`` interval of the mean of ``y``."""
    import numpy as np
    from scipy.stats import norm

    y, yhat, yu = (np.asarray(a, dtype=np.float64) for a in (y, yhat, yhat_unlabeled))
    if len(y) != len(yhat):
        raise ValueError("y and yhat must be paired (same length)")
    if len(y) < 2 or len(yu) < 1:
        raise ValueError("need at least 2 labelled and 1 unlabelled items")
    if lam is None:
        lam = tuned_lambda(y, yhat, yu)
    estimate = float(np.mean(lam * yu) + np.mean(y - lam * yhat))
    se = float(np.sqrt(np.var(lam * yu) / len(yu) + np.var(y - lam * yhat) / len(y)))
    z = float(norm.ppf(1 - alpha / 2))
    return Interval(estimate, estimate - z * se, estimate + z * se, len(y), float(lam))


def classical_mean_interval(y: Any, *, alpha: float = 0.05) -> Interval:
    """The normal interval of the mean of the labelled items alone."""
    import numpy as np
    from scipy.stats import norm

    y = np.asarray(y, dtype=np.float64)
    if len(y) < 2:
        raise ValueError("need at least 2 labelled items")
    se = float(np.std(y) / np.sqrt(len(y)))
    z = float(norm.ppf(1 - alpha / 2))
    m = float(np.mean(y))
    return Interval(m, m - z * se, m + z * se, len(y))
