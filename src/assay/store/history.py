"""Run history over time: the rows ``assay history`` shows, with version breaks marked.

Scores on different versions of a judgment set are not comparable, so each
series (one system on one judgment set) is split where the judgment-set
version changes; the first row after a change has ``version_changed=True``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, Field

from assay.store.api import HistoryEntry

HISTORY_SCHEMA_VERSION = "1"


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class HistoryRow(HistoryEntry):
    """A recorded result in its series."""

    series: str = Field(description="system @ judgment-set name")
    version_changed: bool = Field(
        False, description="the judgment-set version differs from the previous row of the series"
    )
    segment: int = Field(0, description="index of the comparable stretch within the series")


class HistoryReport(BaseModel):
    """What ``assay history`` renders (result kind ``history``; not recorded)."""

    schema_version: str = HISTORY_SCHEMA_VERSION
    kind: Literal["history"] = "history"
    created_at: str = Field(default_factory=_now)
    store: str
    filters: dict[str, str | None] = Field(default_factory=dict)
    metrics: list[str] = Field(description="metrics shown, in order")
    rows: list[HistoryRow]
    version_changes: int = 0

    def to_json(self, indent: int | None = 2) -> str:
        """Serialise to JSON."""
        return self.model_dump_json(indent=indent)


def build_history(
    entries: list[HistoryEntry],
    *,
    store: str,
    metrics: list[str] | None = None,
    filters: dict[str, str | None] | None = None,
) -> HistoryReport:
    """Order entries by time, group them into series and mark judgment-set version changes.

    ``metrics`` limits the columns; by default every metric seen, in first-seen order.
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
    if metrics is None:
        seen: dict[str, None] = {}
        for e in ordered:
            seen.update(dict.fromkeys(e.metrics))
        metrics = list(seen)
    return HistoryReport(
        store=store,
        filters=dict(filters or {}),
        metrics=list(metrics),
        rows=rows,
        version_changes=changes,
    )
