"""Multiple-testing corrections: adjusted p-values over one family of tests.

Every method returns adjusted p-values in the input order, capped at 1, so a
test is significant at level ``alpha`` when its adjusted p-value is below
``alpha``. With ``p_(1) <= ... <= p_(m)`` the sorted p-values:

* ``holm`` (Holm 1979, step-down, controls the family-wise error rate):
  ``max_{j<=i} (m - j + 1) p_(j)``;
* ``bonferroni``: ``m p_i``;
* ``hommel`` (Hommel 1988, FWER under positive dependence; adjusted p-values
  as Wright 1992): for each size ``k`` from ``m`` down to 2, the Simes value
  ``c_k = min_j k p_(m-k+j) / j`` of the ``k`` largest p-values raises those
  to at least ``c_k`` and the others to at least ``min(k p_(i), c_k)``;
* ``bh`` (Benjamini and Hochberg 1995, step-up, controls the false discovery
  rate under independence or positive dependence): ``min_{j>=i} p_(j) m / j``;
* ``by`` (Benjamini and Yekutieli 2001, FDR under any dependence): ``bh``
  times ``sum_{j<=m} 1/j``;
* ``none``: the p-values as they are.

Each is computed with whole-array numpy operations (Hommel: one pass of them
per family size); the values equal
``statsmodels.stats.multitest.multipletests`` (``tests/stats``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

#: Accepted methods, the default first.
CORRECTIONS = ("holm", "bonferroni", "hommel", "bh", "by", "none")


def correction_field(default: str = "holm") -> Any:
    """A ``Field`` holding a correction's name (see :data:`CORRECTIONS`)."""
    from pydantic import Field

    return Field(
        default,
        description="multiple-testing correction of the adjusted p-values: "
        + ", ".join(CORRECTIONS)
        + " (assay.stats.corrections)",
    )


#: How each method is named in reports (column headers, captions).
LABELS = {
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "hommel": "Hommel",
    "bh": "BH",
    "by": "BY",
    "none": "unadjusted",
}

#: What each method controls, in words (report footnotes).
CONTROLS = {
    "holm": "family-wise error rate",
    "bonferroni": "family-wise error rate",
    "hommel": "family-wise error rate",
    "bh": "false discovery rate",
    "by": "false discovery rate",
    "none": "nothing (no correction)",
}


def check_correction(method: str | None, default: str = "holm") -> str:
    """``method`` in lower case when it is one of :data:`CORRECTIONS` (``None``: ``default``);
    else a UsageError naming the ``correction`` option."""
    key = default if method is None else str(method).lower()
    if key not in CORRECTIONS:
        raise UsageError(
            f"unknown correction {method!r}; use one of {', '.join(CORRECTIONS)}", "correction"
        )
    return key


def label(method: str) -> str:
    """The report's name of ``method`` (``Holm``, ``BH``...)."""
    return LABELS[check_correction(method)]


def adjust(pvalues: object, method: str = "holm") -> np.ndarray:
    """Adjusted p-values of ``method`` (one of :data:`CORRECTIONS`), input order kept."""
    import numpy as np

    key = check_correction(method)
    p = np.asarray(pvalues, dtype=float).ravel()
    m = p.size
    if m == 0 or key == "none":
        return p.copy()
    if key == "bonferroni":
        return np.minimum(p * m, 1.0)
    order = np.argsort(p, kind="stable")
    s = p[order]
    if key == "holm":
        adjusted = np.maximum.accumulate(s * (m - np.arange(m)))
    elif key == "hommel":
        adjusted = _hommel_sorted(s)
    else:
        fraction = np.arange(1, m + 1) / m  # i / m, the empirical CDF at p_(i)
        if key == "by":
            fraction = fraction / np.sum(1.0 / np.arange(1, m + 1))
        adjusted = np.minimum.accumulate((s / fraction)[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(adjusted, 1.0)
    return out


def _hommel_sorted(s: np.ndarray) -> np.ndarray:
    """Hommel's adjusted p-values of the ascending p-values ``s`` (see the module doc)."""
    import numpy as np

    m = s.size
    out = s.copy()
    for k in range(m, 1, -1):
        tail = s[m - k :]
        simes = float(np.min(k * tail / np.arange(1, k + 1)))
        out[m - k :] = np.maximum(out[m - k :], simes)
        out[: m - k] = np.maximum(out[: m - k], np.minimum(k * s[: m - k], simes))
    return out
