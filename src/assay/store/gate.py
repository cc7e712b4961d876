"""The CI gate: is a candidate run no worse than a baseline, overall and per slice?

Decision rule (``mode="noninferiority"``, the default): for every metric, the
per-query differences ``candidate - baseline`` (paired by query id) get a
seeded paired bootstrap confidence interval of their mean. A one-sided
non-inferiority test at level ``alpha`` is the lower bound of the *two-sided*
``1 - 2 * alpha`` interval (alpha 0.05 -> the 90% interval, whose lower bound
is a one-sided 95% bound). The gate fails when that lower bound is below
``-margin``: the data cannot rule out a drop larger than the margin.

``mode="threshold"`` is the plain rule: the mean may not drop by more than
``margin``; the interval is reported but not used.

With ``by`` fields every slice holding at least ``min_n`` paired queries is
gated the same way; smaller slices are reported as not gated.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from assay.errors import UsageError
from assay.results import ResultModel

if TYPE_CHECKING:  # pragma: no cover
    from assay.results import EvaluationResult

GATE_SCHEMA_VERSION = "1"
MODES = ("noninferiority", "threshold")
Mode = Literal["noninferiority", "threshold"]
#: Tolerance when comparing a bound with ``-margin`` (floating-point noise).
_EPS = 1e-12


class GateCheck(BaseModel):
    """One metric on all paired queries, or on one slice of them."""

    metric: str
    slice_field: str | None = None
    slice_value: str | None = None
    n: int = Field(description="paired queries in this check")
    baseline_mean: float
    candidate_mean: float
    delta: float = Field(description="candidate mean minus baseline mean")
    ci_low: float
    ci_high: float
    gated: bool = Field(True, description="false for slices smaller than min_n")
    passed: bool
    message: str = Field(description="the evidence in words, without the verdict")

    @property
    def status(self) -> str:
        """``"pass"``, ``"regression"`` or ``"not gated"``."""
        if not self.gated:
            return "not gated"
        return "pass" if self.passed else "regression"

    @property
    def label(self) -> str:
        """``"all queries"`` or ``"field=value"``."""
        if self.slice_field is None:
            return "all queries"
        return f"{self.slice_field}={self.slice_value}"


class GateResult(ResultModel):
    """The gate's decision with every number behind it (result kind ``gate``)."""

    model_config = ConfigDict(extra="allow")

    schema_version: str = GATE_SCHEMA_VERSION
    kind: Literal["gate"] = "gate"
    judgments_name: str
    judgments_version: str
    baseline_judgments_version: str
    version_mismatch: bool = False
    candidate: str
    candidate_config_hash: str | None = None
    corpus_version: str | None = None
    candidate_run_id: int | None = None
    baseline: str
    baseline_source: str = ""
    baseline_run_id: int | None = None
    mode: Mode = "noninferiority"
    metrics: list[str]
    margin: float
    alpha: float
    confidence: float = Field(description="two-sided level of the reported intervals")
    seed: int
    n_resamples: int
    ci_method: str = "percentile"
    by: list[str] = Field(default_factory=list)
    min_n: int
    n_paired: int
    unpaired_candidate: int = Field(0, description="candidate queries absent from the baseline")
    unpaired_baseline: int = Field(0, description="baseline queries absent from the candidate")
    rule: str
    checks: list[GateCheck]
    failed_queries: list[str] = Field(
        default_factory=list, description="candidate queries whose system call failed"
    )
    max_failed: int = Field(0, description="failed candidate queries the gate tolerates")
    failed_check: str | None = Field(
        None, description="why the failed queries fail the gate (None when within max_failed)"
    )
    passed: bool
    warnings: list[str] = Field(default_factory=list)
    environment: dict[str, Any] = Field(default_factory=dict)

    @property
    def failures(self) -> list[GateCheck]:
        """Gated checks that failed."""
        return [c for c in self.checks if c.gated and not c.passed]

    @property
    def verdict(self) -> str:
        """``"pass"``, ``"regression"`` or ``"failed queries"``."""
        if self.passed:
            return "pass"
        return "regression" if self.failures else "failed queries"


def failed_queries_check(candidate: EvaluationResult, max_failed: int) -> str | None:
    """The :mod:`assay.failures` rule for a gate: a message when the candidate has too many."""
    from assay.failures import too_many_failed

    return too_many_failed(
        list(candidate.run.failed_queries), max_failed, f"candidate {candidate.run.name}"
    )


# --------------------------------------------------------------------------- wording
def _pct(confidence: float) -> str:
    return f"{confidence * 100:.4g}%"


