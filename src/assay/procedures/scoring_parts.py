"""The parts of an evaluation result that :func:`~assay.procedures.evaluation.score_run`
assembles: the judgment-set and run summaries, the per-query columns, the
no-answer rows and the scoring policies recorded with a run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from assay.core.pairs import arrow_text
from assay.core.policies import ScoringPolicy, policy_rule
from assay.metrics.rules import scoring_policies
from assay.results.models import JudgmentsInfo, NoAnswerRow, RunInfo
from assay.results.perquery import PerQuery
from assay.runs.models import Run
from assay.systems.vector import policy_text

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.procedures.sources import RunProvenance
    from assay.results.models import NoAnswerRow
    from assay.results.perquery import PerQuery
    from assay.runs.models import Run


def _mean_overlap(judgments: JudgmentSet) -> float | None:
    """Mean word overlap of the synthetic queries with their documents (``overlap``)."""
    import pandas as pd

    ids = judgments.synthetic_ids
    if not ids or "overlap" not in judgments.queries.columns:
        return None
    values = pd.to_numeric(judgments.queries.loc[ids, "overlap"], errors="coerce").dropna()
    return float(values.mean()) if len(values) else None


def judgments_info(judgments: JudgmentSet, scored: int) -> Any:

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


def run_info(run: Run, info: RunProvenance, table: Any, missing_count: int) -> Any:

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


def per_query_columns(
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


def _clean(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if type(value) is str:  # the usual case, before the pandas check
        return value
    import pandas as pd

    return None if value is pd.NA else value


def no_answer_rows(
    run: Run, judgments: JudgmentSet, ties: str, failed: set[str] | frozenset[str] = frozenset()
) -> list[NoAnswerRow]:
    """What the run returned for each no-answer query (a failed call says so)."""

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


def run_policies(
    judgments: JudgmentSet,
    metrics: Sequence[object],
    *,
    missing: str,
    ties: str,
    info: RunProvenance,
    ignored_queries: int = 0,
    depth_warnings: Sequence[str] = (),
    identical_ids_dropped: int | None = None,
) -> list[ScoringPolicy]:
    """:func:`scoring_policies` of one run scored on ``judgments`` (what ``score_run`` records).

    ``info`` is the run's provenance (failed calls; ``k`` of a live system);
    ``judgments.prefer`` names the label source that won, when a label file
    had two labels for a pair; ``identical_ids_dropped`` as in
    :func:`scoring_policies`.
    """
    qrels = judgments.qrels
    negative = int((qrels["grade"] < 0).sum()) if len(qrels) else 0

    return scoring_policies(
        missing=missing,
        ties=ties,
        metrics=[str(m) for m in metrics],
        no_answer_queries=len(judgments.no_answer_ids),
        ignored_queries=ignored_queries,
        failed_queries=len(info.failed_query_ids),
        negative_grades=negative,
        prefer=judgments.prefer,
        synthetic_queries=len(judgments.synthetic_ids),
        total_queries=len(judgments),
        depth_warnings=depth_warnings,
        system_depth=info.k if info.queries_asked is not None else None,
        identical_ids_dropped=identical_ids_dropped,
    ) + _system_rules(info)


def _system_rules(info: RunProvenance) -> list[ScoringPolicy]:
    """How a live vector system embeds: model, dimensions, prefixes, long texts."""

    system = info.system if isinstance(info.system, dict) else {}
    if system.get("type") != "vector":
        return []

    text = policy_text(system)
    return [policy_rule("embedding", text)] if text else []
