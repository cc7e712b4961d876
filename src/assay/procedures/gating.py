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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.bounds import at_least, level
from assay.core.errors import UsageError
from assay.core.failures import too_many_failed
from assay.core.tags import group_by_tags
from assay.metrics.measures import parse_measures
from assay.metrics.rules import mean_decided_policies
from assay.procedures.comparison import evaluate_sources, scoring_keywords
from assay.procedures.gate_correction import corrected, correction_fields
from assay.procedures.gate_result import MODES, GateCheck, GateResult
from assay.procedures.live import executing, failed_bound, live_keywords, run_or_system
from assay.procedures.options import ScoringOptions, SourceOptions, option_object
from assay.procedures.procedure_options import GateOptions
from assay.results.models import EvaluationResult, check_pairable
from assay.stats.bootstrap import paired_bootstrap_ci
from assay.stats.corrections import check_correction
from assay.store.api import open_store
from assay.systems.base import config_hash

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure

#: Tolerance when comparing a bound with ``-margin`` (floating-point noise).
_EPS = 1e-12


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
    check = GateCheck(
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
    check.diffs = b - a
    return check


# --------------------------------------------------------------------------- pairing
def _rows(result: EvaluationResult, metric: str, who: str) -> dict[str, Any]:
    if metric not in result.metrics:
        raise UsageError(
            f"the {who} result has no metric {metric!r} (it has {', '.join(result.metrics)}); "
            f"evaluate it with `metrics` {metric}",
            "metrics",
        )
    return {str(r["query_id"]): r for r in result.per_query if r.get(metric) is not None}


def _slices(rows: dict[str, Any], field: str, order: list[str]) -> dict[str, list[str]]:

    return dict(sorted(group_by_tags((qid, rows[qid].get(field)) for qid in order).items()))


#: Most bootstrap resamples a gate draws (10 million: minutes, not days).
MAX_RESAMPLES = 10_000_000


def _validate(
    mode: str, margin: float, alpha: float, min_n: int, n_resamples: int, seed: int
) -> None:
    import math

    if mode not in MODES:
        raise UsageError(f"`mode` must be one of {', '.join(MODES)}; got {mode!r}", "mode")
    if not (margin >= 0 and math.isfinite(margin)):
        raise UsageError(f"`margin` must be a finite number >= 0, got {margin}", "margin")
    level("alpha", alpha, 0.5)
    at_least("min_n", min_n)
    if not 1 <= n_resamples <= MAX_RESAMPLES:
        raise UsageError(
            f"`n_resamples` must be from 1 to {MAX_RESAMPLES:,}, got {n_resamples}", "n_resamples"
        )
    if not 0 <= seed < 2**63:
        raise UsageError(f"`seed` must be a whole number from 0 to 2^63 - 1, got {seed}", "seed")


def gate(
    judgments: JudgmentSet | str | Path,
    candidate: Any,
    baseline: Any,
    metrics: Iterable[str | Measure] | None = ("nDCG@10",),
    options: ScoringOptions | None = None,
    *,
    rule: GateOptions | None = None,
    source: SourceOptions | None = None,
) -> GateResult:
    """Gate a candidate (any source :func:`assay.evaluate` takes) against a baseline.

    ``baseline`` is an :class:`~assay.results.models.EvaluationResult`, an evaluation
    result file, a source scored like the candidate, or, from the history
    store ``rule.store``, ``"last"`` (the latest evaluation of the candidate's
    system on these judgments that was recorded on its own or passed a gate) or
    a run id. The candidate is scored with ``options``
    (:class:`~assay.procedures.options.ScoringOptions`); a baseline scored with
    another policy or on another judgment-set version is refused (the version
    unless ``options.allow_version_mismatch``; ``ignore_identical_ids`` as in
    :func:`assay.evaluate`, a baseline result must have been scored the same way).

    ``rule`` (:class:`~assay.procedures.procedure_options.GateOptions`) is the
    decision rule (``margin``, ``mode``, ``alpha``, slices ``by`` of at least
    ``min_n`` queries, ``correction``, default ``none``:
    :mod:`assay.procedures.gate_correction`). A candidate with more than
    ``rule.max_failed`` failed queries fails the gate whatever its scores
    (:mod:`assay.core.failures`). The candidate's evaluation travels with the result
    as :attr:`GateResult.candidate_evaluation` (not in its file).

    ``candidate`` may be ``None`` when ``source``
    (:class:`~assay.procedures.options.SourceOptions`) names the system to run;
    with ``source``, ``retries``, ``cache`` and ``max_failed`` come from it.
    """
    options = option_object(options, ScoringOptions, "options")
    rule = option_object(rule, GateOptions, "rule")
    if baseline is None or baseline == "":
        raise UsageError("`baseline` is required (a result file, 'last' or a run id)", "baseline")
    keywords = live_keywords(source, options)
    max_failed = failed_bound(source, rule.max_failed)
    mixed = "give either a RUN file or --system NAME (not both)"
    candidate = run_or_system(candidate, source, judgments, both=mixed, neither=mixed)
    metrics = ["nDCG@10"] if metrics is None else list(metrics)
    measures = parse_measures([m if isinstance(m, str) else m.name for m in metrics] or None)
    from_store = isinstance(baseline, str) and not Path(baseline).exists()
    given = isinstance(baseline, EvaluationResult) or from_store
    sources = [candidate] if given else [candidate, baseline]
    with executing(source):
        scored = evaluate_sources(
            judgments, sources, measures, **scoring_keywords(options), **keywords
        )
    base, base_id, origin = baseline, None, ""
    if from_store:
        base, base_id = resolve_baseline(
            baseline, rule.store, scored[0].run.name, scored[0].judgments.name
        )
        origin = f"run {base_id}" if base_id is not None else baseline
    elif not given:
        base, origin = scored[1], str(baseline) if isinstance(baseline, str | Path) else ""
    result = run_gate(
        scored[0],
        base,
        [m.name for m in measures],
        allow_version_mismatch=options.allow_version_mismatch,
        baseline_source=origin,
        **_rule_keywords(rule, max_failed),
    )
    result = result.model_copy(update={"baseline_run_id": base_id})
    result._candidate = scored[0]
    return result


def _rule_keywords(rule: GateOptions, max_failed: int) -> dict[str, Any]:
    """The keywords of :func:`run_gate` ``rule`` gives."""
    return dict(
        margin=rule.margin,
        mode=rule.mode,
        by=rule.by,
        min_n=rule.min_n,
        alpha=rule.alpha,
        seed=rule.seed,
        n_resamples=rule.n_resamples,
        max_failed=max_failed,
        correction=rule.correction or "none",
    )


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
    correction: str = "none",
) -> GateResult:
    """Gate ``candidate`` against ``baseline`` (both evaluation results); never mutates them.

    Raises :class:`UsageError` when the judgment-set versions differ (unless
    ``allow_version_mismatch``), the policies differ, a metric is missing, a
    ``by`` field is unknown or the results share no query. A candidate with
    more than ``max_failed`` failed queries fails the gate (:mod:`assay.core.failures`).
    """
    _validate(mode, margin, alpha, min_n, n_resamples, seed)
    correction = check_correction(correction, "none")
    if correction != "none" and mode == "threshold":
        raise UsageError("`correction` applies to the noninferiority mode only", "correction")
    names = list(dict.fromkeys(metrics))
    if not names:
        raise UsageError("give at least one metric (`metrics`)", "metrics")
    by_fields = list(dict.fromkeys(by))
    warnings = check_pairable(
        [baseline, candidate],
        ["baseline", "candidate"],
        allow_version_mismatch=allow_version_mismatch,
    )
    stat = dict(mode=mode, margin=margin, alpha=alpha, seed=seed, n_resamples=n_resamples)
    checks, common, unpaired = _paired_checks(candidate, baseline, names, by_fields, min_n, stat)
    checks = corrected(checks, correction, stat)
    if unpaired[0] or unpaired[1]:
        warnings.append(
            f"{unpaired[0]} candidate and {unpaired[1]} baseline queries have no partner "
            "and were left out"
        )
    failed = sorted(candidate.run.failed_queries)
    failed_check = too_many_failed(failed, max_failed, f"candidate {candidate.run.name}")
    if failed and failed_check is None:
        warnings.append(f"{len(failed)} candidate queries failed (accepted by max_failed)")
    result = _assemble(
        candidate,
        baseline,
        names,
        by_fields,
        checks,
        warnings,
        baseline_source,
        n_paired=len(common),
        unpaired=unpaired,
        stat=stat,
        min_n=min_n,
    )
    return result.model_copy(
        update={
            "failed_queries": failed,
            "max_failed": max_failed,
            "failed_check": failed_check,
            "passed": failed_check is None and result.passed,
            **correction_fields(result, correction, stat),
        }
    )


