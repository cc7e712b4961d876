"""``compare``: judgments + several runs (or systems, or result files) -> a comparison.

What ranx's ``compare`` does, with assay's evidence: every source goes through
the one source path and is scored with one policy, results that cannot be
paired (another judgment-set version or policy) are refused, and
:func:`assay.stats.compare.compare` pairs, tests and assembles.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError
from assay.core.policies import check_policies
from assay.metrics.measures import parse_measures
from assay.procedures.arguments import as_judgments, check_k, synthetic_groups
from assay.procedures.evaluation import score
from assay.procedures.live import executing, live_keywords, live_system
from assay.procedures.options import ScoringOptions, SourceOptions, option_object
from assay.procedures.procedure_options import ComparisonOptions
from assay.procedures.sources import is_result_file, load_source
from assay.stats.compare import compare as compare_results

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure
    from assay.results.models import EvaluationResult
    from assay.stats.models import ComparisonResult
    from assay.systems.cache import RunCache


def compare(
    judgments: JudgmentSet | str | Path,
    runs: Sequence[Any] | Mapping[str, Any],
    metrics: Iterable[str | Measure] | None = None,
    options: ScoringOptions | None = None,
    *,
    comparison: ComparisonOptions | None = None,
    source: SourceOptions | None = None,
    systems: Sequence[str] = (),
) -> ComparisonResult:
    """Compare runs with a baseline on one judgment set: deltas, CIs, paired tests, corrections.

    ``runs`` is a list of sources, or a ``{name: source}`` mapping naming them;
    a source is anything :func:`assay.evaluate` takes, or an evaluation result
    file. Every run is scored with ``options``
    (:class:`~assay.procedures.options.ScoringOptions`: ``missing``, ``ties``...);
    result files must have been scored with the same policy and judgment-set
    version (and ``ignore_identical_ids``, see :func:`assay.evaluate`).

    ``comparison`` (:class:`~assay.procedures.procedure_options.ComparisonOptions`)
    says how: ``baseline`` is a name or an index (default: the first), or a list
    of them: each is compared with every other system, each pair once;
    ``all_pairs`` compares every pair of systems (:mod:`assay.stats.many`); ``by``
    names the slices. The statistics' parameters are those of
    :func:`assay.stats.compare.compare`; ``correction`` is the multiple-testing
    correction of :mod:`assay.stats.corrections` (``None``: Holm). Where both
    sides are runs or systems (not result files), each candidate's overlap with
    the baseline is reported: RBO with persistence ``rbo_p`` and
    Jaccard@``overlap_k``.

    ``systems`` names live systems compared after ``runs``, built and called
    as ``source`` (:class:`~assay.procedures.options.SourceOptions`) says;
    with ``source``, ``retries`` and ``cache`` come from it.
    """
    options = option_object(options, ScoringOptions, "options")
    settings = option_object(comparison, ComparisonOptions, "comparison")
    runs = _sources(judgments, runs, systems, source)
    rankings: list[Any] = []
    with executing(source):
        results = evaluate_sources(
            judgments,
            runs,
            metrics,
            by=settings.by,
            keep_runs=rankings,
            **scoring_keywords(options),
            **live_keywords(source, options),
        )
    slices = list(settings.by)
    if "synthetic" in results[0].groups and "synthetic" not in slices:
        slices.append("synthetic")  # synthetic and people's queries are compared apart too
    return compare_results(
        results,
        metrics=[str(m) if isinstance(m, str) else m.name for m in metrics] if metrics else None,
        by=slices,
        allow_version_mismatch=options.allow_version_mismatch,
        rankings=rankings,
        ties=options.ties,
        **_statistics(settings),
    )


def _sources(
    judgments: Any,
    runs: Sequence[Any] | Mapping[str, Any],
    systems: Sequence[str],
    source: SourceOptions | None,
) -> Sequence[Any] | Mapping[str, Any]:
    """``runs``, then the live ``systems`` ``source`` builds; at least two in all."""
    if systems or source is not None:
        if len(runs) + len(systems) < 2:
            raise UsageError(
                "compare needs at least two runs, result files or `system` options", "runs"
            )
        options = source if source is not None else SourceOptions()
        return [*_listed(runs), *(live_system(s, options, judgments) for s in systems)]
    if len(runs) < 2:
        raise UsageError(f"compare needs at least two runs (got {len(runs)})", "runs")
    return runs


def scoring_keywords(options: ScoringOptions) -> dict[str, Any]:
    """The keywords of :func:`evaluate_sources` ``options`` give (not the live run's:
    :func:`~assay.procedures.live.live_keywords`)."""
    load: dict[str, Any] = {"split": options.split}
    if options.queries is not None:
        load = {"queries": options.queries, "split": options.split}
    return dict(
        missing=options.missing,
        ties=options.ties,
        k=options.k,
        progress=options.progress,
        judgments_format=options.judgments_format,
        allow_version_mismatch=options.allow_version_mismatch,
        mix_synthetic=options.mix_synthetic,
        ignore_identical_ids=options.ignore_identical_ids,
        load=load,
    )


def _statistics(settings: ComparisonOptions) -> dict[str, Any]:
    """The keywords of :func:`assay.stats.compare.compare` ``settings`` give."""
    return dict(
        baseline=settings.baseline,
        test=settings.test,
        alpha=settings.alpha,
        seed=settings.seed,
        n_permutations=settings.n_permutations,
        n_resamples=settings.n_resamples,
        ci_method=settings.ci_method,
        top=settings.top,
        correction=settings.correction or "holm",
        all_pairs=settings.all_pairs,
        overlap_k=settings.overlap_k,
        rbo_p=settings.rbo_p,
    )


def _listed(runs: Sequence[Any] | Mapping[str, Any]) -> list[Any]:
    if isinstance(runs, Mapping):
        raise UsageError("give `runs` as a list when `system` options are given too", "runs")
    return list(runs)


def evaluate_sources(
    judgments: JudgmentSet | str | Path,
    runs: Sequence[Any] | Mapping[str, Any],
    metrics: Iterable[str | Measure] | None = None,
    *,
    by: Iterable[str] | str = (),
    missing: str = "zero",
    ties: str = "score",
    k: int = 100,
    progress: bool = False,
    retries: int | None = None,
    cache: RunCache | str | Path | bool | None = None,
    judgments_format: str | None = None,
    allow_version_mismatch: bool = False,
    mix_synthetic: bool = False,
    ignore_identical_ids: bool = False,
    max_consecutive_failures: int | None = None,
    load: Mapping[str, Any] | None = None,
    keep_runs: list[Any] | None = None,
) -> list[EvaluationResult]:
    """One evaluation result per source, in order, all scored with one policy.

    Result files are read as they are (their policy is checked when paired);
    the judgments are loaded only when some source needs scoring (``load``:
    the keywords of :func:`~assay.procedures.arguments.as_judgments`).
    ``keep_runs``, a list, receives each source's run (``None`` for a result file).
    """
    check_policies(missing, ties)
    check_k(k)
    named = list(runs.items()) if isinstance(runs, Mapping) else [(None, r) for r in runs]
    measures = parse_measures(list(metrics) if metrics is not None else None)
    by_fields = [by] if isinstance(by, str) else list(by)
    js: JudgmentSet | None = None
    results: list[EvaluationResult] = []
    for label, run in named:
        if not (isinstance(run, str | Path) and is_result_file(Path(run))) and js is None:
            js = as_judgments(judgments, judgments_format, **(load or {}))
            by_fields = synthetic_groups(js, by_fields, mix_synthetic)
        source = load_source(
            run,
            js,  # type: ignore[arg-type]  (None only for result files, which need no judgments)
            k=k,
            name=label,
            progress=progress,
            retries=retries,
            cache=cache,
            allow_version_mismatch=allow_version_mismatch,
            allow_results=True,
            max_consecutive_failures=max_consecutive_failures,
        )
        if keep_runs is not None:
            keep_runs.append(source.run)
        result = score(
            source,
            js,  # type: ignore[arg-type]
            measures,
            by_fields,
            missing=missing,
            ties=ties,
            ignore_identical_ids=ignore_identical_ids,
        )
        if label is not None and result.run.name != label:
            result = result.model_copy(
                update={"run": result.run.model_copy(update={"name": label})}
            )
        results.append(result)
    return results
