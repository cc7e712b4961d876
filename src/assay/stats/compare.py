"""``compare``: evaluation results of several systems -> a :class:`ComparisonResult`.

Queries are paired by ``query_id`` (only queries present in every result are
used). For each candidate x metric the per-query differences (candidate minus
baseline) are tested, bootstrapped and Holm-adjusted together; a verdict other
than "no detectable difference" needs an adjusted p-value below ``alpha``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assay.errors import UsageError
from assay.stats.models import (
    BETTER,
    NO_DIFFERENCE,
    WORSE,
    ComparisonResult,
    MetricComparison,
    PairedQuery,
    PowerEstimate,
    QueryDelta,
    Settings,
    SliceComparison,
    SystemInfo,
    Verdict,
)

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from assay.results import EvaluationResult

#: Differences within this distance of 0 count as ties.
TIE_TOLERANCE = 1e-12
#: Separator of several tags in one metadata value.
TAG_SEPARATOR = ";"
#: Difference whose required query count is reported.
TARGET_DELTA = 0.02


def unique_names(names: Sequence[str]) -> list[str]:
    """Make names unique by suffixing repeats with ``#2``, ``#3``... (first kept)."""
    seen: dict[str, int] = {}
    taken = set(names)
    out = []
    for name in names:
        count = seen.get(name, 0) + 1
        seen[name] = count
        if count == 1:
            out.append(name)
            continue
        candidate = f"{name}#{count}"
        while candidate in taken:
            count += 1
            candidate = f"{name}#{count}"
        seen[name] = count
        taken.add(candidate)
        out.append(candidate)
    return out


def _baseline_index(baseline: str | int, names: list[str], run_names: list[str]) -> int:
    if isinstance(baseline, int) and not isinstance(baseline, bool):
        if not -len(names) <= baseline < len(names):
            raise UsageError(f"baseline index {baseline} is out of range (0..{len(names) - 1})")
        return baseline % len(names)
    for pool in (names, run_names):
        if baseline in pool:
            return pool.index(baseline)
    raise UsageError(f"unknown baseline {baseline!r}; systems are: {', '.join(names)}")


def _resolve_metrics(metrics: Sequence[str] | None, results: list[EvaluationResult]) -> list[str]:
    from assay.metrics.measures import parse_measure

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


def _verdict(delta: float, p_adjusted: float, alpha: float) -> Verdict:
    if p_adjusted < alpha and delta > TIE_TOLERANCE:
        return BETTER
    if p_adjusted < alpha and delta < -TIE_TOLERANCE:
        return WORSE
    return NO_DIFFERENCE


def _finite(value: Any) -> bool:
    import math

    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _slice_values(value: Any) -> list[str]:
    if value is None or (isinstance(value, float) and value != value):
        return ["(none)"]
    parts = [p.strip() for p in str(value).split(TAG_SEPARATOR)]
    return [p for p in parts if p] or ["(none)"]


def _stats_rows(
    diffs: np.ndarray,
    *,
    test: str,
    n_permutations: int,
    n_resamples: int,
    ci_method: str,
    seed: int,
) -> dict[str, Any]:
    """Per-row means, CIs, p-values, effect sizes and win/loss/tie counts."""
    import numpy as np

    from assay.progress import progress
    from assay.stats.bootstrap import bootstrap_ci_rows
    from assay.stats.power import effect_size
    from assay.stats.significance import paired_pvalues

    rows = int(diffs.shape[0])
    with progress("bootstrap CIs and paired tests", total=2 * rows, unit="steps") as tick:
        low, high = bootstrap_ci_rows(diffs, n_resamples=n_resamples, method=ci_method, seed=seed)
        tick(rows)
        p = paired_pvalues(
            diffs, test=test, n_permutations=n_permutations, n_resamples=n_resamples, seed=seed
        )
        tick(rows)
    return {
        "delta": diffs.mean(axis=1),
        "low": low,
        "high": high,
        "p": p,
        "effect": [effect_size(row) for row in diffs],
        "wins": (diffs > TIE_TOLERANCE).sum(axis=1),
        "losses": (diffs < -TIE_TOLERANCE).sum(axis=1),
        "ties": (np.abs(diffs) <= TIE_TOLERANCE).sum(axis=1),
    }


