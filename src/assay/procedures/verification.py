"""Verification of a suite: a deliberately degraded system must score lower.

The suite passes when the degraded variant's mean is lower than the system's
and the paired randomization (sign-flip) test of the per-query differences
(:func:`assay.stats.significance.randomization_pvalues`, two-sided) gives
``p < alpha``. A suite that cannot tell a broken configuration apart from the
real one is not measuring what matters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from assay.core.bounds import level
from assay.core.errors import UsageError
from assay.core.policies import ScoringPolicy, check_policies, chosen_policies
from assay.metrics.measures import parse_measures
from assay.metrics.rules import mean_decided_policies
from assay.procedures.arguments import as_judgments, check_k
from assay.procedures.evaluation import score
from assay.procedures.live import executing, live_keywords, live_system
from assay.procedures.options import ScoringOptions, SourceOptions, option_object
from assay.procedures.procedure_options import PairedTestOptions
from assay.procedures.sources import Source, load_source
from assay.results.models import MIGRATIONS, EvaluationResult, Policy, ResultModel, check_pairable
from assay.runs.models import Run
from assay.stats.bootstrap import paired_bootstrap_ci
from assay.stats.significance import is_exact, randomization_pvalues

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure
    from assay.runs.models import Run

VERIFY_SCHEMA_VERSION = "2"
#: ``degraded`` value that shuffles the system's own ranking instead of a second system.
SHUFFLE = "shuffle"


class VerifyCheck(BaseModel):
    """One metric: the system against its degraded variant, paired by query."""

    metric: str
    n: int = Field(description="paired queries")
    system_mean: float
    degraded_mean: float
    delta: float = Field(description="degraded mean minus system mean")
    ci_low: float
    ci_high: float
    confidence: float = 0.95
    p_value: float
    p_value_method: str = ""
    passed: bool
    message: str


class VerifyResult(ResultModel):
    """Outcome of ``assay verify-suite`` (result kind ``verify``): one check per metric.

    The suite passes when every metric's degraded mean is significantly lower.
    """

    model_config = ConfigDict(extra="allow")

    schema_version: str = VERIFY_SCHEMA_VERSION
    kind: Literal["verify"] = "verify"
    judgments_name: str
    judgments_version: str
    system: str
    degraded: str
    metrics: list[str]
    alpha: float
    seed: int
    test: str = "randomization"
    policy: Policy = Field(default_factory=Policy)
    checks: list[VerifyCheck]
    passed: bool
    failed_queries: dict[str, list[str]] = Field(
        default_factory=dict, description="per run, the queries whose system call failed"
    )
    environment: dict[str, Any] = Field(default_factory=dict)
    policies: list[ScoringPolicy] = Field(
        default_factory=list,
        description="the scoring rules of both runs, marked where they differ from trec_eval",
    )

    @model_validator(mode="after")
    def _recorded_policies(self) -> Self:
        """A result written before ``policies`` existed gets the rules its ``policy`` records."""
        if "policies" not in self.model_fields_set:
            self.policies = chosen_policies(self.policy.missing, self.policy.ties)
        return self

    def failed_runs(self) -> list[tuple[str, list[str]]]:
        """The failed queries of the system's run and of the degraded one."""
        return [(name, list(ids)) for name, ids in self.failed_queries.items()]

    def exit_code(self) -> int:
        """1 unless the degraded variant scores significantly lower on every metric."""
        return 0 if self.passed else 1


def _from_v1(data: dict[str, Any]) -> dict[str, Any]:
    """Schema 1 held one metric's check at the top level; schema 2 lists checks."""
    fields = set(VerifyCheck.model_fields)
    check = {k: v for k, v in data.items() if k in fields}
    out = {k: v for k, v in data.items() if k not in fields or k == "passed"}
    out.update(schema_version="2", metrics=[data.get("metric", "")], checks=[check])
    return out


MIGRATIONS[("verify", "1")] = _from_v1


