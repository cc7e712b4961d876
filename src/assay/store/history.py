"""Run history over time: the rows ``assay history`` shows, with version breaks marked.

Scores on different versions of a judgment set are not comparable, so each
series (one system on one judgment set) is split where the judgment-set
version changes; the first row after a change has ``version_changed=True``.

Without ``-m`` the report shows the metrics common to every listed result
(or, when none is, the most frequent ones), at most :data:`MAX_METRICS`, and
says in ``metrics_note`` what it left out.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from assay.core.errors import UsageError
from assay.metrics.measures import parse_measure
from assay.results.models import ResultModel
from assay.store.api import HistoryEntry, open_store

HISTORY_SCHEMA_VERSION = "1"
#: Metric columns shown by default (``-m`` chooses others).
MAX_METRICS = 6
#: Recorded numbers that are really yes/no (a gate's ``passed`` is 1.0 or 0.0).
BOOLEAN_METRICS = frozenset({"passed"})


class HistoryRow(HistoryEntry):
    """A recorded result in its series."""

    series: str = Field(description="system @ judgment-set name")
    version_changed: bool = Field(
        False, description="the judgment-set version differs from the previous row of the series"
    )
    segment: int = Field(0, description="index of the comparable stretch within the series")


class HistoryReport(ResultModel):
    """What ``assay history`` renders (result kind ``history``; not recorded)."""

    schema_version: str = HISTORY_SCHEMA_VERSION
    kind: Literal["history"] = "history"
    store: str
    filters: dict[str, str | None] = Field(default_factory=dict)
    metrics: list[str] = Field(description="metrics shown, in order")
    rows: list[HistoryRow]
    version_changes: int = 0
    metrics_available: int = Field(0, description="distinct metrics among the listed results")
    metrics_note: str | None = Field(None, description="why not every metric is shown")


def read_history(
    store: str | None = None,
    *,
    system: str | None = None,
    judgments: str | None = None,
    metrics: list[str] | None = None,
    kind: str = "evaluation",
) -> HistoryReport:
    """The recorded results of the history ``store`` over time (opened read-only).

    ``system`` and ``judgments`` (a name or version) filter the results;
    ``kind`` is a result kind or ``all``. ``metrics`` (any spelling a measure
    has: ``ndcg_cut_10`` is ``nDCG@10``; else the name as recorded) chooses the
    columns and keeps the results that have one of them.
    """

    names = [_metric_name(m) for m in dict.fromkeys(metrics)] if metrics else None
    with open_store(store, read_only=True) as st:
        entries = st.list(system=system, judgments=judgments, kind=None if kind == "all" else kind)
        where = repr(st)
    if names:
        entries = [e for e in entries if any(m in e.metrics for m in names)]
    return build_history(
        entries,
        store=where,
        metrics=names,
        filters={"system": system, "judgments": judgments, "kind": kind},
    )


def _metric_name(text: str) -> str:
    """A measure's canonical name (``ndcg_cut_10`` -> ``nDCG@10``), else ``text`` as recorded
    (``passed``, ``delta nDCG@10``, an answer score)."""

    try:
        return parse_measure(text).name
    except UsageError:
        return text


def build_history(
    entries: list[HistoryEntry],
    *,
    store: str,
    metrics: list[str] | None = None,
    filters: dict[str, str | None] | None = None,
    max_metrics: int = MAX_METRICS,
) -> HistoryReport:
    """Order entries by time, group them into series and mark judgment-set version changes.

    ``metrics`` chooses the columns; by default :func:`default_metrics`.
    """
    ordered = sorted(entries, key=lambda e: (e.created_at or "", e.run_id))
    last_version: dict[str, str | None] = {}
    segment: dict[str, int] = {}
    rows: list[HistoryRow] = []
    changes = 0
    for e in ordered:
        series = f"{e.system or '?'} @ {e.judgments_name or '?'}"
        changed = series in last_version and last_version[series] != e.judgments_version
        if changed:
            changes += 1
            segment[series] = segment.get(series, 0) + 1
        last_version[series] = e.judgments_version
        rows.append(
            HistoryRow(
                **e.model_dump(),
                series=series,
                version_changed=changed,
                segment=segment.get(series, 0),
            )
        )
    available = len({m for e in ordered for m in e.metrics})
    note = None
    if metrics is None:
        metrics, note = default_metrics(ordered, max_metrics)
    return HistoryReport(
        store=store,
        filters=dict(filters or {}),
        metrics=list(metrics),
        rows=rows,
        version_changes=changes,
        metrics_available=available,
        metrics_note=note,
    )


def default_metrics(
    entries: list[HistoryEntry], limit: int = MAX_METRICS
) -> tuple[list[str], str | None]:
    """The metric columns shown without ``-m``, and a note when some are left out.

    The metrics every entry has, in first-seen order; when no metric is common,
    the most frequent ones. At most ``limit``.
    """
    counts: dict[str, int] = {}
    for e in entries:
        for m in e.metrics:
            counts[m] = counts.get(m, 0) + 1
    if not counts:
        return [], None
    common = [m for m, n in counts.items() if n == len(entries)]
    pool = common or sorted(counts, key=lambda m: -counts[m])  # stable: first-seen on ties
    shown = pool[:limit]
    if len(shown) == len(counts):
        return shown, None
    k = len(shown)
    if not common:
        why = f"none is common to all listed results, so the {k} most frequent"
    elif len(common) > limit:
        why = f"the first {k} of those common to all listed results"
    else:
        why = "those common to all listed results"
    note = f"showing {k} of {len(counts)} metrics: {why}; choose others with -m"
    return shown, note