def _power(candidate: str, metric: str, d: np.ndarray) -> PowerEstimate:
    """Power figures for one row of differences; ``None`` where not estimable."""
    from assay.stats.power import SD_TOLERANCE, minimum_detectable_difference, queries_needed

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
    baseline: str | int = 0,
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
) -> ComparisonResult:
    """Compare each non-baseline result with the baseline, per metric and per slice.

    ``results`` come from :func:`assay.evaluation.evaluate` on the same judgment
    set (same ``judgments.version``; ``allow_version_mismatch=True`` proceeds
    anyway and records a warning). ``baseline`` is a system name or an index
    into ``results``. ``metrics`` defaults to the metrics every result has;
    ``by`` names per-query metadata fields to slice on (``;``-separated tags
    count in each tag's slice). ``test`` is ``randomization``, ``t``,
    ``wilcoxon`` or ``bootstrap``; CIs are ``ci_method`` (``percentile`` or
    ``bca``) bootstrap intervals of the mean difference at 95%. ``top`` queries
    with the largest losses and gains are listed per candidate x metric.
    """
    import numpy as np

    from assay.stats.bootstrap import METHODS
    from assay.stats.significance import TESTS, holm, is_exact

    results = list(results)
    if len(results) < 2:
        raise UsageError(f"compare needs at least two results (got {len(results)})")
    if test.lower() not in TESTS:
        raise UsageError(f"unknown test {test!r}; use one of {', '.join(TESTS)}")
    if ci_method.lower() not in METHODS:
        raise UsageError(f"unknown CI method {ci_method!r}; use one of {', '.join(METHODS)}")
    if not 0.0 < alpha < 1.0:
        raise UsageError(f"alpha must be between 0 and 1 (got {alpha})")
    if top < 0:
        raise UsageError(f"top must be 0 or more (got {top})")
    by = [by] if isinstance(by, str) else list(by)

    run_names = [r.run.name for r in results]
    names = unique_names(run_names)
    base = _baseline_index(baseline, names, run_names)
    warnings: list[str] = []

    versions = {r.judgments.version for r in results}
    mismatch = len(versions) > 1
    if mismatch:
        detail = ", ".join(
            f"{n}: {r.judgments.version}" for n, r in zip(names, results, strict=True)
        )
        if not allow_version_mismatch:
            raise UsageError(
                f"results were made on different judgment-set versions ({detail}); "
                "re-evaluate on one version or pass --allow-version-mismatch"
            )
        warnings.append(f"judgment-set versions differ ({detail}); compared anyway on request")

    metric_names = _resolve_metrics(metrics, results)
    order = [base] + [i for i in range(len(results)) if i != base]
    names = [names[i] for i in order]
    results = [results[i] for i in order]
    candidates = names[1:]

    # ---- pair queries by id (baseline order), keep finite values only
    rows_by_system = []
    for r in results:
        table: dict[str, dict[str, Any]] = {}
        for row in r.per_query:
            table.setdefault(str(row["query_id"]), row)
        rows_by_system.append(table)
    paired = [
        q
        for q in rows_by_system[0]
        if all(q in t for t in rows_by_system[1:])
        and all(_finite(t[q].get(m)) for t in rows_by_system for m in metric_names)
    ]
    if not paired:
        raise UsageError("the results share no query with finite values; nothing to compare")
    nonfinite = sum(1 for q in rows_by_system[0] if all(q in t for t in rows_by_system[1:])) - len(
        paired
    )
    if nonfinite:
        warnings.append(f"{nonfinite} shared queries left out: a metric value is missing or NaN")
    paired_set = set(paired)
    systems = []
    for name, r, table in zip(names, results, rows_by_system, strict=True):
        unpaired = sum(1 for q in table if q not in paired_set)
        systems.append(
            SystemInfo(
                name=name,
                run_name=r.run.name,
                path=r.run.path,
                judgments_version=r.judgments.version,
                queries=len(table),
                unpaired=unpaired,
            )
        )
        if unpaired:
            warnings.append(f"{name}: {unpaired} queries not in every system were left out")

    n_sys, n_met, n = len(results), len(metric_names), len(paired)
    values = np.array(
        [[[t[q][m] for q in paired] for m in metric_names] for t in rows_by_system], dtype=float
    )  # systems x metrics x queries
    diffs = (values[1:] - values[0:1]).reshape((n_sys - 1) * n_met, n)
    texts = [str(rows_by_system[0][q].get("text") or "") for q in paired]
    ranks = [[t[q].get("first_rel_rank") for q in paired] for t in rows_by_system]

    common = dict(
        test=test.lower(),
        n_permutations=n_permutations,
        n_resamples=n_resamples,
        ci_method=ci_method.lower(),
        seed=seed,
    )
    st = _stats_rows(diffs, **common)
    p_adj = holm(st["p"])

    comparisons = []
    power = []
    for ci, cand in enumerate(candidates):
        for mi, metric in enumerate(metric_names):
            row = ci * n_met + mi
            d = diffs[row]
            picks = np.argsort(d, kind="stable")

            def qd(j: int, ci: int = ci, mi: int = mi, d: np.ndarray = d) -> QueryDelta:
                return QueryDelta(
                    query_id=paired[j],
                    text=texts[j],
                    baseline=float(values[0, mi, j]),
                    candidate=float(values[ci + 1, mi, j]),
                    delta=float(d[j]),
                    baseline_rank=ranks[0][j],
                    candidate_rank=ranks[ci + 1][j],
                )

            losses = [qd(int(j)) for j in picks[:top] if d[j] < -TIE_TOLERANCE]
            gains = [qd(int(j)) for j in picks[::-1][:top] if d[j] > TIE_TOLERANCE]
            comparisons.append(
                MetricComparison(
                    candidate=cand,
                    metric=metric,
                    n=n,
                    baseline_mean=float(values[0, mi].mean()),
                    candidate_mean=float(values[ci + 1, mi].mean()),
                    delta=float(st["delta"][row]),
                    ci_low=float(st["low"][row]),
                    ci_high=float(st["high"][row]),
                    p_value=float(st["p"][row]),
                    p_adjusted=float(p_adj[row]),
                    effect_size=st["effect"][row],
                    verdict=_verdict(float(st["delta"][row]), float(p_adj[row]), alpha),
                    wins=int(st["wins"][row]),
                    losses=int(st["losses"][row]),
                    ties=int(st["ties"][row]),
                    top_losses=losses,
                    top_gains=gains,
                )
            )
            power.append(_power(cand, metric, d))

    slices, slice_values = _slices(
        by, paired, rows_by_system, diffs, values, candidates, metric_names, alpha, common
    )
    per_query = [
        PairedQuery(
            query_id=q,
            text=texts[j],
            slices={f: slice_values[f][j] for f in by},
            values={
                s: {m: float(values[si, mi, j]) for mi, m in enumerate(metric_names)}
                for si, s in enumerate(names)
            },
            deltas={
                c: {m: float(diffs[ci * n_met + mi, j]) for mi, m in enumerate(metric_names)}
                for ci, c in enumerate(candidates)
            },
            first_rel_rank={s: ranks[si][j] for si, s in enumerate(names)},
        )
        for j, q in enumerate(paired)
    ]

    if test.lower() == "randomization":
        how = (
            f"exact enumeration of all 2^{n} sign vectors"
            if is_exact(n, n_permutations)
            else f"Monte Carlo, {n_permutations} random sign vectors, p = (1 + hits) / "
            f"({n_permutations} + 1)"
        ) + "; slices use exact enumeration when 2^n <= permutations"
    else:
        how = {
            "t": "scipy.stats.ttest_rel, two-sided",
            "wilcoxon": "scipy.stats.wilcoxon, two-sided, zero differences dropped",
            "bootstrap": f"bootstrap of centred differences, {n_resamples} resamples, "
            "p = (1 + hits) / (B + 1)",
        }[test.lower()]
    first = results[0].judgments
    return ComparisonResult(
        judgments_name=first.name,
        judgments_version=first.version,
        version_mismatch=mismatch,
        baseline=names[0],
        systems=systems,
        metrics=metric_names,
        n_queries=n,
        settings=Settings(
            test=test.lower(),
            alpha=alpha,
            seed=seed,
            n_permutations=n_permutations,
            n_resamples=n_resamples,
            ci_method=ci_method.lower(),
            by=by,
            p_value_method=how,
        ),
        comparisons=comparisons,
        slices=slices,
        power=power,
        per_query=per_query,
        warnings=warnings,
    )


