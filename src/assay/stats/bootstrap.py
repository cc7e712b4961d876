"""Paired bootstrap: confidence intervals and a test for a mean difference.

Convention used everywhere in :mod:`assay.stats`: the difference is
**candidate minus baseline**, ``d = b - a`` per query, so a positive interval
means the candidate (``b``) scores higher than the baseline (``a``).

Intervals come from :func:`scipy.stats.bootstrap` (percentile or BCa), run on
all rows of a difference matrix at once (``axis=-1``, ``vectorized=True``) and
in batches so memory stays bounded; the generator is seeded, so the same
inputs and seed give the same interval.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.core.bounds import at_least, level
from assay.core.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

#: Elements (resamples x queries x rows) held in memory per batch.
_BATCH_ELEMENTS = 8_000_000

METHODS = ("percentile", "bca")


def _check(confidence: float, n_resamples: int, method: str) -> str:
    level("confidence", confidence)
    at_least("n_resamples", n_resamples)
    key = method.lower()
    if key not in METHODS:
        raise UsageError(f"unknown bootstrap method {method!r}; use one of {', '.join(METHODS)}")
    return key


def _as_pair(a: Any, b: Any) -> tuple[np.ndarray, np.ndarray]:
    import numpy as np

    x = np.asarray(a, dtype=float)
    y = np.asarray(b, dtype=float)
    if x.ndim != 1 or y.ndim != 1:
        raise UsageError("paired values must be one-dimensional arrays (one value per query)")
    if x.shape != y.shape:
        raise UsageError(
            f"paired arrays differ in length ({x.size} baseline vs {y.size} candidate values)"
        )
    if x.size == 0:
        raise UsageError("no paired values: the systems share no queries")
    if not (np.isfinite(x).all() and np.isfinite(y).all()):
        raise UsageError("paired values contain NaN or infinity")
    return x, y


def bootstrap_ci_rows(
    diffs: np.ndarray,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10000,
    method: str = "percentile",
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap CIs of the mean of each row of ``diffs`` (shape ``(rows, n)``).

    Returns ``(low, high)``, arrays of length ``rows``. Rows whose values are all
    equal (including ``n == 1``) get the degenerate interval ``(mean, mean)``;
    resampling cannot move their mean. The input is not modified.
    """
    import numpy as np
    from scipy import stats

    key = _check(confidence, n_resamples, method)
    d = np.asarray(diffs, dtype=float)
    if d.ndim != 2:
        raise UsageError("diffs must be a 2-D array (rows x queries)")
    rows, n = d.shape
    means = d.mean(axis=1) if n else np.full(rows, np.nan)
    low = means.copy()
    high = means.copy()
    if n == 0 or rows == 0:
        return low, high
    varying = np.ptp(d, axis=1) > 0
    if not varying.any():
        return low, high
    sub = d[varying]
    batch = max(1, _BATCH_ELEMENTS // max(1, sub.shape[0] * n))
    res = stats.bootstrap(
        (sub,),
        lambda x, axis: x.mean(axis=axis),
        n_resamples=n_resamples,
        batch=batch,
        vectorized=True,
        axis=-1,
        confidence_level=confidence,
        method="BCa" if key == "bca" else "percentile",
        rng=np.random.default_rng(seed),
    )
    low[varying] = np.asarray(res.confidence_interval.low, dtype=float)
    high[varying] = np.asarray(res.confidence_interval.high, dtype=float)
    return low, high


def paired_bootstrap_ci(
    a: Any,
    b: Any,
    *,
    confidence: float = 0.95,
    n_resamples: int = 10000,
    method: str = "percentile",
    seed: int = 0,
) -> tuple[float, float]:
    """Bootstrap CI of ``mean(b - a)``: candidate ``b`` minus baseline ``a``, paired.

    ``a`` and ``b`` hold one value per query, in the same query order.
    ``method`` is ``"percentile"`` or ``"bca"`` (bias-corrected and accelerated),
    both computed by :func:`scipy.stats.bootstrap` with ``n_resamples`` resamples
    of queries drawn by ``numpy.random.default_rng(seed)``. When every
    difference is the same value ``c`` the interval is ``(c, c)``.

    >>> paired_bootstrap_ci([0.0, 0.5], [0.25, 0.75])
    (0.25, 0.25)
    """
    import numpy as np

    x, y = _as_pair(a, b)
    low, high = bootstrap_ci_rows(
        (y - x)[np.newaxis, :],
        confidence=confidence,
        n_resamples=n_resamples,
        method=method,
        seed=seed,
    )
    return float(low[0]), float(high[0])


def bootstrap_pvalues_rows(
    diffs: np.ndarray, *, n_resamples: int = 10000, seed: int = 0
) -> np.ndarray:
    """Two-sided paired bootstrap test of ``mean = 0`` for each row of ``diffs``.

    The null distribution is built by resampling the *centred* differences
    (``d - mean(d)``), the shift method of Efron & Tibshirani (1993, sec. 16.4).
    ``p = (1 + #{|mean*| >= |mean|}) / (n_resamples + 1)``; rows of all-zero
    differences get ``p = 1``. One set of resampled query indices is shared by
    all rows, drawn in chunks to bound memory.
    """
    import numpy as np

    d, obs, centred = _centred_rows(diffs, n_resamples)
    if d.shape[1] == 0:
        return np.ones(d.shape[0])
    tol = 1e-12 * np.maximum(1.0, np.abs(obs))
    target = np.abs(obs) - tol
    hits = _count_resampled(
        centred, lambda boot: np.abs(boot) >= target[:, None], n_resamples, seed
    )
    p = (1.0 + hits) / (n_resamples + 1.0)
    p[np.all(d == 0, axis=1)] = 1.0
    return np.minimum(p, 1.0)


def noninferiority_pvalues(
    diffs: np.ndarray, margin: float, *, n_resamples: int = 10000, seed: int = 0
) -> np.ndarray:
    """One-sided paired bootstrap p-value of ``mean <= -margin`` for each row of ``diffs``.

    The null distribution shifts the resampled means of the centred differences
    to the boundary ``-margin`` (Efron & Tibshirani's shift method, one-sided):
    ``p = (1 + #{mean(d* - mean d) - margin >= mean d}) / (n_resamples + 1)``.
    A small p rules out a drop larger than ``margin``. Resampled indices are
    shared by all rows and drawn in chunks, as :func:`bootstrap_pvalues_rows`.
    """
    import numpy as np

    d, obs, centred = _centred_rows(diffs, n_resamples)
    if d.shape[1] == 0:
        return np.ones(d.shape[0])
    target = obs + margin - 1e-12 * np.maximum(1.0, np.abs(obs))
    hits = _count_resampled(centred, lambda boot: boot >= target[:, None], n_resamples, seed)
    return np.minimum((1.0 + hits) / (n_resamples + 1.0), 1.0)


def _centred_rows(diffs: Any, n_resamples: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``diffs`` as a checked 2-D array (rows x queries), its row means, and the rows
    centred on them (the null of the shift method)."""
    import numpy as np

    d = np.asarray(diffs, dtype=float)
    if d.ndim != 2:
        raise UsageError("diffs must be a 2-D array (rows x queries)")
    at_least("n_resamples", n_resamples)
    obs = d.mean(axis=1) if d.shape[1] else np.zeros(d.shape[0])
    return d, obs, d - obs[:, np.newaxis]


def _count_resampled(centred: np.ndarray, hit: Any, n_resamples: int, seed: int) -> np.ndarray:
    """Per row of ``centred``, how many of ``n_resamples`` resampled means ``hit`` marks.

    One set of resampled query indices is shared by all rows, drawn in chunks that
    bound memory (the same draws for the same ``seed``, whatever the test).
    """
    import numpy as np

    rows, n = centred.shape
    rng = np.random.default_rng(seed)
    chunk = max(1, _BATCH_ELEMENTS // max(1, n * max(rows, 1)))
    hits = np.zeros(rows, dtype=np.int64)
    done = 0
    while done < n_resamples:
        size = min(chunk, n_resamples - done)
        idx = rng.integers(0, n, size=(size, n))
        hits += hit(centred[:, idx].mean(axis=2)).sum(axis=1)  # rows x size -> rows
        done += size
    return hits
