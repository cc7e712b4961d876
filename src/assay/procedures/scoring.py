"""Scoring a run on a judgment set: the per-query table, the means per group, the result.

:func:`score_run` is the step every procedure shares (evaluate, compare, gate, calibrate,
tune, agreement); :func:`~assay.procedures.evaluation.evaluate` adds the checks and options.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from assay.core.environment import environment
from assay.metrics.blocked import compute_blocked
from assay.metrics.depth import check_depth
from assay.metrics.engine import aggregate, compute
from assay.procedures.scoring_parts import (
    judgments_info,
    no_answer_rows,
    per_query_columns,
    run_info,
    run_policies,
)
from assay.procedures.sources import RunProvenance
from assay.results.models import Abstention, EvaluationResult, Policy
from assay.runs.blocks import RunBlocks
from assay.runs.budget import release_memory
from assay.runs.identical import drop_identical_ids
from assay.systems.abstain import abstention_report

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure
    from assay.procedures.sources import Source
    from assay.runs.models import Run


def score(
    source: Source,
    judgments: JudgmentSet,
    measures: Sequence[Measure],
    by: Sequence[str] = (),
    *,
    missing: str = "zero",
    ties: str = "score",
    abstain_below: float | None = None,
    ignore_identical_ids: bool = False,
) -> EvaluationResult:
    """Score a loaded :class:`~assay.procedures.sources.Source`; a result file is returned as is."""
    if source.result is not None:
        return source.result
    assert source.run is not None
    run = source.run
    result = score_run(
        run,
        judgments,
        measures,
        by,
        missing=missing,
        ties=ties,
        info=source.provenance,
        ignore_identical_ids=ignore_identical_ids,
    )
    if abstain_below is None:
        return result
    if ignore_identical_ids:
        run = drop_identical_ids(run)[0]
    report = abstention_report(
        run, judgments, abstain_below, failed=source.provenance.failed_query_ids
    )
    return result.model_copy(update={"abstention": Abstention(**report.to_dict())})


def score_run(
    run: Run | RunBlocks,
    judgments: JudgmentSet,
    measures: Sequence[Measure],
    by: Sequence[str] = (),
    *,
    missing: str = "zero",
    ties: str = "score",
    info: RunProvenance | None = None,
    ignore_identical_ids: bool = False,
) -> EvaluationResult:
    """Score an already loaded run; the building block of :func:`evaluate`.

    ``ignore_identical_ids`` drops the documents whose id is their query's id
    first (:func:`~assay.runs.identical.drop_identical_ids`). A
    :class:`~assay.runs.blocks.RunBlocks` is scored block by block.
    """

    info = info or RunProvenance(name=run.name, path=run.path)
    dropped = None
    if ignore_identical_ids:
        run, dropped, info = _without_identical_ids(run, info)
    live_k = info.k if info.queries_asked is not None else None  # a live system's depth
    blocked = isinstance(run, RunBlocks)
    shallow = [] if blocked else check_depth(measures, asked=live_k, run=run)
    answers = run
    # the version hash (Arrow, no GIL) runs beside the kernels; before the blocks of a run
    # scored block by block, which are sized to the memory the process holds then
    with _hashing(judgments, beside=not blocked):
        if isinstance(run, RunBlocks):  # block by block; counts of the whole run after
            table, run, answers = compute_blocked(judgments, run, list(measures), ties=ties)
            shallow = check_depth(measures, asked=live_k, run=run)
        else:
            table = compute(judgments, run, list(measures), missing="zero", ties=ties)
    if shallow:
        info = info.model_copy(update={"warnings": [*info.warnings, *shallow]})
    return _assemble(
        judgments,
        run,
        answers,
        table,
        measures,
        by,
        info,
        missing=missing,
        ties=ties,
        dropped=dropped,
        shallow=shallow,
        ignore_identical_ids=ignore_identical_ids,
    )


def _without_identical_ids(run: Run, info: RunProvenance) -> tuple[Run, Any, RunProvenance]:
    """``run`` without the documents whose id is their query's id, what was dropped, and
    ``info`` with the queries left with no document listed as answered with an empty list."""
    answered = run.frame["query_id"].unique()
    run, dropped = drop_identical_ids(run)
    # a query whose every document was itself was answered: scored as an empty list
    # (as BEIR, which keeps it among its results), never skipped as absent
    emptied = sorted(set(map(str, answered)) - set(map(str, run.frame["query_id"].unique())))
    if emptied:
        info = info.model_copy(update={"empty_query_ids": [*info.empty_query_ids, *emptied]})
    return run, dropped, info


def _assemble(
    judgments: JudgmentSet,
    run: Any,
    answers: Any,
    table: Any,
    measures: Sequence[Measure],
    by: Sequence[str],
    info: RunProvenance,
    *,
    missing: str,
    ties: str,
    dropped: Any,
    shallow: list[str],
    ignore_identical_ids: bool,
) -> EvaluationResult:
    """The evaluation result of a computed metric table: the scored queries' values,
    aggregates, groups, per-query rows and provenance."""
    import numpy as np

    failed = set(info.failed_query_ids)
    present, keep = _scored_mask(table, info, missing)
    every = bool(keep.all())  # the usual case: no failed call, nothing skipped
    qids = (
        table.query_ids if every else [q for q, k in zip(table.query_ids, keep, strict=True) if k]
    )
    values = {m.name: np.asarray(table.values[m], dtype=np.float64) for m in measures}
    if not every:
        values = {name: v[keep] for name, v in values.items()}
    per_query = per_query_columns(
        judgments, table.query_ids, keep, np.asarray(table.first_rel_rank), present, values
    )
    # Every part is built from checked values: construct without re-validating
    # the per-query rows (the JSON output is the same as with validation).
    return EvaluationResult.model_construct(
        judgments=judgments_info(judgments, len(qids)),
        run=run_info(
            run, info, table, int(np.count_nonzero(~present & ~_failed(table, failed)))
        ).model_copy(update={"identical_ids_dropped": dropped}),
        policy=Policy(missing=missing, ties=ties, ignore_identical_ids=ignore_identical_ids),  # type: ignore[arg-type]
        metrics=[m.name for m in measures],
        aggregate={m.name: _mean(values[m.name], m) for m in measures},
        groups=_group_means(judgments, qids, values, measures, by),
        per_query=per_query,
        no_answer=no_answer_rows(answers, judgments, ties, failed),
        environment=_environment(),
        policies=run_policies(
            judgments,
            measures,
            missing=missing,
            ties=ties,
            info=info,
            ignored_queries=table.ignored_queries,
            depth_warnings=shallow,
            identical_ids_dropped=dropped,
        ),
    )


@contextmanager
def _hashing(judgments: JudgmentSet, beside: bool = True) -> Iterator[None]:
    """Compute ``judgments.version`` on a second thread while the body runs.

    The hash (Arrow sorts and joins, no GIL) then uses the core the kernels
    leave idle; an error of the hash is raised once the body is done. Not
    ``beside``: before the body, its memory handed back (the hash of 1.5 million
    judgments takes 155 MB for a moment, which blocks sized to a budget would not
    have counted on).
    """
    from concurrent.futures import ThreadPoolExecutor

    if not beside:
        _ = judgments.version
        release_memory()
        yield
        return
    with ThreadPoolExecutor(1) as pool:
        job = pool.submit(lambda: judgments.version)
        yield
        job.result()


def _failed(table: Any, failed: set[str]) -> Any:
    import numpy as np

    ids = table.query_ids
    if not failed:  # the usual case: no call failed
        return np.zeros(len(ids), dtype=bool)
    return np.fromiter((q in failed for q in ids), dtype=bool, count=len(ids))


def _scored_mask(table: Any, info: RunProvenance, missing: str) -> tuple[Any, Any]:
    """(in the run, scored) per judged query: failures are never scored, ``skip`` drops absent."""
    import numpy as np

    ids = table.query_ids
    is_failed = _failed(table, set(info.failed_query_ids))
    present = np.asarray(table.in_run, dtype=bool).copy()
    # Queries answered with an empty list are in the run although no row shows them
    # (a TREC file cannot): the sidecar lists them, and a live run asked every query.
    empty = set(info.empty_query_ids)
    if empty:
        present |= np.fromiter((q in empty for q in ids), dtype=bool, count=len(ids))
    if info.queries_asked is not None:
        present |= ~is_failed
    keep = ~is_failed
    if missing == "skip":
        keep &= present
    return present, keep


def _group_means(
    judgments: JudgmentSet,
    qids: list[str],
    values: dict[str, Any],
    measures: Sequence[Measure],
    by: Sequence[str],
) -> dict[str, dict[str, dict[str, float | int]]]:
    """Per ``by`` field and value: the number of scored queries and each metric's aggregate."""
    import numpy as np

    groups: dict[str, dict[str, dict[str, float | int]]] = {}
    position = {q: i for i, q in enumerate(qids)} if by else {}
    for field_name in by:
        field_groups: dict[str, dict[str, float | int]] = {}
        for value, members in sorted(judgments.groups(field_name).items()):
            idx = np.array([position[q] for q in members if q in position], dtype=np.int64)
            if idx.size == 0:
                continue
            row: dict[str, float | int] = {"n": int(idx.size)}
            for m in measures:
                row[m.name] = _mean(values[m.name][idx], m)
            field_groups[value] = row
        groups[field_name] = field_groups
    return groups


def _mean(values: Any, measure: Measure) -> float:
    """The measure's aggregate (mean; sum for counts, as trec_eval); NaN when nothing was scored."""

    return aggregate(measure, values) if len(values) else math.nan


def _environment() -> dict[str, Any]:
    try:
        return environment()
    except Exception:  # provenance is best effort, never a reason to fail a run
        return {}
