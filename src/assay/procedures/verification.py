"""Verification of a suite: a deliberately degraded system must score lower.

The suite passes when the degraded variant's mean is lower than the system's
and the paired randomization (sign-flip) test of the per-query differences
(:func:`assay.stats.significance.randomization_pvalues`, two-sided) gives
``p < alpha``. A suite that cannot tell a broken configuration apart from the
real one is not measuring what matters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import ConfigDict, Field

from assay.errors import UsageError
from assay.results import ResultModel

if TYPE_CHECKING:  # pragma: no cover
    from assay.results import EvaluationResult
    from assay.runs.models import Run

VERIFY_SCHEMA_VERSION = "1"
#: ``--degraded`` value that shuffles the system's own ranking instead of a second system.
SHUFFLE = "shuffle"


class VerifyResult(ResultModel):
    """Outcome of ``assay verify-suite`` (result kind ``verify``)."""

    model_config = ConfigDict(extra="allow")

    schema_version: str = VERIFY_SCHEMA_VERSION
    kind: Literal["verify"] = "verify"
    judgments_name: str
    judgments_version: str
    system: str
    degraded: str
    metric: str
    n: int = Field(description="paired queries")
    system_mean: float
    degraded_mean: float
    delta: float = Field(description="degraded mean minus system mean")
    ci_low: float
    ci_high: float
    confidence: float = 0.95
    p_value: float
    alpha: float
    seed: int
    test: str = "randomization"
    p_value_method: str = ""
    passed: bool
    message: str


def shuffle_run(run: Run, seed: int = 0, *, name: str | None = None) -> Run:
    """A copy of ``run`` with each query's ranked list in seeded random order.

    The same documents are retrieved; only their order is lost. Scores are
    dropped so the shuffled order is the ranking.
    """
    import numpy as np

    from assay.runs.models import Run

    rng = np.random.default_rng(seed)
    ranking: dict[str, list[str]] = {}
    for qid, items in run.to_dict().items():
        docs = [d for d, _ in items]
        ranking[qid] = [docs[i] for i in rng.permutation(len(docs))]
    return Run.from_dict(ranking, name=name or f"{run.name} (shuffled)")


def verify_suite(
    reference: EvaluationResult,
    degraded: EvaluationResult,
    metric: str,
    *,
    alpha: float = 0.05,
    seed: int = 0,
    n_permutations: int = 10000,
    n_resamples: int = 10000,
) -> VerifyResult:
    """Decide whether ``degraded`` scores significantly lower than ``reference``."""
    import numpy as np

    from assay.stats.bootstrap import paired_bootstrap_ci
    from assay.stats.significance import is_exact, randomization_pvalues

    if not 0 < alpha < 1:
        raise UsageError(f"--alpha must be between 0 and 1, got {alpha}")
    for who, res in (("system", reference), ("degraded", degraded)):
        if metric not in res.metrics:
            raise UsageError(f"the {who} result has no metric {metric!r}")
    if reference.judgments.version != degraded.judgments.version:
        raise UsageError("the system and the degraded variant were scored on different judgments")
    ref = {str(r["query_id"]): r[metric] for r in reference.per_query}
    deg = {str(r["query_id"]): r[metric] for r in degraded.per_query}
    common = [q for q in ref if q in deg]
    if not common:
        raise UsageError("the system and the degraded variant share no scored query")
    a = np.array([ref[q] for q in common], dtype=float)
    b = np.array([deg[q] for q in common], dtype=float)
    p = float(
        randomization_pvalues((b - a)[np.newaxis, :], n_permutations=n_permutations, seed=seed)[0]
    )
    low, high = paired_bootstrap_ci(a, b, n_resamples=n_resamples, seed=seed)
    delta = float(b.mean() - a.mean())
    method = (
        f"exact (all 2^{a.size} sign vectors)"
        if is_exact(a.size, n_permutations)
        else f"Monte Carlo, {n_permutations} sign vectors, seed {seed}"
    )
    numbers = (
        f"{metric} {a.mean():.3f} (system) vs {b.mean():.3f} (degraded), delta {delta:+.3f} "
        f"(95% CI {low:.3f} to {high:.3f}), p = {p:.4g}, {a.size} queries"
    )
    if delta >= 0:
        passed = False
        message = f"{numbers}: the degraded variant does not score lower; the suite fails"
    elif p >= alpha:
        passed = False
        message = (
            f"{numbers}: lower, but not significant at alpha {alpha:g}; the suite cannot "
            "reliably tell a degraded system apart (add queries)"
        )
    else:
        passed = True
        message = f"{numbers}: significantly lower at alpha {alpha:g}; the suite passes"
    return VerifyResult(
        judgments_name=reference.judgments.name,
        judgments_version=reference.judgments.version,
        system=reference.run.name,
        degraded=degraded.run.name,
        metric=metric,
        n=int(a.size),
        system_mean=float(a.mean()),
        degraded_mean=float(b.mean()),
        delta=delta,
        ci_low=low,
        ci_high=high,
        p_value=p,
        alpha=alpha,
        seed=seed,
        p_value_method=method,
        passed=passed,
        message=message,
    )
