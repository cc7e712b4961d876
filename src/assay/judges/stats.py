"""Agreement statistics between raters, written in numpy.

* :func:`confusion` — counts of (reference, candidate) label pairs;
* :func:`cohen_kappa` — Cohen's kappa, unweighted or with linear / quadratic
  disagreement weights over the *positions* of the sorted categories (the
  convention of scikit-learn's ``cohen_kappa_score``);
* :func:`krippendorff_alpha` — Krippendorff's alpha for any number of coders
  with missing values, nominal, ordinal or interval metric, from the
  coincidence matrix (Krippendorff, "Computing Krippendorff's Alpha-Reliability",
  2011). The ``krippendorff`` package on PyPI is GPL-3.0 and is never imported
  here; tests may use it as an oracle.

Every function returns ``None`` when the statistic is undefined (no data, or
a single category used by everyone, where chance agreement is total).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel

#: Disagreement weightings of Cohen's kappa.
KAPPA_WEIGHTS = ("unweighted", "linear", "quadratic")
#: Metrics of Krippendorff's alpha.
ALPHA_LEVELS = ("nominal", "ordinal", "interval")


def confusion(reference: Any, candidate: Any, labels: Sequence[int] | None = None) -> Any:
    """``(labels, matrix)``: ``matrix[i, j]`` counts pairs rated ``labels[i]`` then ``labels[j]``.

    ``labels`` defaults to the sorted union of both ratings.
    """
    import numpy as np

    ref = np.asarray(reference, dtype=np.int64)
    cand = np.asarray(candidate, dtype=np.int64)
    if ref.shape != cand.shape:
        raise ValueError("reference and candidate must have the same length")
    cats = np.unique(np.concatenate([ref, cand])) if labels is None else np.asarray(labels)
    cats = np.asarray(cats, dtype=np.int64)
    k = len(cats)
    i = np.searchsorted(cats, ref)
    j = np.searchsorted(cats, cand)
    matrix = np.bincount(i * k + j, minlength=k * k).reshape(k, k) if k else np.zeros((0, 0))
    return cats.tolist(), matrix.astype(np.int64)


def cohen_kappa(matrix: Any, weights: str = "unweighted") -> float | None:
    """Cohen's kappa of a square confusion matrix (rows: first rater).

    ``weights`` is ``unweighted``, ``linear`` (``|i - j|``) or ``quadratic``
    (``(i - j)**2``), ``i`` and ``j`` being category positions.
    """
    import numpy as np

    if weights not in KAPPA_WEIGHTS:
        raise ValueError(f"weights must be one of {', '.join(KAPPA_WEIGHTS)}, got {weights!r}")
    m = np.asarray(matrix, dtype=np.float64)
    total = m.sum()
    if total == 0:
        return None
    k = m.shape[0]
    idx = np.arange(k)
    diff = np.abs(idx[:, None] - idx[None, :]).astype(np.float64)
    if weights == "unweighted":
        w = (diff > 0).astype(np.float64)
    elif weights == "linear":
        w = diff
    else:
        w = diff**2
    expected = np.outer(m.sum(axis=1), m.sum(axis=0)) / total
    denominator = float((w * expected).sum())
    if denominator == 0:
        return None
    return float(1.0 - (w * m).sum() / denominator)


def krippendorff_alpha(data: Any, level: str = "nominal") -> float | None:
    """Krippendorff's alpha of a reliability matrix (coders x units, NaN = missing).

    Units rated by fewer than two coders are not pairable and are left out.
    ``level`` is ``nominal``, ``ordinal`` or ``interval``; ordinal distances use
    the marginal counts of the ranks between two values (Krippendorff 2011).
    """
    import numpy as np

    if level not in ALPHA_LEVELS:
        raise ValueError(f"level must be one of {', '.join(ALPHA_LEVELS)}, got {level!r}")
    values = np.asarray(data, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError("data must be a 2-D matrix: one row per coder, one column per unit")
    present = ~np.isnan(values)
    if not present.any():
        return None
    cats = np.unique(values[present])
    counts = _value_counts(values, present, cats)  # units x categories
    return alpha_from_counts(counts, cats, level)


def alpha_from_counts(counts: Any, categories: Any, level: str = "nominal") -> float | None:
    """Alpha from ``counts[u, c]``: how many coders gave unit ``u`` category ``c``."""
    import numpy as np

    counts = np.asarray(counts, dtype=np.float64)
    m_u = counts.sum(axis=1)
    pairable = m_u >= 2
    counts, m_u = counts[pairable], m_u[pairable]
    if counts.size == 0:
        return None
    # Coincidence matrix: o[c, k] = sum_u n_uc * (n_uk - [c == k]) / (m_u - 1).
    scaled = counts / (m_u - 1)[:, None]
    coincidence = scaled.T @ counts - np.diag(scaled.sum(axis=0))
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    if n <= 1:
        return None
    delta = _distances(np.asarray(categories, dtype=np.float64), n_c, level)
    observed = float((coincidence * delta).sum())
    expected = float((np.outer(n_c, n_c) * delta).sum()) / (n - 1)
    if expected == 0:
        return None
    return float(1.0 - observed / expected)


def pairwise_alpha(reference: Any, candidate: Any, level: str = "nominal") -> float | None:
    """Alpha of two coders who rated the same units (no missing values)."""
    import numpy as np

    return krippendorff_alpha(np.vstack([reference, candidate]).astype(np.float64), level)


def _value_counts(values: Any, present: Any, cats: Any) -> Any:
    import numpy as np

    n_units = values.shape[1]
    filled = np.where(present, values, cats[0])
    position = np.searchsorted(cats, filled)
    unit = np.broadcast_to(np.arange(n_units), values.shape)
    flat = (unit * len(cats) + position)[present]
    return np.bincount(flat, minlength=n_units * len(cats)).reshape(n_units, len(cats))


def _distances(cats: Any, n_c: Any, level: str) -> Any:
    import numpy as np

    if level == "nominal":
        return 1.0 - np.eye(len(cats))
    if level == "interval":
        return (cats[:, None] - cats[None, :]) ** 2
    # ordinal: (sum of n_g for g between c and k, minus half of n_c and n_k) squared
    cumulative = np.concatenate([[0.0], np.cumsum(n_c)])
    lo = np.minimum.outer(np.arange(len(cats)), np.arange(len(cats)))
    hi = np.maximum.outer(np.arange(len(cats)), np.arange(len(cats)))
    between = cumulative[hi + 1] - cumulative[lo]
    return (between - (n_c[lo] + n_c[hi]) / 2.0) ** 2


class AgreementStats(BaseModel):
    """The headline figures over one set of paired labels."""

    n: int
    accuracy: float | None
    cohen_kappa: float | None
    weighted_kappa: dict[str, float | None]
    krippendorff_alpha: dict[str, float | None]


def pair_stats(reference: Any, candidate: Any) -> AgreementStats:
    """Accuracy, kappas and alphas of two aligned grade arrays."""
    import numpy as np

    r = np.asarray(reference, dtype=np.int64)
    c = np.asarray(candidate, dtype=np.int64)
    n = len(r)
    _, matrix = confusion(r, c)
    return AgreementStats(
        n=n,
        accuracy=float(np.mean(r == c)) if n else None,
        cohen_kappa=cohen_kappa(matrix) if n else None,
        weighted_kappa={w: cohen_kappa(matrix, w) if n else None for w in ("linear", "quadratic")},
        krippendorff_alpha={
            lv: pairwise_alpha(r, c, lv) if n else None for lv in ("nominal", "ordinal")
        },
    )


def binary_stats(reference: Any, candidate: Any, threshold: int) -> dict[str, Any]:
    """Agreement once both sides are binarised at ``grade >= threshold``."""
    import numpy as np

    r = (np.asarray(reference) >= threshold).astype(np.int64)
    c = (np.asarray(candidate) >= threshold).astype(np.int64)
    stats = pair_stats(r, c)
    return {
        "threshold": threshold,
        "n": stats.n,
        "accuracy": stats.accuracy,
        "cohen_kappa": stats.cohen_kappa,
        "krippendorff_alpha": stats.krippendorff_alpha["nominal"],
        "reference_relevant": int(r.sum()),
        "candidate_relevant": int(c.sum()),
    }
