"""The history page: each measure over time, gate outcomes, points and rows opening results."""

from __future__ import annotations

from typing import Any

from assay.report.html import charts
from assay.report.html.pages import Links, Page, number
from assay.report.plotly_page import chart_spec


def history_page(report: Any, links: Links, spans: dict | None = None) -> Page:
    """Trend charts (one per measure; a point opens its result, with its interval where
    ``spans`` has one: run id -> measure -> ``(low, high)``) and the table of results."""

    def link(run_id: int) -> str | None:
        return links.result(f"s{run_id}")

    metrics = [m for m in report.metrics if m != "passed"]
    rows = []
    for r in report.rows:
        gate = None
        if r.kind == "gate" and "passed" in r.metrics:
            gate = "passed" if r.metrics["passed"] else "failed"
        elif r.role in ("gate-passed", "gate-failed"):
            gate = r.role.removeprefix("gate-")
        rows.append(
            {
                "run_id": r.run_id,
                "href": link(r.run_id),
                "created": r.created_at or "",
                "kind": r.kind,
                "system": r.system or "",
                "judgments": r.judgments_name or "",
                "version": (r.judgments_version or "").removeprefix("sha256:")[:12],
                "changed": r.version_changed,
                "git": (r.git_commit or "")[:8] + (" (dirty)" if r.dirty else ""),
                "gate": gate,
                "values": [number(r.metrics.get(m), m) for m in metrics],
            }
        )
    specs = {
        f"trend-{i}": chart_spec(charts.history(report, m, link, spans or {}))
        for i, m in enumerate(metrics)
    }
    return Page(
        template="history.html",
        title="History",
        values={"report": report, "metrics": metrics, "rows": rows},
        charts=specs,
    )
