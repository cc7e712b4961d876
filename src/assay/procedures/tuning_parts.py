"""The steps of ``tune`` after the runs: score each run per query, deal the folds, choose per
fold, build the cross-validated run, compare it with the system as configured, assemble."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.core.errors import UsageError
from assay.metrics.measures import parse_measures
from assay.procedures.scoring import score_run
from assay.runs.models import Run
from assay.stats.compare import compare
from assay.stats.corrections import check_correction
from assay.tuning import folds
from assay.tuning.result import FoldChoice, GridPoint, Recommended, TuningResult

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from assay.judgments.models import JudgmentSet
    from assay.procedures.options import ScoringOptions
    from assay.procedures.tuning import TuneOptions
    from assay.results.models import EvaluationResult
    from assay.runs.models import Run
    from assay.stats.models import ComparisonResult
    from assay.tuning.folds import FoldOutcome
    from assay.tuning.result import TuningResult


def read_by(js: JudgmentSet, field: str | None, query_ids: list[str]) -> list[str] | None:
    """Each query's value of ``field`` (the strata of the folds), or ``None`` without one."""
    if field is None:
        return None
    if field not in js.queries.columns:
        fields = [c for c in js.queries.columns if c not in ("text", "no_answer")]
        raise UsageError(
            f"--by {field}: the queries have no such field (they have: {', '.join(fields)})",
            "--by",
        )
    column = js.queries[field]
    return ["" if column.get(q) is None else str(column.get(q)) for q in query_ids]


def per_query(
    evaluations: list[EvaluationResult], names: list[str]
) -> tuple[list[str], np.ndarray]:
    """The queries every run scored (finite values, the first run's order) and
    ``values[set, measure, query]`` of the runs after the first."""
    import numpy as np

    frames = [e.per_query_frame()[names] for e in evaluations]
    finite = np.ones(len(frames[0]), dtype=bool)
    qids = [str(q) for q in frames[0].index]
    for frame in frames:
        aligned = frame.reindex(frames[0].index).to_numpy(dtype=np.float64)
        finite &= np.isfinite(aligned).all(axis=1)
    kept = [q for q, ok in zip(qids, finite, strict=True) if ok]
    if not kept:
        raise UsageError("no query has a finite value in every run; nothing to tune on")
    values = np.stack(
        [f.set_axis([str(q) for q in f.index]).loc[kept].to_numpy(np.float64).T for f in frames[1:]]
    )
    return kept, values


def cross_validated_run(
    runs: list[Run], outcomes: list[FoldOutcome], qids: list[str], name: str
) -> Run:
    """Each held-out query answered by the run of the set its fold chose."""
    import pandas as pd

    parts = []
    for o in outcomes:
        frame = runs[o.chosen].frame
        held = {qids[i] for i in o.queries}
        part = frame[frame["query_id"].astype(str).isin(held)]
        parts.append(part.astype({"query_id": str, "doc_id": str}))
    frame = pd.concat(parts, ignore_index=True)
    scored = all(runs[o.chosen].has_scores for o in outcomes)
    return Run(frame, name=name, has_scores=scored)


def held_out_comparison(
    results: list[EvaluationResult], names: list[str], options: TuneOptions
) -> ComparisonResult:
    """The configured system (first) against the cross-validated run, by the code of
    ``assay compare`` (one family over the measures, adjusted by ``options.correction``)."""

    return compare(
        results,
        metrics=names,
        test=options.test,
        alpha=options.alpha,
        seed=options.seed,
        n_permutations=options.n_permutations,
        n_resamples=options.n_resamples,
        ci_method=options.ci_method,
        correction=check_correction(options.correction),
    )


def assemble(
    js: JudgmentSet,
    builder: Any,
    sets: list[dict[str, Any]],
    space_: dict[str, list[Any]],
    outcomes: list[tuple[Any, bool]],
    options: TuneOptions,
    scoring: ScoringOptions,
) -> TuningResult:
    """Score, cross-validate, compare and assemble the :class:`TuningResult`."""

    measures = parse_measures(list(options.metrics))
    names = [m.name for m in measures]
    policy = {"missing": scoring.missing, "ties": scoring.ties}
    evaluations = [score_run(o.run, js, measures, **policy) for o, _ in outcomes]
    qids, values = per_query(evaluations, names)
    fold_of = folds.deal(len(qids), options.folds, options.seed, read_by(js, options.by, qids))
    chosen = folds.cross_validate(values, fold_of)
    system = builder.source.system
    runs = [o.run for o, _ in outcomes[1:]]
    tuned = cross_validated_run(runs, chosen, qids, f"{system} (tuned, cross-validated)")
    base = outcomes[0][0].run
    base = type(base)(base.frame, name=f"{system} (as configured)", has_scores=base.has_scores)
    pair = [score_run(run, js, measures, **policy) for run in (base, tuned)]
    return TuningResult(
        system=str(system),
        system_type=builder.type_name,
        judgments_name=js.name,
        judgments_version=js.version,
        objective=names[0],
        metrics=names,
        parameters=space_,
        search=options.search,
        n_folds=options.folds,
        seed=options.seed,
        by=options.by,
        n_queries=len(qids),
        **_choices(sets, names, values, chosen, qids, [c for _, c in outcomes[1:]]),
        held_out=held_out_comparison(pair, names, options),
        computed=sum(1 for _, c in outcomes if not c),
        cached=sum(1 for _, c in outcomes if c),
    )


def _choices(
    sets: list[dict[str, Any]],
    names: list[str],
    values: np.ndarray,
    chosen: list[FoldOutcome],
    qids: list[str],
    cached: list[bool],
) -> dict[str, Any]:
    """The ``grid``, ``folds``, ``optimism`` and ``recommended`` fields."""
    import numpy as np

    means = np.nanmean(values, axis=2)
    best = folds.best(means[:, 0])
    honest = np.zeros(len(names))
    for o in chosen:  # each query scored by the set its fold chose without it
        honest += values[o.chosen][:, o.queries].sum(axis=1)
    return {
        "grid": [
            GridPoint(params=p, means=dict(zip(names, map(float, row), strict=True)), cached=c)
            for p, row, c in zip(sets, means, cached, strict=True)
        ],
        "folds": [
            FoldChoice(
                fold=o.fold,
                queries=[qids[i] for i in o.queries],
                chosen=sets[o.chosen],
                chosen_index=o.chosen,
                train_score=o.train[0],
                held_out_score=o.held_out[0],
            )
            for o in chosen
        ],
        "optimism": dict(zip(names, folds.optimism(chosen), strict=True)),
        "recommended": Recommended(
            params=sets[best],
            index=best,
            honest_score=dict(zip(names, map(float, honest / len(qids)), strict=True)),
            in_sample_score=dict(zip(names, map(float, means[best]), strict=True)),
        ),
    }
