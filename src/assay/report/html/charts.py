"""The Plotly figures of the result pages (drawn in the browser from JSON specs).

Every figure goes through :func:`assay.report.plotly_page.chart_spec` (no
share button, no logo link); a figure whose points open a result carries the
result's address in ``customdata`` (``view.js`` follows it on click).
"""

from __future__ import annotations

from typing import Any

from assay.stats.verdict import Verdict

_COLOUR = {Verdict.BETTER: "#0a7a28", Verdict.WORSE: "#b3141b", Verdict.NO_DIFFERENCE: "#595959"}


def layout(fig: Any, **extra: Any) -> Any:
    """``fig`` with the pages' margins, template and automatic size."""
    fig.update_layout(
        margin={"l": 10, "r": 10, "t": 50, "b": 40},
        template="plotly_white",
        autosize=True,
        **extra,
    )
    fig.update_yaxes(automargin=True)
    return fig


def forest(result: Any, metric: str) -> Any:
    """Δ with its interval per candidate, overall and per slice, for one measure."""
    import plotly.graph_objects as go

    items = [
        (f"{c.candidate} · all (n={c.n})", c) for c in result.comparisons if c.metric == metric
    ]
    items += [
        (f"{s.candidate} · {s.field}={s.value} (n={s.n})", s)
        for s in result.slices
        if s.metric == metric
    ]
    items.reverse()
    stats = [s for _, s in items]
    fig = go.Figure(
        go.Scatter(
            x=[s.delta for s in stats],
            y=[label for label, _ in items],
            mode="markers",
            marker={"size": 9, "color": [_COLOUR.get(s.verdict, "#595959") for s in stats]},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [s.ci_high - s.delta for s in stats],
                "arrayminus": [s.delta - s.ci_low for s in stats],
            },
            hovertext=[s.verdict for s in stats],
        )
    )
    fig.add_vline(x=0, line_dash="dash", line_color="#767676")
    return layout(
        fig,
        title=f"{metric}: Δ vs {result.baseline}, 95% CI",
        height=160 + 28 * len(stats),
        xaxis_title="candidate − baseline",
    )


def sorted_deltas(result: Any, candidate: str, metric: str, link: Any) -> Any:
    """Per-query Δ of one candidate and measure, sorted; a point opens its query."""
    import plotly.graph_objects as go

    pairs = sorted((q.deltas[candidate][metric], q.query_id) for q in result.per_query)
    fig = go.Figure(
        go.Scatter(
            x=list(range(1, len(pairs) + 1)),
            y=[d for d, _ in pairs],
            text=[qid for _, qid in pairs],
            customdata=[link(qid) for _, qid in pairs],
            mode="lines+markers" if len(pairs) <= 500 else "lines",
            line={"shape": "hv", "color": "#1a56b8"},
            hovertemplate="query %{text}<br>Δ %{y:.4f}<extra></extra>",
        )
    )
    fig.add_hline(y=0, line_dash="dash", line_color="#767676")
    return layout(
        fig,
        title=f"Per-query Δ, sorted: {candidate} − {result.baseline}, {metric}",
        height=320,
        xaxis_title="queries (sorted by Δ)",
        yaxis_title="Δ",
    )


def pass_rates(result: Any) -> Any:
    """Pass rate and pass^N per matrix variant."""
    import plotly.graph_objects as go

    names = [v.variant for v in result.variants]
    fig = go.Figure(
        [
            go.Bar(name="pass rate", x=names, y=[v.pass_rate for v in result.variants]),
            go.Bar(name="pass^N", x=names, y=[v.pass_all_rate for v in result.variants]),
        ]
    )
    return layout(fig, barmode="group", yaxis={"range": [0, 1]}, height=340, title="Pass rates")


def history(report: Any, metric: str, link: Any, spans: dict | None = None) -> Any:
    """One measure over time: a line per series and judgment-set version; points open results;
    error bars where ``spans`` (run id -> measure -> ``(low, high)``) holds an interval."""
    import plotly.graph_objects as go

    fig = go.Figure()
    for series in dict.fromkeys(r.series for r in report.rows):
        rows = [r for r in report.rows if r.series == series and metric in r.metrics]
        for segment in dict.fromkeys(r.segment for r in rows):
            part = [r for r in rows if r.segment == segment]
            version = (part[0].judgments_version or "?").removeprefix("sha256:")[:10]
            found = [(spans or {}).get(r.run_id, {}).get(metric) for r in part]
            bars = None
            if any(found):
                bars = {
                    "type": "data",
                    "symmetric": False,
                    "array": [
                        s[1] - r.metrics[metric] if s else 0
                        for s, r in zip(found, part, strict=True)
                    ],
                    "arrayminus": [
                        r.metrics[metric] - s[0] if s else 0
                        for s, r in zip(found, part, strict=True)
                    ],
                }
            fig.add_trace(
                go.Scatter(
                    x=[r.created_at for r in part],
                    y=[r.metrics[metric] for r in part],
                    customdata=[link(r.run_id) for r in part],
                    text=[f"run {r.run_id}" for r in part],
                    mode="lines+markers",
                    error_y=bars,
                    name=f"{series} [{version}]",
                    hovertemplate="%{x}<br>%{y:.4f}<br>%{text}<extra></extra>",
                )
            )
    for r in report.rows:
        if r.version_changed and r.created_at:
            fig.add_vline(x=r.created_at, line_dash="dash", line_color="#a15c00")
    return layout(
        fig, title=metric, height=340, legend={"orientation": "h", "y": -0.25}, showlegend=True
    )