def _movement(delta: float) -> str:
    if delta < 0:
        return f"dropped by {-delta:.3f}"
    if delta > 0:
        return f"rose by {delta:.3f}"
    return "did not change"


def decision_rule(mode: str, alpha: float, margin: float) -> str:
    """The rule the gate applies, in words (printed in every report)."""
    if mode == "threshold":
        return (
            f"threshold: fail when the mean drops by more than {margin:.3f} "
            f"(intervals are {_pct(1 - 2 * alpha)} paired bootstrap CIs, shown for information)"
        )
    return (
        f"non-inferiority: fail when the lower bound of the {_pct(1 - 2 * alpha)} two-sided "
        f"paired bootstrap CI of (candidate - baseline), i.e. the one-sided "
        f"{_pct(1 - alpha)} bound (alpha {alpha:g}), is below -{margin:.3f}"
    )


def check_pair(
    metric: str,
    baseline: Sequence[float],
    candidate: Sequence[float],
    *,
    mode: str = "noninferiority",
    margin: float = 0.01,
    alpha: float = 0.05,
    seed: int = 0,
    n_resamples: int = 10000,
    slice_field: str | None = None,
    slice_value: str | None = None,
    gated: bool = True,
    min_n: int | None = None,
) -> GateCheck:
    """Decide one check from paired per-query values (same query order in both)."""
    import numpy as np

    from assay.stats.bootstrap import paired_bootstrap_ci

    a = np.asarray(baseline, dtype=float)
    b = np.asarray(candidate, dtype=float)
    confidence = 1.0 - 2.0 * alpha
    low, high = paired_bootstrap_ci(a, b, confidence=confidence, n_resamples=n_resamples, seed=seed)
    delta = float(b.mean() - a.mean())
    bound = delta if mode == "threshold" else low
    passed = bound >= -margin - _EPS
    label = "" if slice_field is None else f"{slice_field}={slice_value}: "
    ci = f"({_pct(confidence)} CI {low:.3f} to {high:.3f})"
    what = f"{label}{metric} {_movement(delta)} {ci}"
    # the message states the evidence; renderers add the verdict ("regression:") once
    if not gated:
        message = f"{what}; {len(a)} queries, fewer than --min-n {min_n}: not gated"
        passed = True
    elif mode == "threshold":
        relation = "within" if passed else "more than"
        message = f"{what}, {relation} the allowed margin {margin:.3f}"
    elif passed:
        message = f"{what}; its lower bound is above -{margin:.3f}, the allowed margin"
    else:
        message = (
            f"{what}; its lower bound is below -{margin:.3f}: a drop larger than the "
            "allowed margin cannot be ruled out"
        )
    return GateCheck(
        metric=metric,
        slice_field=slice_field,
        slice_value=slice_value,
        n=int(a.size),
        baseline_mean=float(a.mean()),
        candidate_mean=float(b.mean()),
        delta=delta,
        ci_low=float(low),
        ci_high=float(high),
        gated=gated,
        passed=bool(passed),
        message=message,
    )


# --------------------------------------------------------------------------- pairing
def _rows(result: EvaluationResult, metric: str, who: str) -> dict[str, dict[str, Any]]:
    if metric not in result.metrics:
        raise UsageError(
            f"the {who} result has no metric {metric!r} (it has {', '.join(result.metrics)}); "
            f"evaluate it with -m {metric}"
        )
    return {str(r["query_id"]): r for r in result.per_query if r.get(metric) is not None}


def _slices(rows: dict[str, dict[str, Any]], field: str, order: list[str]) -> dict[str, list[str]]:
    from assay.judgments.models import TAG_SEPARATOR

    out: dict[str, list[str]] = {}
    for qid in order:
        value = rows[qid].get(field)
        tags = [t.strip() for t in str(value).split(TAG_SEPARATOR) if t.strip()] if value else []
        for tag in dict.fromkeys(tags or ["(none)"]):
            out.setdefault(tag, []).append(qid)
    return dict(sorted(out.items()))


def _validate(mode: str, margin: float, alpha: float, min_n: int, n_resamples: int) -> None:
    if mode not in MODES:
        raise UsageError(f"--mode must be one of {', '.join(MODES)}; got {mode!r}")
    if not margin >= 0:
        raise UsageError(f"--margin must be >= 0, got {margin}")
    if not 0 < alpha < 0.5:
        raise UsageError(f"--alpha must be between 0 and 0.5, got {alpha}")
    if min_n < 1:
        raise UsageError(f"--min-n must be at least 1, got {min_n}")
    if n_resamples < 1:
        raise UsageError(f"n_resamples must be at least 1, got {n_resamples}")


