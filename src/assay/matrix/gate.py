"""Gate a matrix result on a baseline matrix result: pass-rate non-inferiority per variant.

For every variant present in both results, cases are paired by ``case_id`` and
each case contributes its pass rate over the repeats. The gate passes a variant
when the lower bound of the paired bootstrap interval of the mean difference
(candidate minus baseline, :func:`assay.stats.bootstrap.paired_bootstrap_ci`)
is above ``-margin``: the candidate is shown to lose at most ``margin`` of pass
rate. A different cases version is refused: the evidence must be the same.
"""

from __future__ import annotations

from collections.abc import Sequence

from assay.core.errors import UsageError
from assay.matrix.result import MatrixGate, MatrixResult, VariantGate
from assay.stats.bootstrap import paired_bootstrap_ci

__all__ = ["MatrixGate", "VariantGate", "check_baseline", "gate_matrix"]


def check_baseline(
    baseline: MatrixResult, cases_version: str, variants: Sequence[str], *, margin: float
) -> list[str]:
    """Refuse a baseline no candidate on ``cases_version`` with ``variants`` can gate on.

    Needs no model call, so a matrix checks its baseline before the first one.
    Returns the shared variants, in the candidate's order.
    """
    if not 0 <= margin < 1:
        raise UsageError(f"--margin must lie in [0, 1), got {margin}")
    if cases_version != baseline.cases_version:
        raise UsageError(
            f"the baseline ran cases {baseline.cases_version}, the candidate "
            f"{cases_version}: gate on the same fixed evidence"
        )
    known = {b.variant for b in baseline.variants}
    shared = [v for v in variants if v in known]
    if not shared:
        raise UsageError("the two matrix results share no variant (prompt/provider)")
    return shared


def gate_matrix(
    candidate: MatrixResult,
    baseline: MatrixResult,
    *,
    margin: float = 0.05,
    confidence: float = 0.95,
    n_resamples: int = 10000,
    seed: int = 0,
) -> MatrixGate:
    """Non-inferiority of every shared variant's per-case pass rate; see the module doc."""

    variants = [v.variant for v in candidate.variants]
    shared = check_baseline(baseline, candidate.cases_version, variants, margin=margin)
    checks = []
    for name in shared:
        pairs = [
            (b.pass_rate, c.pass_rate)
            for cid in candidate.case_ids
            if (c := candidate.cell(name, cid)) is not None
            and (b := baseline.cell(name, cid)) is not None
            and c.pass_rate is not None
            and b.pass_rate is not None
        ]
        if not pairs:
            continue
        base = [p[0] for p in pairs]
        cand = [p[1] for p in pairs]
        low, high = paired_bootstrap_ci(
            base, cand, confidence=confidence, n_resamples=n_resamples, seed=seed
        )
        delta = (sum(cand) - sum(base)) / len(pairs)
        checks.append(
            VariantGate(
                variant=name,
                cases=len(pairs),
                baseline_pass_rate=sum(base) / len(pairs),
                candidate_pass_rate=sum(cand) / len(pairs),
                delta=delta,
                ci_low=low,
                ci_high=high,
                passed=low > -margin,
            )
        )
    rule = (
        f"pass when the {confidence:.0%} paired bootstrap lower bound of the per-case pass-rate "
        f"difference (candidate - baseline) is above -{margin:g}"
    )
    return MatrixGate(
        margin=margin,
        confidence=confidence,
        rule=rule,
        checks=checks,
        passed=bool(checks) and all(c.passed for c in checks),
    )
