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

from assay.errors import UsageError
from assay.policies import check_policies
from assay.procedures.options import SourceOptions, takes_scoring_options

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure
    from assay.results import EvaluationResult
    from assay.stats.models import ComparisonResult
    from assay.systems.cache import RunCache


@takes_scoring_options
def compare(
    judgments: JudgmentSet | str | Path,
    runs: Sequence[Any] | Mapping[str, Any],
    metrics: Iterable[str | Measure] | None = None,
    *,
    baseline: str | int | Sequence[str | int] = 0,
    all_pairs: bool = False,
    by: Iterable[str] | str = (),
    test: str = "randomization",
    alpha: float = 0.05,
    seed: int = 0,
    n_permutations: int = 10000,
    n_resamples: int = 10000,
    ci_method: str = "percentile",
    top: int = 5,
    correction: str | None = None,
    overlap_k: int = 10,
    rbo_p: float = 0.9,
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
    systems: Sequence[str] = (),
    source: SourceOptions | None = None,
    queries: str | Path | None = None,
    split: str = "test",
) -> ComparisonResult:
    """Compare runs with a baseline on one judgment set: deltas, CIs, paired tests, corrections.

    ``runs`` is a list of sources, or a ``{name: source}`` mapping naming them;
    a source is anything :func:`assay.evaluate` takes, or an evaluation result
    file. Every run is scored with ``missing`` and ``ties``; result files must
    have been scored with the same policy and judgment-set version (and
    ``ignore_identical_ids``, see :func:`assay.evaluate`). ``baseline``
    is a name or an index (default: the first), or a list of them: each is
    compared with every other system, each pair once; ``all_pairs`` compares
    every pair of systems (:mod:`assay.stats.many`). The statistics' parameters are
    those of :func:`assay.stats.compare.compare`.

    ``systems`` names live systems compared after ``runs``, built and called
    as ``source`` (:class:`~assay.procedures.options.SourceOptions`) says;
    with ``source``, ``retries`` and ``cache`` come from it. ``queries`` and
    ``split`` are those of :func:`~assay.judgments.load.load_judgments`.
    ``correction`` is the multiple-testing correction of
    :mod:`assay.stats.corrections` (``None``: Holm). Where both sides are runs
    or systems (not result files), each candidate's overlap with the baseline is
    reported: RBO with persistence ``rbo_p`` and Jaccard@``overlap_k``.
    """
    from assay.procedures.live import executing, live_system, run_keywords
    from assay.stats.compare import compare as compare_results

    keywords = run_keywords(source, retries=retries, cache=cache)
    if systems or source is not None:
        if len(runs) + len(systems) < 2:
            raise UsageError(
                "compare needs at least two runs, result files or `system` options", "runs"
            )
        options = source if source is not None else SourceOptions()
        runs = [*_listed(runs), *(live_system(s, options, judgments) for s in systems)]
    elif len(runs) < 2:
        raise UsageError(f"compare needs at least two runs (got {len(runs)})", "runs")
    rankings: list[Any] = []
    with executing(source):
        results = evaluate_sources(
            judgments,
            runs,
            metrics,
            by=by,
            missing=missing,
            ties=ties,
            k=k,
            progress=progress,
            judgments_format=judgments_format,
            allow_version_mismatch=allow_version_mismatch,
            mix_synthetic=mix_synthetic,
            ignore_identical_ids=ignore_identical_ids,
            load={"queries": queries, "split": split} if queries is not None else {"split": split},
            keep_runs=rankings,
            **keywords,
        )
    slices = [by] if isinstance(by, str) else list(by)
    if "synthetic" in results[0].groups and "synthetic" not in slices:
        slices.append("synthetic")  # synthetic and people's queries are compared apart too
    return compare_results(
        results,
        baseline=baseline,
        metrics=[str(m) if isinstance(m, str) else m.name for m in metrics] if metrics else None,
        by=slices,
        test=test,
        alpha=alpha,
        seed=seed,
        n_permutations=n_permutations,
        n_resamples=n_resamples,
        ci_method=ci_method,
        allow_version_mismatch=allow_version_mismatch,
        top=top,
        correction=correction or "holm",
        all_pairs=all_pairs,
        rankings=rankings,
        overlap_k=overlap_k,
        rbo_p=rbo_p,
        ties=ties,
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
    from assay.metrics.measures import parse_measures
    from assay.procedures.arguments import as_judgments, check_k, synthetic_groups
    from assay.procedures.evaluation import score
    from assay.procedures.sources import is_result_file, load_source

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
