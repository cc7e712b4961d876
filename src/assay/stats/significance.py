"""Paired significance tests on per-query differences, vectorised over rows.

Every function takes ``diffs``, a ``(rows, n)`` array of paired differences
(candidate minus baseline, one row per system x metric comparison) and returns
one two-sided p-value per row. Rows whose differences are all zero get
``p = 1``: there is nothing to detect.

* ``randomization``: the paired randomization (sign-flip permutation) test of
  the mean difference. When ``2**n <= n_permutations`` every sign vector is
  enumerated and the p-value is exact (``#{|mean*| >= |mean|} / 2**n``, the
  identity is one of the vectors). Otherwise ``n_permutations`` random sign
  vectors are drawn (seeded) and ``p = (1 + #{|mean*| >= |mean|}) /
  (n_permutations + 1)``, the +1 correction that keeps a Monte Carlo p-value
  valid (Phipson & Smyth 2010). One sign matrix is shared by all rows and
  generated in chunks, so memory stays bounded and the work is a matrix
  product.
* ``t``: :func:`scipy.stats.ttest_rel`.
* ``wilcoxon``: :func:`scipy.stats.wilcoxon` (zero differences dropped, the
  scipy default ``zero_method="wilcox"``).
* ``bootstrap``: :func:`assay.stats.bootstrap.bootstrap_pvalues_rows`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.core.bounds import at_least
from assay.core.errors import UsageError
from assay.stats.bootstrap import _as_pair, bootstrap_pvalues_rows
from assay.stats.corrections import adjust

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

TESTS = ("randomization", "t", "wilcoxon", "bootstrap")

#: Elements of the sign matrix generated per chunk.
_CHUNK_ELEMENTS = 4_000_000


def _rows(diffs: np.ndarray) -> np.ndarray:
    import numpy as np

    d = np.asarray(diffs, dtype=float)
    if d.ndim == 1:
        d = d[np.newaxis, :]
    if d.ndim != 2:
        raise UsageError("diffs must be a 2-D array (rows x queries)")
    return d


def is_exact(n: int, n_permutations: int) -> bool:
    """True when the randomization test enumerates all ``2**n`` sign vectors."""
    return n <= 62 and 2**n <= n_permutations


def randomization_pvalues(
    diffs: np.ndarray, *, n_permutations: int = 10000, seed: int = 0
) -> np.ndarray:
    """Two-sided paired randomization (sign-flip) test per row; see the module doc."""
    import numpy as np

    at_least("n_permutations", n_permutations)
    d = _rows(diffs)
    rows, n = d.shape
    if n == 0:
        return np.ones(rows)
    obs = np.abs(d.sum(axis=1))
    # sums rather than means: same ordering, fewer rounding steps
    target = obs - 1e-9 * np.maximum(1.0, obs)
    dt = d.T  # n x rows
    hits = np.zeros(rows, dtype=np.int64)
    chunk = max(1, _CHUNK_ELEMENTS // n)
    if is_exact(n, n_permutations):
        total = 2**n
        bits = np.arange(n, dtype=np.int64)
        for start in range(0, total, chunk):
            codes = np.arange(start, min(total, start + chunk), dtype=np.int64)
            signs = 1.0 - 2.0 * ((codes[:, np.newaxis] >> bits) & 1)
            hits += (np.abs(signs @ dt) >= target).sum(axis=0)
        p = hits / total
    else:
        rng = np.random.default_rng(seed)
        done = 0
        while done < n_permutations:
            size = min(chunk, n_permutations - done)
            signs = rng.integers(0, 2, size=(size, n), dtype=np.int8).astype(float)
            signs *= 2.0
            signs -= 1.0
            hits += (np.abs(signs @ dt) >= target).sum(axis=0)
            done += size
        p = (1.0 + hits) / (n_permutations + 1.0)
    p[np.all(d == 0, axis=1)] = 1.0
    return np.minimum(p, 1.0)


def t_pvalues(diffs: np.ndarray) -> np.ndarray:
    """Two-sided paired t test per row, via :func:`scipy.stats.ttest_rel`.

    ``ttest_rel(b, a)`` equals the one-sample t test of ``b - a``; it is called
    on ``(diffs, zeros)``. Constant non-zero differences (sd 0) give ``p = 0``.
    """
    import numpy as np
    from scipy import stats

    d = _rows(diffs)
    rows, n = d.shape
    if n < 2:
        return np.ones(rows)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = np.asarray(stats.ttest_rel(d, np.zeros_like(d), axis=1).pvalue, dtype=float)
    constant = np.ptp(d, axis=1) == 0
    p = np.where(constant, np.where(d[:, 0] == 0, 1.0, 0.0), p)
    return np.where(np.isnan(p), 1.0, p)


def wilcoxon_pvalues(diffs: np.ndarray) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank test per row via :func:`scipy.stats.wilcoxon`.

    All-zero differences give ``p = 1`` (scipy cannot rank an empty sample).
    """
    import warnings

    import numpy as np
    from scipy import stats

    d = _rows(diffs)
    out = np.ones(d.shape[0])
    for i, row in enumerate(d):
        if not np.any(row != 0):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = float(stats.wilcoxon(row).pvalue)
        out[i] = 1.0 if np.isnan(p) else p
    return out