def _paired_checks(
    candidate: EvaluationResult,
    baseline: EvaluationResult,
    names: list[str],
    by_fields: list[str],
    min_n: int,
    stat: dict[str, Any],
) -> tuple[list[GateCheck], list[str], tuple[int, int]]:
    """Every metric's checks on the paired queries; the queries paired (of the last metric)
    and how many of the candidate's and of the baseline's had no partner."""
    checks: list[GateCheck] = []
    common: list[str] = []
    unpaired = (0, 0)
    for metric in names:
        crow = _rows(candidate, metric, "candidate")
        brow = _rows(baseline, metric, "baseline")
        common = [q for q in crow if q in brow]
        unpaired = (len(crow) - len(common), len(brow) - len(common))
        if not common:
            raise UsageError(
                "the candidate and the baseline share no query ids; "
                "were they scored on the same judgment set?"
            )
        checks += _metric_checks(metric, crow, brow, common, by_fields, min_n, stat)
    return checks, common, unpaired


def _metric_checks(
    metric: str,
    crow: dict[str, Any],
    brow: dict[str, Any],
    common: list[str],
    by_fields: list[str],
    min_n: int,
    stat: dict[str, Any],
) -> list[GateCheck]:
    """The check on all paired queries of one metric, then one per slice of each field."""
    checks = [
        check_pair(
            metric, [brow[q][metric] for q in common], [crow[q][metric] for q in common], **stat
        )
    ]
    for field in by_fields:
        if not any(field in crow[q] for q in common):
            raise UsageError(
                f"no metadata field {field!r} in the candidate's per-query rows; "
                "check `by` and the judgment set",
                "by",
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
    return checks


def _assemble(
    candidate: EvaluationResult,
    baseline: EvaluationResult,
    names: list[str],
    by_fields: list[str],
    checks: list[GateCheck],
    warnings: list[str],
    baseline_source: str,
    *,
    n_paired: int,
    unpaired: tuple[int, int],
    stat: dict[str, Any],
    min_n: int,
) -> GateResult:
    """The gate result: settings, checks, verdict and provenance of the candidate."""

    run = candidate.run
    cv, bv = candidate.judgments.version, baseline.judgments.version
    mode, alpha = stat["mode"], stat["alpha"]
    return GateResult(
        judgments_name=candidate.judgments.name,
        judgments_version=cv,
        baseline_judgments_version=bv,
        version_mismatch=cv != bv,
        candidate=run.name,
        candidate_config_hash=run.config_hash or (config_hash(run.system) if run.system else None),
        corpus_version=run.corpus_version,
        baseline=baseline.run.name,
        baseline_source=baseline_source,
        mode=mode,
        metrics=names,
        margin=stat["margin"],
        alpha=alpha,
        confidence=1.0 - 2.0 * alpha,
        seed=stat["seed"],
        n_resamples=stat["n_resamples"],
        by=by_fields,
        min_n=min_n,
        n_paired=n_paired,
        unpaired_candidate=unpaired[0],
        unpaired_baseline=unpaired[1],
        rule=decision_rule(mode, alpha, stat["margin"]),
        checks=checks,
        passed=all(c.passed for c in checks if c.gated),
        warnings=warnings,
        environment=dict(candidate.environment),
        policy=candidate.policy,
        policies=mean_decided_policies(
            [candidate.policies, baseline.policies],
            names,
            labels=[f"candidate {run.name}", f"baseline {baseline.run.name}"],
        ),
    )


def resolve_baseline(
    spec: str, store_url: str | None, system: str, judgments_name: str
) -> tuple[EvaluationResult, int | None]:
    """A baseline named by a result file, ``last`` or a store run id; with its run id.

    ``last`` is the store's latest evaluation of ``system`` on ``judgments_name``
    that was recorded on its own or passed a gate.
    """

    path = Path(spec)
    if spec != "last" and path.exists():
        return EvaluationResult.from_file(path), None
    if spec != "last" and not spec.isdigit():
        raise UsageError(
            f"`baseline` {spec!r}: not a result file, 'last', or a run id "
            "(a result file is written by assay evaluate -f json -o FILE)",
            "baseline",
        )

    with open_store(store_url, read_only=True) as store:  # a read-only store will do
        run_id = (
            int(spec) if spec.isdigit() else store.last_id(system=system, judgments=judgments_name)
        )
        if run_id is None:
            raise UsageError(
                f"`baseline` last: no recorded evaluation of {system!r} on "
                f"{judgments_name!r} in {store!r} that can serve as a baseline "
                "(candidates of failed gates never do); record one "
                "(assay evaluate --record) or pass a result file",
                "baseline",
            )
        result = store.get(run_id)
    if getattr(result, "kind", None) != "evaluation":
        raise UsageError(f"`baseline` {spec}: run {run_id} is not an evaluation result", "baseline")
    return result, run_id