def _slices(
    by: list[str],
    paired: list[str],
    rows_by_system: list[dict[str, dict[str, Any]]],
    diffs: np.ndarray,
    values: np.ndarray,
    candidates: list[str],
    metric_names: list[str],
    alpha: float,
    common: dict[str, Any],
) -> tuple[list[SliceComparison], dict[str, list[str | None]]]:
    """Per-slice statistics (their own Holm family) and each query's raw slice value."""
    import numpy as np

    from assay.stats.significance import holm

    raw: dict[str, list[str | None]] = {}
    pending: list[tuple[str, str, np.ndarray, dict[str, Any]]] = []
    for field in by:
        found = [
            next((t[q][field] for t in rows_by_system if t[q].get(field) is not None), None)
            for q in paired
        ]
        if all(field not in t[q] for t in rows_by_system for q in paired):
            available = sorted(
                {
                    k
                    for k in rows_by_system[0][paired[0]]
                    if k not in metric_names and k not in ("query_id", "text", "first_rel_rank")
                }
            )
            raise UsageError(
                f"no per-query field {field!r} to slice by; fields: {', '.join(available)}"
            )
        raw[field] = [None if v is None else str(v) for v in found]
        labels: dict[str, list[int]] = {}
        for j, v in enumerate(found):
            for label in _slice_values(v):
                labels.setdefault(label, []).append(j)
        for label in sorted(labels):
            idx = np.array(labels[label])
            sub = diffs[:, idx]
            pending.append((field, label, idx, _stats_rows(sub, **common)))
    if not pending:
        return [], raw
    p_all = np.concatenate([st["p"] for *_, st in pending])
    p_adj = holm(p_all)
    n_met = len(metric_names)
    out = []
    k = 0
    for field, label, idx, st in pending:
        for ci, cand in enumerate(candidates):
            for mi, metric in enumerate(metric_names):
                row = ci * n_met + mi
                delta = float(st["delta"][row])
                out.append(
                    SliceComparison(
                        field=field,
                        value=label,
                        candidate=cand,
                        metric=metric,
                        n=int(idx.size),
                        baseline_mean=float(values[0, mi, idx].mean()),
                        candidate_mean=float(values[ci + 1, mi, idx].mean()),
                        delta=delta,
                        ci_low=float(st["low"][row]),
                        ci_high=float(st["high"][row]),
                        p_value=float(st["p"][row]),
                        p_adjusted=float(p_adj[k + row]),
                        effect_size=st["effect"][row],
                        verdict=_verdict(delta, float(p_adj[k + row]), alpha),
                        wins=int(st["wins"][row]),
                        losses=int(st["losses"][row]),
                        ties=int(st["ties"][row]),
                    )
                )
        k += len(st["p"])
    return out, raw