def paired_pvalues(
    diffs: np.ndarray,
    *,
    test: str = "randomization",
    n_permutations: int = 10000,
    n_resamples: int = 10000,
    seed: int = 0,
) -> np.ndarray:
    """Two-sided p-values of ``test`` (one of :data:`TESTS`) for each row of ``diffs``."""

    key = test.lower()
    if key == "randomization":
        return randomization_pvalues(diffs, n_permutations=n_permutations, seed=seed)
    if key == "t":
        return t_pvalues(diffs)
    if key == "wilcoxon":
        return wilcoxon_pvalues(diffs)
    if key == "bootstrap":
        return bootstrap_pvalues_rows(_rows(diffs), n_resamples=n_resamples, seed=seed)
    raise UsageError(f"unknown test {test!r}; use one of {', '.join(TESTS)}")


def paired_test(
    a: object,
    b: object,
    *,
    test: str = "randomization",
    n_permutations: int = 10000,
    n_resamples: int = 10000,
    seed: int = 0,
) -> float:
    """Two-sided p-value of ``test`` for paired values: candidate ``b`` vs baseline ``a``."""

    x, y = _as_pair(a, b)
    p = paired_pvalues(
        (y - x)[None, :],
        test=test,
        n_permutations=n_permutations,
        n_resamples=n_resamples,
        seed=seed,
    )
    return float(p[0])


def holm(pvalues: object) -> np.ndarray:
    """Holm (1979) step-down adjusted p-values, same order as the input.

    :func:`assay.stats.corrections.adjust` with ``method="holm"``.
    """

    return adjust(pvalues, "holm")


def mcnemar_exact(baseline_only: int, candidate_only: int) -> float:
    """Two-sided exact McNemar (sign) test of paired pass/fail outcomes.

    Only discordant pairs count: ``baseline_only`` passed under the baseline
    alone, ``candidate_only`` under the candidate alone. Under the null each
    discordant pair goes either way with probability 1/2, so the p-value is
    ``min(1, 2 * P[X <= min(b, c)])`` for ``X ~ Binomial(b + c, 1/2)``, computed
    in exact integer arithmetic (``p = 1`` without discordant pairs).
    """
    from math import comb

    if baseline_only < 0 or candidate_only < 0:
        raise UsageError("McNemar counts must be >= 0")
    n = baseline_only + candidate_only
    if n == 0:
        return 1.0
    low = min(baseline_only, candidate_only)
    tail = sum(comb(n, i) for i in range(low + 1))
    return min(1.0, 2 * tail / 2**n)


def p_value_method(test: str, n: int, n_permutations: int, n_resamples: int) -> str:
    """How the p-values were computed, in words (printed in every report)."""
    if test == "randomization":
        return (
            f"exact enumeration of all 2^{n} sign vectors"
            if is_exact(n, n_permutations)
            else f"Monte Carlo, {n_permutations} random sign vectors, p = (1 + hits) / "
            f"({n_permutations} + 1)"
        ) + "; slices use exact enumeration when 2^n <= permutations"
    return {
        "t": "scipy.stats.ttest_rel, two-sided",
        "wilcoxon": "scipy.stats.wilcoxon, two-sided, zero differences dropped",
        "bootstrap": f"bootstrap of centred differences, {n_resamples} resamples, "
        "p = (1 + hits) / (B + 1)",
    }[test]
