"""Reliability over repeats: pass@k, pass^k and the flip rate of each case and variant.

A cell asked ``n`` times passed ``c`` of them. For ``k <= n``:

* **pass@k**, the chance that at least one of ``k`` repeats drawn without
  replacement passes, by the unbiased estimator of Chen et al. (2021,
  "Evaluating Large Language Models Trained on Code"):
  ``1 - C(n - c, k) / C(n, k)``;
* **pass^k**, the chance that all ``k`` drawn repeats pass, as tau-bench (Yao et
  al., 2024) defines it: ``C(c, k) / C(n, k)``;
* the **flip rate**, the share of pairs of repeats whose outcomes differ:
  ``c (n - c) / C(n, 2)`` (0 when every repeat agrees, order-free).

A variant's pass@k and pass^k are the means of its cases' values; their
intervals are percentile bootstrap intervals over cases
(:func:`assay.stats.bootstrap.bootstrap_ci_rows`, seeded). Cases with fewer than
``k`` repeats (the budget stopped them) are left out of that ``k``. Binomial
coefficients are exact integers (:func:`math.comb`), so the ratios have no
overflow for any ``n`` the matrix allows.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb
from typing import Protocol

from pydantic import BaseModel, Field

from assay.stats.bootstrap import bootstrap_ci_rows

#: How the variant intervals are made (printed in every report).
INTERVAL_METHOD = "percentile bootstrap over cases (2000 resamples, seed 0)"
#: Resamples of the interval bootstrap and its confidence.
RESAMPLES = 2000
CONFIDENCE = 0.95


class CellCounts(Protocol):
    """What reliability reads of a matrix cell (:class:`assay.matrix.result.Cell` has it)."""

    variant: str
    case_id: str
    n: int
    passes: int


def _check(n: int, c: int, k: int) -> None:
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n}, c={c}, k={k}")


def pass_at_k(n: int, c: int, k: int) -> float:
    """Chen et al.'s unbiased pass@k: ``1 - C(n - c, k) / C(n, k)``."""
    _check(n, c, k)
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    """tau-bench's pass^k: ``C(c, k) / C(n, k)``, every one of ``k`` drawn repeats passes."""
    _check(n, c, k)
    return comb(c, k) / comb(n, k)


def flip_rate(n: int, c: int) -> float | None:
    """Share of pairs of repeats with different outcomes (``None`` below two repeats)."""
    if n < 2:
        return None
    return c * (n - c) / comb(n, 2)


class CaseReliability(BaseModel):
    """One cell's reliability over its repeats."""

    variant: str = Field(description="The prompt/provider variant.")
    case_id: str = Field(description="The case.")
    n: int = Field(description="Repeats asked (and answered or failed).")
    passes: int = Field(description="Repeats that passed.")
    flip_rate: float | None = Field(
        description="Share of pairs of repeats whose outcomes differ (None below 2 repeats)."
    )
    flaky: bool = Field(description="Some repeats passed and some failed.")
    pass_at: dict[str, float | None] = Field(
        description="pass@k by k (None where k exceeds the repeats)."
    )
    pass_hat: dict[str, float | None] = Field(
        description="pass^k by k (None where k exceeds the repeats)."
    )


class VariantReliability(BaseModel):
    """A variant's mean pass@k and pass^k over cases for one k, with intervals."""

    variant: str = Field(description="The prompt/provider variant.")
    k: int = Field(description="Repeats drawn.")
    cases: int = Field(description="Cases with at least k repeats (those averaged).")
    pass_at_k: float | None = Field(description="Mean pass@k over cases.")
    pass_at_k_ci: tuple[float, float] | None = Field(description="Interval of pass@k.")
    pass_hat_k: float | None = Field(description="Mean pass^k over cases.")
    pass_hat_k_ci: tuple[float, float] | None = Field(description="Interval of pass^k.")
    flaky_cases: int = Field(description="Cases with both passing and failing repeats.")


class Reliability(BaseModel):
    """pass@k, pass^k and flip rates of a matrix run (flaky cases first)."""

    ks: list[int] = Field(description="The k values reported.")
    method: str = Field(INTERVAL_METHOD, description="How the variant intervals are made.")
    confidence: float = Field(CONFIDENCE, description="Confidence of the intervals.")
    cases: list[CaseReliability] = Field(
        description="Per variant and case; flaky cases first (highest flip rate first)."
    )
    variants: list[VariantReliability] = Field(description="Per variant and k.")


def default_ks(repeats: int) -> list[int]:
    """1 and the repeats (one value when there is one repeat)."""
    return sorted({1, repeats})


def case_reliability(cell: CellCounts, ks: Sequence[int]) -> CaseReliability:
    """The reliability of one cell for every k of ``ks``."""
    n, c = cell.n, cell.passes
    return CaseReliability(
        variant=cell.variant,
        case_id=cell.case_id,
        n=n,
        passes=c,
        flip_rate=flip_rate(n, c),
        flaky=0 < c < n,
        pass_at={str(k): pass_at_k(n, c, k) if k <= n else None for k in ks},
        pass_hat={str(k): pass_hat_k(n, c, k) if k <= n else None for k in ks},
    )


def _mean_ci(values: list[float]) -> tuple[float | None, tuple[float, float] | None]:
    import numpy as np

    if not values:
        return None, None
    row = np.asarray(values, dtype=float)[None, :]
    low, high = bootstrap_ci_rows(row, confidence=CONFIDENCE, n_resamples=RESAMPLES, seed=0)
    return float(row.mean()), (float(low[0]), float(high[0]))


def reliability(
    cells: Sequence[CellCounts], variants: Sequence[str], ks: Sequence[int]
) -> Reliability:
    """Per case and per variant pass@k and pass^k for each k of ``ks``; flaky cases first."""
    per_case = [case_reliability(c, ks) for c in cells]
    summaries: list[VariantReliability] = []
    for variant in variants:
        mine = [r for r in per_case if r.variant == variant]
        for k in ks:
            at = [r.pass_at[str(k)] for r in mine if r.pass_at[str(k)] is not None]
            hat = [r.pass_hat[str(k)] for r in mine if r.pass_hat[str(k)] is not None]
            at_mean, at_ci = _mean_ci(at)  # type: ignore[arg-type]
            hat_mean, hat_ci = _mean_ci(hat)  # type: ignore[arg-type]
            summaries.append(
                VariantReliability(
                    variant=variant,
                    k=k,
                    cases=len(at),
                    pass_at_k=at_mean,
                    pass_at_k_ci=at_ci,
                    pass_hat_k=hat_mean,
                    pass_hat_k_ci=hat_ci,
                    flaky_cases=sum(r.flaky for r in mine),
                )
            )
    order = {v: i for i, v in enumerate(variants)}
    per_case.sort(key=lambda r: (not r.flaky, -(r.flip_rate or 0.0), order.get(r.variant, 0)))
    return Reliability(ks=list(ks), cases=per_case, variants=summaries)
