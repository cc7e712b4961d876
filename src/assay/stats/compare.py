"""``compare``: evaluation results of several systems -> a :class:`ComparisonResult`.

Queries are paired by ``query_id`` (only queries present in every result are
used). For each candidate x metric the per-query differences (candidate minus
baseline) are tested, bootstrapped and adjusted together (one family; Holm
unless ``correction`` names another method of :mod:`assay.stats.corrections`);
a verdict other than no detectable difference needs an adjusted p-value below
``alpha``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from assay.core.bounds import level
from assay.core.errors import UsageError
from assay.core.policies import merge_policies
from assay.metrics.measures import parse_measure
from assay.results.models import check_pairable
from assay.stats.bootstrap import METHODS
from assay.stats.corrections import adjust, check_correction
from assay.stats.many import baseline_index, compare_many, unique_names
from assay.stats.models import (
    ComparisonResult,
    MetricComparison,
    PowerEstimate,
    QueryDelta,
    Settings,
    SystemInfo,
)
from assay.stats.overlap import candidate_overlaps
from assay.stats.paired import PairedColumns
from assay.stats.pairing import column_values, pair_results
from assay.stats.power import (
    SD_TOLERANCE,
    minimum_detectable_difference,
    queries_needed,
)
from assay.stats.significance import TESTS, p_value_method
from assay.stats.slices import slice_comparisons, stats_rows
from assay.stats.summary import paired_row
from assay.stats.verdict import TIE_TOLERANCE

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from assay.results.models import EvaluationResult
    from assay.runs.models import Run

#: Difference whose required query count is reported.
TARGET_DELTA = 0.02


def _resolve_metrics(metrics: Sequence[str] | None, results: list[EvaluationResult]) -> list[str]:

    common = [m for m in results[0].metrics if all(m in r.metrics for r in results[1:])]
    if not metrics:
        if not common:
            raise UsageError("the results share no metric; evaluate them with the same -m options")
        return common
    out: list[str] = []
    for raw in metrics:
        name = raw if raw in common else None
        if name is None:
            try:
                canon = parse_measure(raw).name
            except UsageError:
                canon = raw
            name = canon if canon in common else None
        if name is None:
            lacking = [r.run.name for r in results if raw not in r.metrics]
            raise UsageError(
                f"metric {raw!r} is not in every result (missing from: {', '.join(lacking)}); "
                f"metrics in all results: {', '.join(common) or 'none'}"
            )
        if name not in out:
            out.append(name)
    return out


def _power(candidate: str, metric: str, d: np.ndarray) -> PowerEstimate:
    """Power figures for one row of differences; ``None`` where not estimable."""

    n = int(d.size)
    sd = float(d.std(ddof=1)) if n > 1 else None
    reason = None
    if sd is None:
        reason = "fewer than 2 queries"
    elif sd <= SD_TOLERANCE:
        differs = bool((abs(d) > TIE_TOLERANCE).any())
        reason = "every query differs by the same amount" if differs else "no query differs"
    return PowerEstimate(
        candidate=candidate,
        metric=metric,
        n=n,
        sd_diff=sd,
        min_detectable_delta=None if reason else minimum_detectable_difference(sd or 0.0, n),
        target_delta=TARGET_DELTA,
        queries_needed=None if reason else queries_needed(sd or 0.0, TARGET_DELTA),
        not_estimable=reason,
    )


def compare(
    results: Sequence[EvaluationResult],
    *,
    baseline: str | int | Sequence[str | int] = 0,
    metrics: Sequence[str] | None = None,
    by: Sequence[str] | str = (),
    test: str = "randomization",
    alpha: float = 0.05,
    seed: int = 0,
    n_permutations: int = 10000,
    n_resamples: int = 10000,
    ci_method: str = "percentile",
    allow_version_mismatch: bool = False,
    top: int = 5,
    correction: str = "holm",
    rankings: Sequence[Run | None] | None = None,
    overlap_k: int = 10,
    rbo_p: float = 0.9,
    ties: str = "score",
    all_pairs: bool = False,
) -> ComparisonResult:
    """Compare each non-baseline result with the baseline, per metric and per slice.

    ``results`` come from :func:`assay.evaluate` on the same judgment set (same
    ``judgments.version`` and policy; ``allow_version_mismatch=True`` proceeds
    on other versions and records a warning). ``baseline`` is a system name or
    an index into ``results``. ``metrics`` defaults to the metrics every result
    has; ``by`` names per-query metadata fields to slice on (``;``-separated
    tags count in each tag's slice). ``test`` is ``randomization``, ``t``,
    ``wilcoxon`` or ``bootstrap``; CIs are ``ci_method`` (``percentile`` or
    ``bca``) bootstrap intervals of the mean difference at 95%. ``top`` queries
    with the largest losses and gains are listed per candidate x metric.
    ``correction`` adjusts the p-values of the family (every candidate x
    metric; the slices form a family of their own): one of
    :data:`assay.stats.corrections.CORRECTIONS`. ``rankings`` (the runs behind
    ``results``, ``None`` for a result file) add each candidate's overlap with
    the baseline (:mod:`assay.stats.overlap`: RBO with persistence ``rbo_p``,
    Jaccard@``overlap_k``, lists ordered by ``ties``). Several ``baseline``
    values (a list), or ``all_pairs``, compare with each baseline in turn, every
    pair once, the family being every row of every pair (:mod:`assay.stats.many`).
    The steps: check the inputs, pair the queries, test, assemble.
    """
    if all_pairs or not isinstance(baseline, str | int):
        settings = {k: v for k, v in locals().items() if k not in ("results", "baseline")}

        return compare_many(compare, results, baseline, settings)
    by = [by] if isinstance(by, str) else list(by)
    _check_settings(len(results), test, ci_method, alpha, top)
    correction = check_correction(correction)
    ordered, names, metric_names, warnings, order = _order_inputs(
        list(results), baseline, metrics, allow_version_mismatch
    )
    pairs = _pair(ordered, names, metric_names, warnings, by)
    common = dict(
        test=test.lower(),
        n_permutations=n_permutations,
        n_resamples=n_resamples,
        ci_method=ci_method.lower(),
        seed=seed,
    )
    comparisons, power = _test(pairs, names[1:], metric_names, alpha, top, common, correction)
    slices, slice_values = slice_comparisons(
        by,
        pairs.queries,
        pairs.rows,
        pairs.diffs,
        pairs.values,
        names[1:],
        metric_names,
        alpha,
        common,
        correction=correction,
    )
    return _assemble(
        ordered, names, metric_names, pairs, by, slice_values, warnings,
        comparisons=comparisons, slices=slices, power=power, common=common,
        settings=(alpha, correction, n_permutations, n_resamples),
        overlap=candidate_overlaps(rankings, order, names, pairs.queries, (overlap_k, rbo_p, ties)),
    )  # fmt: skip


def _assemble(
    ordered: list[EvaluationResult],
    names: list[str],
    metric_names: list[str],
    pairs: Any,
    by: list[str],
    slice_values: Any,
    warnings: list[str],
    *,
    comparisons: Any,
    slices: Any,
    power: Any,
    common: dict[str, Any],
    settings: tuple[float, str, int, int],
    overlap: Any,
) -> ComparisonResult:
    """Step 4: the comparison result, its settings and the paired per-query rows."""
    alpha, correction, n_permutations, n_resamples = settings
    first = ordered[0].judgments
    return ComparisonResult(
        judgments_name=first.name,
        judgments_version=first.version,
        version_mismatch=len({r.judgments.version for r in ordered}) > 1,
        baseline=names[0],
        systems=pairs.systems,
        metrics=metric_names,
        n_queries=len(pairs.queries),
        settings=Settings(
            **common,
            alpha=alpha,
            adjustment=correction,
            by=by,
            p_value_method=p_value_method(
                common["test"], len(pairs.queries), n_permutations, n_resamples
            ),
        ),
        comparisons=comparisons,
        slices=slices,
        power=power,
        overlap=overlap,
        per_query=_paired_queries(pairs, names, metric_names, by, slice_values),
        warnings=warnings,
        policies=merge_policies([r.policies for r in ordered], names),
    )


def _check_settings(n_results: int, test: str, ci_method: str, alpha: float, top: int) -> None:
    """Step 1a: the settings are known and in range."""

    if n_results < 2:
        raise UsageError(f"compare needs at least two results (got {n_results})")
    if test.lower() not in TESTS:
        raise UsageError(f"unknown `test` {test!r}; use one of {', '.join(TESTS)}", "test")
    if ci_method.lower() not in METHODS:
        raise UsageError(
            f"unknown CI method {ci_method!r}; use one of {', '.join(METHODS)}", "ci_method"
        )
    level("alpha", alpha)
    if top < 0:
        raise UsageError(f"`top` must be 0 or more (got {top})", "top")


def _order_inputs(
    results: list[EvaluationResult],
    baseline: str | int,
    metrics: Sequence[str] | None,
    allow_version_mismatch: bool,
) -> tuple[list[EvaluationResult], list[str], list[str], list[str], list[int]]:
    """Step 1b: results can be paired; baseline first; unique names; the metrics compared."""

    run_names = [r.run.name for r in results]
    names = unique_names(run_names)
    base = baseline_index(baseline, names, run_names)
    warnings = check_pairable(results, names, allow_version_mismatch=allow_version_mismatch)
    metric_names = _resolve_metrics(metrics, results)
    order = [base] + [i for i in range(len(results)) if i != base]
    ordered = [results[i] for i in order]
    return ordered, [names[i] for i in order], metric_names, warnings, order


@dataclass
class _Pairs:
    """Queries shared by every system, with their values and differences to the baseline."""

    queries: list[str]
    rows: list[dict[str, Any]]
    systems: list[SystemInfo]
    values: np.ndarray  # systems x metrics x queries
    diffs: np.ndarray  # (candidates x metrics) x queries
    texts: list[str]
    ranks: list[list[Any]]


def _pair(
    results: list[EvaluationResult],
    names: list[str],
    metric_names: list[str],
    warnings: list[str],
    by: Sequence[str] = (),
) -> _Pairs:
    """Step 2: pair queries by id (baseline order), keeping finite values only.

    Pairing runs over the per-query columns (:mod:`assay.stats.pairing`); rows
    are built only for the ``by`` fields of slices.
    """

    found = pair_results(results, metric_names)
    n = len(found.rows[0])
    if not n:
        raise UsageError("the results share no query with finite values; nothing to compare")
    if found.shared > n:
        warnings.append(
            f"{found.shared - n} shared queries left out: a metric value is missing or NaN"
        )
    systems = []
    for name, r, unique in zip(names, results, found.unique, strict=True):
        unpaired = unique - n
        systems.append(
            SystemInfo(
                name=name,
                run_name=r.run.name,
                path=r.run.path,
                judgments_version=r.judgments.version,
                queries=unique,
                unpaired=unpaired,
                failed_queries=sorted(r.run.failed_queries),
            )
        )
        if unpaired:
            warnings.append(f"{name}: {unpaired} queries not in every system were left out")
    values = found.values
    diffs = (values[1:] - values[0:1]).reshape((len(results) - 1) * len(metric_names), n)
    queries = column_values(results[0], "query_id", found.rows[0])
    rows: list[dict[str, Any]] = []
    if by:  # slices read their fields from rows
        rows = [
            dict(zip(queries, r.per_query_table().rows_at(ix), strict=True))
            for r, ix in zip(results, found.rows, strict=True)
        ]
    return _Pairs(
        queries=queries,
        rows=rows,
        systems=systems,
        values=values,
        diffs=diffs,
        texts=[t or "" for t in column_values(results[0], "text", found.rows[0])],
        ranks=[
            column_values(r, "first_rel_rank", ix)
            for r, ix in zip(results, found.rows, strict=True)
        ],
    )


def _test(
    pairs: _Pairs,
    candidates: list[str],
    metric_names: list[str],
    alpha: float,
    top: int,
    common: dict[str, Any],
    correction: str = "holm",
) -> tuple[list[MetricComparison], list[PowerEstimate]]:
    """Step 3: test every candidate x metric row (one family, adjusted by ``correction``),
    with power figures."""

    st = stats_rows(pairs.diffs, **common)
    p_adj = adjust(st["p"], correction)
    n_met = len(metric_names)
    comparisons, power = [], []
    for ci, cand in enumerate(candidates):
        for mi, metric in enumerate(metric_names):
            row = ci * n_met + mi
            losses, gains = _extremes(pairs, ci, mi, row, top)
            figures = paired_row(
                metric, pairs.values[0, mi], pairs.values[ci + 1, mi], st, p_adj, row, alpha
            )
            comparisons.append(
                MetricComparison(
                    candidate=cand,
                    metric=metric,
                    n=len(pairs.queries),
                    **figures,
                    top_losses=losses,
                    top_gains=gains,
                )
            )
            power.append(_power(cand, metric, pairs.diffs[row]))
    return comparisons, power


def _extremes(
    pairs: _Pairs, ci: int, mi: int, row: int, top: int
) -> tuple[list[QueryDelta], list[QueryDelta]]:
    """The ``top`` largest losses and gains of one candidate x metric row."""
    import numpy as np

    d = pairs.diffs[row]
    picks = np.argsort(d, kind="stable")

    def qd(j: int) -> QueryDelta:
        return QueryDelta(
            query_id=pairs.queries[j],
            text=pairs.texts[j],
            baseline=float(pairs.values[0, mi, j]),
            candidate=float(pairs.values[ci + 1, mi, j]),
            delta=float(d[j]),
            baseline_rank=pairs.ranks[0][j],
            candidate_rank=pairs.ranks[ci + 1][j],
        )

    losses = [qd(int(j)) for j in picks[:top] if d[j] < -TIE_TOLERANCE]
    gains = [qd(int(j)) for j in picks[::-1][:top] if d[j] > TIE_TOLERANCE]
    return losses, gains


def _paired_queries(
    pairs: _Pairs,
    names: list[str],
    metric_names: list[str],
    by: list[str],
    slice_values: dict[str, list[str | None]],
) -> PairedColumns:
    """Step 4: every paired query with each system's values and each candidate's deltas,
    as columns (views of the paired arrays)."""
    n_met = len(metric_names)
    values, diffs = pairs.values, pairs.diffs
    return PairedColumns(
        pairs.queries,
        pairs.texts,
        {f: slice_values[f] for f in by},
        {s: {m: values[si, mi] for mi, m in enumerate(metric_names)} for si, s in enumerate(names)},
        {
            c: {m: diffs[ci * n_met + mi] for mi, m in enumerate(metric_names)}
            for ci, c in enumerate(names[1:])
        },
        {s: pairs.ranks[si] for si, s in enumerate(names)},
    )
