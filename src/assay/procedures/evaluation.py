"""``evaluate``: judgments + a run (or a live system) -> an :class:`EvaluationResult`.

The run comes through the one source path (:mod:`assay.procedures.sources`),
so a run file's sidecar, a live system's failures and the run cache count the
same through the library and the CLI. The metric kernels live in
:mod:`assay.metrics.engine`; rendering lives in :mod:`assay.report`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.procedures.arguments import prepare

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure
    from assay.perquery import PerQuery
    from assay.procedures.sources import RunProvenance, Source
    from assay.results import EvaluationResult, NoAnswerRow
    from assay.runs.models import Run
    from assay.systems.cache import RunCache

#: Placeholder for the rank of the first relevant document when none was retrieved.
NOT_FOUND = None


def evaluate(
    judgments: JudgmentSet | str | Path,
    run: Any,
    metrics: Iterable[str | Measure] | None = None,
    by: Iterable[str] | str = (),
    *,
    missing: str = "zero",
    ties: str = "score",
    k: int = 100,
    name: str | None = None,
    progress: bool = False,
    judgments_format: str | None = None,
    retries: int | None = None,
    abstain_below: float | None = None,
    cache: RunCache | str | Path | bool | None = None,
    allow_version_mismatch: bool = False,
    max_consecutive_failures: int | None = None,
    prefer: str | None = None,
    mix_synthetic: bool = False,
    ignore_identical_ids: bool = False,
) -> EvaluationResult:
    """Score a run or a search function on a judgment set (judgments first, like the peers).

    ``run`` is a :class:`~assay.runs.models.Run`, a path to a TREC or JSONL run
    file (its ``.json`` sidecar is read: failed queries are reported, not scored
    as 0; a run made on another judgment-set version is refused unless
    ``allow_version_mismatch``), a ``{query_id: [doc_id, ...]}`` mapping, a
    :class:`~assay.systems.base.System`, or a plain function ``(query_text, k)``
    returning doc ids (or dicts with ``doc_id`` and ``score``). Functions and
    systems are called for every query; a failing call is retried ``retries``
    times, then reported as failed, never scored as an empty list. ``cache``
    reuses a live system's last complete run (see
    :func:`~assay.procedures.sources.load_source`).

    ``metrics`` are ir_measures names (default ``R@5 R@10 RR nDCG@10``); ``by``
    names metadata fields to group by (``;``-separated tags split).
    ``missing='zero'`` scores judged queries absent from the run as 0 (trec_eval
    ``-c``); ``'skip'`` leaves them out. ``ties='score'`` orders tied scores by
    doc id descending as trec_eval does; ``'given'`` keeps the given order.
    ``abstain_below`` adds abstention figures: a top score below it counts as
    returning nothing confident. ``prefer`` (``human`` or ``model``) decides
    pairs that a label file grades from both sources (refused otherwise).
    ``mix_synthetic`` scores a set that mixes synthetic (model-written) and
    people's queries, reported apart (refused otherwise: :func:`synthetic_groups`).
    ``ignore_identical_ids`` drops every retrieved document whose id is its
    query's id before scoring, as BEIR does by default (off: trec_eval scores
    them); the documents below move up a rank and the report says how many.

    Returns an :class:`~assay.results.EvaluationResult`; ``.per_query_frame()``
    gives the per-query rows as a pandas DataFrame.
    """
    from assay.procedures.sources import load_source, reading_beside

    with reading_beside(run) as given:  # a run file is read while the judgments load
        js, measures, by_fields = prepare(
            judgments, run, metrics, by, missing, ties, k, judgments_format, prefer, mix_synthetic
        )
    source = load_source(
        given,
        js,
        k=k,
        name=name,
        progress=progress,
        retries=retries,
        cache=cache,
        allow_version_mismatch=allow_version_mismatch,
        max_consecutive_failures=max_consecutive_failures,
    )
    return score(
        source,
        js,
        measures,
        by_fields,
        missing=missing,
        ties=ties,
        abstain_below=abstain_below,
        ignore_identical_ids=ignore_identical_ids,
    )


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
    from assay.results import Abstention
    from assay.systems.abstain import abstention_report

    if ignore_identical_ids:
        from assay.runs.identical import drop_identical_ids

        run = drop_identical_ids(run)[0]
    report = abstention_report(
        run, judgments, abstain_below, failed=source.provenance.failed_query_ids
    )
    return result.model_copy(update={"abstention": Abstention(**report.to_dict())})


def score_run(
    run: Run,
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
    first (:func:`~assay.runs.identical.drop_identical_ids`).
    """
    import numpy as np

    from assay.metrics.depth import check_depth
    from assay.metrics.engine import compute
    from assay.policies import run_policies
    from assay.procedures.sources import RunProvenance
    from assay.results import EvaluationResult, Policy

    info = info or RunProvenance(name=run.name, path=run.path)
    dropped = None
    if ignore_identical_ids:
        from assay.runs.identical import drop_identical_ids

        run, dropped = drop_identical_ids(run)
    live_k = info.k if info.queries_asked is not None else None  # a live system's depth
    shallow = check_depth(measures, asked=live_k, run=run)
    if shallow:
        info = info.model_copy(update={"warnings": [*info.warnings, *shallow]})
    with _hashing(judgments):  # the version hash (Arrow, no GIL) runs beside the kernels
        table = compute(judgments, run, list(measures), missing="zero", ties=ties)
    failed = set(info.failed_query_ids)
    present, keep = _scored_mask(table, info, missing)
    every = bool(keep.all())  # the usual case: no failed call, nothing skipped
    qids = (
        table.query_ids if every else [q for q, k in zip(table.query_ids, keep, strict=True) if k]
    )
    values = {m.name: np.asarray(table.values[m], dtype=np.float64) for m in measures}
    if not every:
        values = {name: v[keep] for name, v in values.items()}
    per_query = _per_query_columns(
        judgments, table.query_ids, keep, np.asarray(table.first_rel_rank), present, values
    )
    # Every part is built from checked values: construct without re-validating
    # the per-query rows (the JSON output is the same as with validation).
    return EvaluationResult.model_construct(
        judgments=_judgments_info(judgments, len(qids)),
        run=_run_info(
            run, info, table, int(np.count_nonzero(~present & ~_failed(table, failed)))
        ).model_copy(update={"identical_ids_dropped": dropped}),
        policy=Policy(missing=missing, ties=ties, ignore_identical_ids=ignore_identical_ids),  # type: ignore[arg-type]
        metrics=[m.name for m in measures],
        aggregate={m.name: _mean(values[m.name], m) for m in measures},
        groups=_group_means(judgments, qids, values, measures, by),
        per_query=per_query,
        no_answer=_no_answer_rows(run, judgments, ties, failed),
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
def _hashing(judgments: JudgmentSet) -> Iterator[None]:
    """Compute ``judgments.version`` on a second thread while the body runs.

    The hash (Arrow sorts and joins, no GIL) then uses the core the kernels
    leave idle; an error of the hash is raised once the body is done.
    """
    from concurrent.futures import ThreadPoolExecutor

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


def _mean_overlap(judgments: JudgmentSet) -> float | None:
    """Mean word overlap of the synthetic queries with their documents (``overlap``)."""
    import pandas as pd

    ids = judgments.synthetic_ids
    if not ids or "overlap" not in judgments.queries.columns:
        return None
    values = pd.to_numeric(judgments.queries.loc[ids, "overlap"], errors="coerce").dropna()
    return float(values.mean()) if len(values) else None


def _judgments_info(judgments: JudgmentSet, scored: int) -> Any:
    from assay.results import JudgmentsInfo

    return JudgmentsInfo(
        path=judgments.path,
        name=judgments.name,
        version=judgments.version,
        format=judgments.format,
        queries=scored,
        no_answer_queries=len(judgments.no_answer_ids),
        total_queries=len(judgments),
        label_sources=judgments.label_sources(),
        synthetic_queries=len(judgments.synthetic_ids),
        synthetic_overlap=_mean_overlap(judgments),
        warnings=list(judgments.warnings),
    )


def _run_info(run: Run, info: RunProvenance, table: Any, missing_count: int) -> Any:
    from assay.results import RunInfo

    empty = set(info.empty_query_ids)
    counted = getattr(table, "run_queries", None)  # the engine's count: no id list
    run_queries = counted if counted is not None and not empty else len(run.query_ids)
    if empty:
        run_queries += len(empty - set(run.query_ids))
    return RunInfo(
        name=info.name,
        path=info.path,
        system=info.system,
        corpus_version=info.corpus_version,
        queries_in_run=info.queries_asked if info.queries_asked is not None else run_queries,
        ignored_queries=table.ignored_queries,
        missing_queries=missing_count,
        tied_pairs_at_cutoff=table.tied_pairs_at_cutoff,
        failed_queries=sorted(info.failed_query_ids),
        failures=list(info.failures),
        warnings=list(info.warnings),
        config_hash=info.config_hash,
        k=info.k,
        latency_ms=info.latency_ms,
    )


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


# --------------------------------------------------------------------------- helpers
def _per_query_columns(
    judgments: JudgmentSet,
    qids: list[str],
    keep: Any,
    first: Any,
    in_run: Any,
    values: dict[str, Any],
) -> PerQuery:
    """Per-query columns: query_id, text, first_rel_rank, in_run, metadata, metrics.

    Ids, texts and metadata are taken from the judgment set's own columns by
    position (Arrow ``take``), so no Python object is made per query.
    """
    import numpy as np
    import pyarrow as pa

    from assay.pairs import arrow_text
    from assay.perquery import PerQuery

    queries = judgments.queries
    rows = _query_positions(judgments, qids)
    rows = pa.array(rows[keep] if not keep.all() else rows)
    ids = arrow_text(queries.index).take(rows)
    text = arrow_text(queries["text"].fillna("")).take(rows)
    meta = {f: _meta_column(queries[f]).take(rows) for f in judgments.metadata_fields}
    kept = (lambda a: a) if keep.all() else (lambda a: np.asarray(a)[keep])
    return PerQuery.from_arrays(ids, text, kept(first), kept(in_run), meta, values)


def _query_positions(judgments: JudgmentSet, qids: list[str]) -> Any:
    """Row of each of ``qids`` in ``judgments.queries`` (the answerable ids: a mask)."""
    import numpy as np

    queries = judgments.queries
    if qids == judgments.answerable_ids:  # what the engine scores: no look-up
        return np.flatnonzero(~queries["no_answer"].to_numpy(bool))
    return queries.index.get_indexer(qids)


def _meta_column(column: Any) -> Any:
    """A metadata column as Arrow: missing values null; mixed types as their text."""
    import pyarrow as pa

    try:
        return pa.array(column.array if hasattr(column, "array") else column, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return pa.array([None if _clean(v) is None else str(v) for v in column], pa.string())


def _mean(values: Any, measure: Measure) -> float:
    """The measure's aggregate (mean; sum for counts, as trec_eval); NaN when nothing was scored."""
    from assay.metrics.engine import aggregate

    return aggregate(measure, values) if len(values) else math.nan


def _clean(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if type(value) is str:  # the usual case, before the pandas check
        return value
    import pandas as pd

    return None if value is pd.NA else value


def _environment() -> dict[str, Any]:
    from assay.procedures.environment import environment

    try:
        return environment()
    except Exception:  # provenance is best effort, never a reason to fail a run
        return {}


def _no_answer_rows(
    run: Run, judgments: JudgmentSet, ties: str, failed: set[str] | frozenset[str] = frozenset()
) -> list[NoAnswerRow]:
    """What the run returned for each no-answer query (a failed call says so)."""
    from assay.results import NoAnswerRow
    from assay.runs.models import Run

    ids = judgments.no_answer_ids
    if not ids:
        return []
    wanted = set(ids)
    frame = run.frame
    sub = frame[frame["query_id"].isin(wanted)]
    top: dict[str, tuple[str, float | None, int]] = {}
    if len(sub):
        ranked = Run(sub.reset_index(drop=True), name=run.name, has_scores=run.has_scores)
        for qid, items in ranked.to_dict(ties=ties).items():  # type: ignore[arg-type]
            doc, score = items[0]
            top[qid] = (doc, None if math.isnan(score) else score, len(items))
    rows = []
    for qid in ids:
        q = judgments.query(qid)
        doc, score, count = top.get(qid, (None, None, 0))
        rows.append(
            NoAnswerRow(
                query_id=qid,
                text=q.text,
                returned=count,
                top_doc=doc,
                top_score=score,
                failed=qid in failed,
                **{k: v for k, v in q.metadata.items() if k not in NoAnswerRow.model_fields},
            )
        )
    return rows