def run_gate(
    candidate: EvaluationResult,
    baseline: EvaluationResult,
    metrics: Iterable[str],
    *,
    margin: float = 0.01,
    mode: str = "noninferiority",
    by: Iterable[str] = (),
    min_n: int = 10,
    alpha: float = 0.05,
    seed: int = 0,
    n_resamples: int = 10000,
    allow_version_mismatch: bool = False,
    baseline_source: str = "",
    max_failed: int = 0,
) -> GateResult:
    """Gate ``candidate`` against ``baseline`` (both evaluation results); never mutates them.

    Raises :class:`UsageError` when the judgment-set versions differ (unless
    ``allow_version_mismatch``), a metric is missing, a ``by`` field is unknown
    or the results share no query. A candidate with more than ``max_failed``
    failed queries fails the gate, whatever its scores (:mod:`assay.failures`).
    """
    _validate(mode, margin, alpha, min_n, n_resamples)
    failed_check = failed_queries_check(candidate, max_failed)
    names = list(dict.fromkeys(metrics))
    if not names:
        raise UsageError("give at least one metric (-m)")
    by_fields = list(dict.fromkeys(by))
    warnings: list[str] = []
    cv, bv = candidate.judgments.version, baseline.judgments.version
    mismatch = cv != bv
    if mismatch and not allow_version_mismatch:
        raise UsageError(
            f"the baseline was scored on judgment set version {bv}, the candidate on {cv}; "
            "scores across judgment-set versions are not comparable "
            "(re-evaluate the baseline, or pass --allow-version-mismatch)"
        )
    if mismatch:
        warnings.append(f"judgment-set versions differ (baseline {bv}, candidate {cv})")
    checks: list[GateCheck] = []
    common: list[str] = []
    unpaired_c = unpaired_b = 0
    stat = dict(mode=mode, margin=margin, alpha=alpha, seed=seed, n_resamples=n_resamples)
    for metric in names:
        crow = _rows(candidate, metric, "candidate")
        brow = _rows(baseline, metric, "baseline")
        common = [q for q in crow if q in brow]
        unpaired_c, unpaired_b = len(crow) - len(common), len(brow) - len(common)
        if not common:
            raise UsageError(
                "the candidate and the baseline share no query ids; "
                "were they scored on the same judgment set?"
            )
        checks.append(
            check_pair(
                metric,
                [brow[q][metric] for q in common],
                [crow[q][metric] for q in common],
                **stat,
            )
        )
        for field in by_fields:
            if not any(field in crow[q] for q in common):
                raise UsageError(
                    f"no metadata field {field!r} in the candidate's per-query rows; "
                    "check --by and the judgment set"
                )
            for value, qids in _slices(crow, field, common).items():
                checks.append(
                    check_pair(
                        metric,
                        [brow[q][metric] for q in qids],
                        [crow[q][metric] for q in qids],
                        slice_field=field,
                        slice_value=value,
                        gated=len(qids) >= min_n,
                        min_n=min_n,
                        **stat,
                    )
                )
    if unpaired_c or unpaired_b:
        warnings.append(
            f"{unpaired_c} candidate and {unpaired_b} baseline queries have no partner "
            "and were left out"
        )
    if candidate.run.failed_queries and failed_check is None:
        warnings.append(
            f"{len(candidate.run.failed_queries)} candidate queries failed "
            f"(accepted by max_failed {max_failed})"
        )
    run = candidate.run
    from assay.store.columns import index_columns

    cols = index_columns(candidate.model_dump(mode="json", include={"run", "judgments", "kind"}))
    return GateResult(
        judgments_name=candidate.judgments.name,
        judgments_version=cv,
        baseline_judgments_version=bv,
        version_mismatch=mismatch,
        candidate=run.name,
        candidate_config_hash=cols["config_hash"],
        corpus_version=run.corpus_version,
        baseline=baseline.run.name,
        baseline_source=baseline_source,
        mode=mode,  # type: ignore[arg-type]
        metrics=names,
        margin=margin,
        alpha=alpha,
        confidence=1.0 - 2.0 * alpha,
        seed=seed,
        n_resamples=n_resamples,
        by=by_fields,
        min_n=min_n,
        n_paired=len(common),
        unpaired_candidate=unpaired_c,
        unpaired_baseline=unpaired_b,
        rule=decision_rule(mode, alpha, margin),
        checks=checks,
        failed_queries=sorted(candidate.run.failed_queries),
        max_failed=max_failed,
        failed_check=failed_check,
        passed=failed_check is None and all(c.passed for c in checks if c.gated),
        warnings=warnings,
        environment=dict(candidate.environment),
    )
