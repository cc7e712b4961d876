"""Self-contained HTML history: a plotly trend chart per metric (plotly.js inlined).

Each series (system @ judgment set) is a line; a new judgment-set version
starts a new, unconnected segment and gets a dashed vertical marker, because
scores across versions are not comparable. Works offline: no CDN.
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from assay.store.history import HistoryReport


def _value(metric: str, values: dict[str, float]) -> str:
    from assay.store.history import BOOLEAN_METRICS

    if metric not in values:
        return ""
    if metric in BOOLEAN_METRICS:
        return "yes" if values[metric] else "no"
    from assay.report.digits import fmt

    return fmt(float(values[metric]), 4, metric)


def render_html(report: HistoryReport) -> str:
    """A complete HTML page: one trend chart per metric and the table of runs."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    from assay.report.plotly_page import chart_html, plotly_script

    metrics = report.metrics or []
    figure = make_subplots(
        rows=max(1, len(metrics)),
        cols=1,
        shared_xaxes=True,
        subplot_titles=metrics or ["no metrics"],
        vertical_spacing=0.08,
    )
    for i, metric in enumerate(metrics, start=1):
        for series in dict.fromkeys(r.series for r in report.rows):
            rows = [r for r in report.rows if r.series == series and metric in r.metrics]
            for segment in dict.fromkeys(r.segment for r in rows):
                part = [r for r in rows if r.segment == segment]
                version = part[0].judgments_version or "?"
                figure.add_trace(
                    go.Scatter(
                        x=[r.created_at for r in part],
                        y=[r.metrics[metric] for r in part],
                        mode="lines+markers",
                        name=f"{series} [{version.removeprefix('sha256:')[:10]}]",
                        legendgroup=f"{series}-{segment}",
                        showlegend=i == 1,
                        text=[f"run {r.run_id}, git {(r.git_commit or '-')[:8]}" for r in part],
                        hovertemplate="%{x}<br>%{y:.4f}<br>%{text}<extra></extra>",
                    ),
                    row=i,
                    col=1,
                )
    for r in report.rows:
        if r.version_changed and r.created_at:
            figure.add_vline(x=r.created_at, line_dash="dash", line_color="orange")
    figure.update_layout(
        height=320 * max(1, len(metrics)),
        title="assay history (dashed line: judgment-set version changed)",
        template="plotly_white",
    )
    chart = chart_html(figure, "chart-history")
    head = "".join(
        f"<th>{html.escape(h)}</th>"
        for h in ["run", "created", "kind", "system", "judgments", "version", "git", *metrics]
    )
    body = []
    for r in report.rows:
        cells = [
            str(r.run_id),
            r.created_at or "",
            r.kind,
            r.system or "",
            r.judgments_name or "",
            ("* " if r.version_changed else "") + (r.judgments_version or ""),
            (r.git_commit or "")[:8] + (" (dirty)" if r.dirty else ""),
            *[_value(m, r.metrics) for m in metrics],
        ]
        body.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
    note = (
        f"<p>* judgment-set version changed ({report.version_changes}x): "
        "scores before and after a change are not comparable.</p>"
        if report.version_changes
        else ""
    )
    if report.metrics_note:
        note += f"<p>{html.escape(report.metrics_note)}</p>"
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>assay history</title>"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 6px;font-size:90%}</style>"
        f"{plotly_script()}</head><body>"
        f"<h1>assay history</h1><p>store: {html.escape(report.store)}</p>{chart}{note}"
        f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"
        "</body></html>\n"
    )