def shuffle_run(run: Run, seed: int = 0, *, name: str | None = None) -> Run:
    """A copy of ``run`` with each query's ranked list in seeded random order.

    The same documents are retrieved; only their order is lost. Scores are
    dropped so the shuffled order is the ranking.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    ranking: dict[str, list[str]] = {}
    for qid, items in run.to_dict().items():
        docs = [d for d, _ in items]
        ranking[qid] = [docs[i] for i in rng.permutation(len(docs))]
    return Run.from_dict(ranking, name=name or f"{run.name} (shuffled)")


def verify_suite(
    judgments: JudgmentSet | str | Path,
    system: Any,
    degraded: Any = SHUFFLE,
    metrics: Iterable[str | Measure] = ("nDCG@10",),
    options: ScoringOptions | None = None,
    *,
    statistics: PairedTestOptions | None = None,
    source: SourceOptions | None = None,
) -> VerifyResult:
    """Does a deliberately degraded variant of ``system`` score significantly lower?

    ``system`` and ``degraded`` are sources :func:`assay.evaluate` takes (a
    live system, a run file, a Run...); ``degraded="shuffle"`` shuffles the
    system's own ranked lists (seeded), which are then scored in the given order.
    Both are scored with ``options`` (:class:`~assay.procedures.options.ScoringOptions`)
    and tested with ``statistics``
    (:class:`~assay.procedures.procedure_options.PairedTestOptions`).
    With ``source`` (:class:`~assay.procedures.options.SourceOptions`), ``system``
    is ``source.system`` (give ``None``) and ``degraded`` a system name, both
    built and called as ``source`` says (``retries`` and ``cache`` from it).
    """
    options = option_object(options, ScoringOptions, "options")
    stats = option_object(statistics, PairedTestOptions, "statistics")
    check_policies(options.missing, options.ties)
    check_k(options.k)
    keywords: dict[str, Any] = dict(
        k=options.k,
        progress=options.progress,
        allow_version_mismatch=options.allow_version_mismatch,
        **live_keywords(source, options),
    )
    system, degraded = _live_pair(system, degraded, source, judgments)
    measures = parse_measures([m if isinstance(m, str) else m.name for m in metrics] or None)
    load = {"split": options.split}
    if options.queries is not None:
        load["queries"] = options.queries
    js = as_judgments(judgments, options.judgments_format, **load)

    def scored(loaded: Source) -> EvaluationResult:
        return score(
            loaded,
            js,
            measures,
            missing=options.missing,
            ties=options.ties,
            ignore_identical_ids=options.ignore_identical_ids,
        )

    with executing(source):
        ref_source = load_source(system, js, **keywords)
    reference = scored(ref_source)
    if isinstance(degraded, str) and degraded == SHUFFLE:
        worse = scored(_shuffled(ref_source, stats.seed))
    else:
        with executing(source):
            worse = scored(load_source(degraded, js, **keywords))
    return verify_results(
        reference,
        worse,
        [m.name for m in measures],
        alpha=stats.alpha,
        seed=stats.seed,
        n_permutations=stats.n_permutations,
        n_resamples=stats.n_resamples,
    )


def _shuffled(reference: Source, seed: int) -> Source:
    """The reference's run with each ranked list shuffled (seeded), as a source to score."""
    if reference.run is None:
        raise UsageError("`degraded` shuffle needs a run to shuffle, not a result file")
    shuffled = shuffle_run(
        reference.run, seed, name=f"{reference.run.name} (shuffled, seed {seed})"
    )
    provenance = reference.provenance.model_copy(update={"name": shuffled.name})
    # the shuffled run has no scores: its order is the ranking under either tie policy
    return Source(shuffled, provenance)


def _live_pair(
    system: Any, degraded: Any, source: SourceOptions | None, judgments: Any
) -> tuple[Any, Any]:
    """``system`` and ``degraded``, or with ``source`` the live systems they name."""
    if source is None:
        return system, degraded
    spec = source.system if system is None else system
    if not spec or not degraded:
        raise UsageError(
            "give `system` NAME and `degraded` NAME (or `degraded` shuffle)",
            "system" if not spec else "degraded",
        )
    built = live_system(spec, source, judgments) if isinstance(spec, str) else spec
    if not isinstance(degraded, str) or degraded == SHUFFLE:
        return built, degraded
    return built, live_system(degraded, source, judgments)


def verify_results(
    reference: EvaluationResult,
    degraded: EvaluationResult,
    metrics: Sequence[str] | str,
    *,
    alpha: float = 0.05,
    seed: int = 0,
    n_permutations: int = 10000,
    n_resamples: int = 10000,
) -> VerifyResult:
    """Decide, per metric, whether ``degraded`` scores significantly lower than ``reference``."""
    level("alpha", alpha)
    names = [metrics] if isinstance(metrics, str) else list(dict.fromkeys(metrics))
    if not names:
        raise UsageError("give at least one metric (`metrics`)", "metrics")
    for who, res in (("system", reference), ("degraded", degraded)):
        for metric in names:
            if metric not in res.metrics:
                raise UsageError(f"the {who} result has no metric {metric!r}", "metrics")
    if reference.judgments.version != degraded.judgments.version:
        raise UsageError("the system and the degraded variant were scored on different judgments")
    check_pairable([reference, degraded], ["system", "degraded"])
    stat = dict(alpha=alpha, seed=seed, n_permutations=n_permutations, n_resamples=n_resamples)
    checks = [_check(reference, degraded, metric, **stat) for metric in names]
    return VerifyResult(
        failed_queries={r.run.name: sorted(r.run.failed_queries) for r in (reference, degraded)},
        judgments_name=reference.judgments.name,
        judgments_version=reference.judgments.version,
        system=reference.run.name,
        degraded=degraded.run.name,
        metrics=names,
        alpha=alpha,
        seed=seed,
        policy=reference.policy,
        checks=checks,
        passed=all(c.passed for c in checks),
        environment=dict(reference.environment),
        policies=mean_decided_policies(
            [reference.policies, degraded.policies],
            names,
            "tested",
            labels=[f"system {reference.run.name}", f"degraded {degraded.run.name}"],
        ),
    )


def _check(
    reference: EvaluationResult,
    degraded: EvaluationResult,
    metric: str,
    *,
    alpha: float,
    seed: int,
    n_permutations: int,
    n_resamples: int,
) -> VerifyCheck:
    """One metric's paired randomization test and bootstrap CI, with the verdict in words."""
    import numpy as np

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
    passed = delta < 0 and p < alpha
    if delta >= 0:
        message = f"{numbers}: the degraded variant does not score lower; the suite fails"
    elif not passed:
        message = (
            f"{numbers}: lower, but not significant at alpha {alpha:g}; the suite cannot "
            "reliably tell a degraded system apart (add queries)"
        )
    else:
        message = f"{numbers}: significantly lower at alpha {alpha:g}; the suite passes"
    return VerifyCheck(
        metric=metric,
        n=int(a.size),
        system_mean=float(a.mean()),
        degraded_mean=float(b.mean()),
        delta=delta,
        ci_low=low,
        ci_high=high,
        p_value=p,
        p_value_method=method,
        passed=bool(passed),
        message=message,
    )
