"""``evaluate``: judgments + a run (or a live system) -> an :class:`EvaluationResult`.

This module orchestrates; the metric kernels live in :mod:`assay.metrics.engine`
and rendering lives in :mod:`assay.report`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from assay.errors import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from assay.judgments.models import JudgmentSet
    from assay.metrics.measures import Measure
    from assay.results import EvaluationResult
    from assay.runs.models import Run

#: Placeholder for the rank of the first relevant document when none was retrieved.
NOT_FOUND = None


def evaluate(
    run_or_search: Any,
    judgments: JudgmentSet | str | Path,
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
) -> EvaluationResult:
    """Score a run or a search function on a judgment set.

    ``run_or_search`` is a :class:`~assay.runs.models.Run`, a path to a TREC or
    JSONL run file, a ``{query_id: [doc_id, ...]}`` mapping, a
    :class:`~assay.systems.base.System`, or a plain function ``(query_text, k)``
    returning doc ids (or dicts with ``doc_id`` and ``score``). Functions and
    systems are called for every query; a failing call is reported as failed,
    never scored as an empty list.

    ``metrics`` are ir_measures names (default ``R@5 R@10 RR nDCG@10``); ``by``
    names metadata fields to group by (``;``-separated tags split).
    ``retries`` is how often a failing call is retried (with backoff) before
    the query is reported as failed.
    ``missing='zero'`` scores judged queries absent from the run as 0 (trec_eval
    ``-c``); ``'skip'`` leaves them out. ``ties='score'`` orders tied scores by
    doc id descending as trec_eval does; ``'given'`` keeps the given order.

    Returns an :class:`~assay.results.EvaluationResult`; ``.per_query_frame()``
    gives the per-query rows as a pandas DataFrame.
    """
    from assay.metrics.measures import parse_measures

    if missing not in ("zero", "skip"):
        raise UsageError(f"missing must be 'zero' or 'skip', got {missing!r}")
    if ties not in ("score", "given"):
        raise UsageError(f"ties must be 'score' or 'given', got {ties!r}")
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise UsageError(f"k must be a whole number >= 1, got {k!r}")
    measures = parse_measures(list(metrics) if metrics is not None else None)
    by_fields = [by] if isinstance(by, str) else list(by)
    judgments = _as_judgments(judgments, judgments_format)
    for field_name in by_fields:
        judgments.groups(field_name)  # raises a UsageError naming the fields available
    run, run_info = _as_run(
        run_or_search, judgments, k=k, name=name, progress=progress, retries=retries
    )
    return score_run(run, judgments, measures, by_fields, missing=missing, ties=ties, info=run_info)


def score_run(
    run: Run,
    judgments: JudgmentSet,
    measures: Sequence[Measure],
    by: Sequence[str] = (),
    *,
    missing: str = "zero",
    ties: str = "score",
    info: Mapping[str, Any] | None = None,
) -> EvaluationResult:
    """Score an already loaded run; the building block of :func:`evaluate`."""
    import numpy as np

    from assay.metrics.engine import compute
    from assay.results import EvaluationResult, JudgmentsInfo, Policy, RunInfo

    info = dict(info or {})
    failed = set(info.get("failed_query_ids", []))
    # Queries answered with an empty list are in the run although no row shows them
    # (a TREC file cannot): the sidecar lists them, and a live run asked every query.
    empty = set(info.get("empty_query_ids", []))
    asked_all = "queries_asked" in info
    table = compute(judgments, run, list(measures), missing="zero", ties=ties)
    all_ids = table.query_ids
    is_failed = np.fromiter((q in failed for q in all_ids), dtype=bool, count=len(all_ids))
    present = np.asarray(table.in_run, dtype=bool).copy()
    if empty:
        present |= np.fromiter((q in empty for q in all_ids), dtype=bool, count=len(all_ids))
    if asked_all:
        present |= ~is_failed
    keep = ~is_failed
    if missing == "skip":
        keep &= present
    missing_count = int(np.count_nonzero(~present & ~is_failed))
    qids = [q for q, kept in zip(all_ids, keep.tolist(), strict=True) if kept]
    values = {m: np.asarray(v, dtype=np.float64)[keep] for m, v in table.values.items()}
    first = np.asarray(table.first_rel_rank)[keep]
    in_run = present[keep]
    names = [m.name for m in measures]
    run_queries = len(run.query_ids)
    if empty:
        run_queries += len(empty - set(run.query_ids))

    aggregate = {m.name: _mean(values[m]) for m in measures}
    groups: dict[str, dict[str, dict[str, float | int]]] = {}
    position = {q: i for i, q in enumerate(qids)}
    for field_name in by:
        field_groups: dict[str, dict[str, float | int]] = {}
        for value, members in sorted(judgments.groups(field_name).items()):
            idx = np.array([position[q] for q in members if q in position], dtype=np.int64)
            if idx.size == 0:
                continue
            row: dict[str, float | int] = {"n": int(idx.size)}
            for m in measures:
                row[m.name] = _mean(values[m][idx])
            field_groups[value] = row
        groups[field_name] = field_groups

    per_query = _per_query_rows(
        judgments, qids, first, in_run, [(m.name, values[m]) for m in measures]
    )

    no_answer = _no_answer_rows(run, judgments, ties, failed)
    # Every part is built from checked values above: construct without re-validating
    # the per-query rows (the JSON output is the same as with validation).
    result = EvaluationResult.model_construct(
        judgments=JudgmentsInfo(
            path=judgments.path,
            name=judgments.name,
            version=judgments.version,
            format=judgments.format,
            queries=len(qids),
            no_answer_queries=len(judgments.no_answer_ids),
            total_queries=len(judgments),
            warnings=list(judgments.warnings),
        ),
        run=RunInfo(
            name=info.get("name", run.name),
            path=info.get("path", run.path),
            system=info.get("system"),
            corpus_version=info.get("corpus_version"),
            queries_in_run=info.get("queries_asked", run_queries),
            ignored_queries=table.ignored_queries,
            missing_queries=missing_count,
            tied_pairs_at_cutoff=table.tied_pairs_at_cutoff,
            failed_queries=sorted(failed),
            failures=list(info.get("failures", [])),
            warnings=list(info.get("warnings", [])),
            **{k: v for k, v in info.items() if k in ("latency_ms", "k", "config_hash")},
        ),
        policy=Policy(missing=missing, ties=ties),  # type: ignore[arg-type]
        metrics=names,
        aggregate=aggregate,
        groups=groups,
        per_query=per_query,
        no_answer=no_answer,
        environment=_environment(),
    )
    return result


# --------------------------------------------------------------------------- helpers
def _per_query_rows(
    judgments: JudgmentSet,
    qids: list[str],
    first: Any,
    in_run: Any,
    metric_columns: list[tuple[str, Any]],
) -> list[dict[str, Any]]:
    """Per-query rows: query_id, text, first_rel_rank, in_run, metadata, metrics."""
    import numpy as np

    if not qids:
        return []
    queries = judgments.queries
    meta_fields = judgments.metadata_fields
    texts = [t or "" for t in _cleaned(queries["text"].reindex(qids))]
    meta_cols = {f: _cleaned(queries[f].reindex(qids)) for f in meta_fields}
    first_col = [r if r > 0 else NOT_FOUND for r in first.tolist()]
    columns = [
        ("query_id", qids),
        ("text", texts),
        ("first_rel_rank", first_col),
        ("in_run", in_run.tolist()),
    ]
    columns += [(f, meta_cols[f]) for f in meta_fields]
    columns += [(name, np.asarray(v).tolist()) for name, v in metric_columns]
    keys = [k for k, _ in columns]
    rows = [
        dict(zip(keys, vals, strict=True)) for vals in zip(*(c for _, c in columns), strict=True)
    ]
    for f in meta_fields:  # a missing metadata value is left out of its row
        if any(v is None for v in meta_cols[f]):
            for row in rows:
                if row[f] is None:
                    del row[f]
    return rows


def _mean(values: Any) -> float:
    """Mean of a metric column; NaN when nothing was scored (shown as '-', JSON null)."""
    return float(values.mean()) if len(values) else math.nan


def _cleaned(column: Any) -> list[Any]:
    """``[_clean(v) for v in column]``, skipping the per-value check when nothing is missing."""
    values = column.tolist()
    if column.dtype != object and not column.isna().any():
        return values
    return [_clean(v) for v in values]


def _clean(value: Any) -> Any:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if type(value) is str:  # the usual case, before the pandas check
        return value
    try:
        import pandas as pd

        if value is pd.NA:
            return None
    except ImportError:  # pragma: no cover
        pass
    return value


def _environment() -> dict[str, Any]:
    try:
        from assay.store.provenance import environment
    except ImportError:
        return {}
    try:
        return environment()
    except Exception:  # provenance is best effort, never a reason to fail a run
        return {}


def _as_judgments(judgments: Any, fmt: str | None) -> JudgmentSet:
    from assay.judgments.models import JudgmentSet

    if isinstance(judgments, JudgmentSet):
        return judgments
    if isinstance(judgments, str | Path):
        from assay.judgments.load import load_judgments

        return load_judgments(judgments, format=fmt)
    raise UsageError(f"judgments must be a JudgmentSet or a path, got {type(judgments).__name__}")


def _as_run(
    source: Any,
    judgments: JudgmentSet,
    *,
    k: int,
    name: str | None,
    progress: bool,
    retries: int | None,
) -> tuple[Run, dict[str, Any]]:
    from assay.runs.models import Run

    if isinstance(source, Run):
        return source, {"name": name or source.name, "path": source.path}
    if isinstance(source, str | Path):
        from assay.runs.io import load_run

        run = load_run(source)
        return run, {"name": name or run.name, "path": str(source)}
    if isinstance(source, Mapping):
        run = Run.from_dict(source, name=name or "run")
        return run, {"name": run.name}
    system = _as_system(source, name)
    if system is None:
        raise UsageError(
            "evaluate() takes a Run, a run file path, a {query_id: [doc_id, ...]} mapping, "
            f"a System or a function (query_text, k); got {type(source).__name__}"
        )
    return run_live(system, judgments, k=k, progress=progress, retries=retries)


def _as_system(source: Any, name: str | None) -> Any:
    from assay.systems.base import FunctionSystem, System

    if isinstance(source, System):
        return source
    if callable(source):
        return FunctionSystem(source, name=name or getattr(source, "__name__", "function"))
    return None


def run_live(
    system: Any, judgments: JudgmentSet, *, k: int = 100, progress: bool = False, **kwargs: Any
) -> tuple[Run, dict[str, Any]]:
    """Run a system over the judgment set's queries; return the run and its provenance."""
    from assay.systems.base import config_hash

    try:
        from assay.systems.runner import run_system
    except ImportError:  # pragma: no cover - the runner ships with assay
        run_system = None
    from assay.redact import redact

    info: dict[str, Any] = {"name": system.name, "system": redact(system.config)}
    info["config_hash"] = config_hash(system.config)
    info["k"] = k
    if run_system is None:
        run, failed, asked = _simple_run(system, judgments, k)
        info["failed_query_ids"] = failed
        info["queries_asked"] = asked
        return run, info
    outcome = run_system(system, judgments, k, progress=progress, **kwargs)
    info["failed_query_ids"] = [f.query_id for f in outcome.failures]
    info["failures"] = [
        {"query_id": f.query_id, "error": f.error, "attempts": f.attempts} for f in outcome.failures
    ]
    # every query was asked: an empty answer is an empty list, not a missing query
    info["queries_asked"] = outcome.queries - len(outcome.failures)
    info["corpus_version"] = getattr(outcome, "corpus_version", None)
    latency = getattr(outcome, "latency_ms", None)
    if latency is not None:
        info["latency_ms"] = latency if isinstance(latency, dict) else latency.model_dump()
    return outcome.run, info


def _simple_run(system: Any, judgments: JudgmentSet, k: int) -> tuple[Run, list[str], int]:
    from assay.runs.models import Run

    ranking: dict[str, list[tuple[str, float] | str]] = {}
    failed: list[str] = []
    asked = 0
    for query in judgments:
        try:
            hits = system.search(query.text, k)
        except Exception:
            failed.append(query.query_id)
            continue
        asked += 1
        ranking[query.query_id] = [
            (h.doc_id, h.score) if h.score is not None else h.doc_id for h in hits
        ]
    return Run.from_dict(ranking, name=system.name), failed, asked


def _no_answer_rows(
    run: Run, judgments: JudgmentSet, ties: str, failed: set[str] | frozenset[str] = frozenset()
) -> list[dict[str, Any]]:
    """What the run returned for each no-answer query (a failed call says so)."""
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
            {
                "query_id": qid,
                "text": q.text,
                **dict(q.metadata),
                "returned": count,
                "top_doc": doc,
                "top_score": score,
                "failed": qid in failed,
            }
        )
    return rows
