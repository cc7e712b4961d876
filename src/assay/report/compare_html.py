"""Render a :class:`ComparisonResult` as one self-contained HTML file.

plotly.js is embedded inline (no network needed to view the file). The page
holds the aggregate table, a forest plot of deltas with CIs per metric (overall
and per slice), a sorted per-query delta chart per candidate x metric, and the
per-query table with a text filter.
"""

from __future__ import annotations

from html import escape
from typing import Any

from assay.report.compare_common import interval, num, pval, settings_line, signed
from assay.stats.models import ComparisonResult

#: At most this many sorted-delta charts (candidate x metric) are drawn.
MAX_DELTA_CHARTS = 12

_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:right}
th{background:#f3f3f3}td.l,th.l{text-align:left}
.better{color:#0a7a28;font-weight:600}.worse{color:#b3141b;font-weight:600}
.nodiff{color:#666}.warn{color:#8a5a00}
#filter{padding:.3rem;width:24rem}
"""

_FILTER_JS = """
function assayFilter(){
  var q=document.getElementById('filter').value.toLowerCase();
  var rows=document.querySelectorAll('#per-query tbody tr');var shown=0;
  rows.forEach(function(r){var ok=r.textContent.toLowerCase().indexOf(q)>=0;
    r.style.display=ok?'':'none';if(ok){shown++;}});
  document.getElementById('shown').textContent=shown;
}
"""

_CLASS = {"better": "better", "worse": "worse", "no detectable difference": "nodiff"}


def _e(value: Any) -> str:
    return escape(str(value))


def _aggregate_table(result: ComparisonResult) -> str:
    head = (
        "system",
        "metric",
        "baseline",
        "candidate",
        "delta",
        "95% CI",
        "p",
        "p (Holm)",
        "effect",
        "wins/losses/ties",
        "verdict",
    )
    rows = [
        "<tr>"
        f"<td class=l>{_e(c.candidate)}</td><td class=l>{_e(c.metric)}</td>"
        f"<td>{num(c.baseline_mean)}</td><td>{num(c.candidate_mean)}</td>"
        f"<td>{signed(c.delta)}</td><td>{interval(c)}</td><td>{pval(c.p_value)}</td>"
        f"<td>{pval(c.p_adjusted)}</td><td>{num(c.effect_size, 2)}</td>"
        f"<td>{c.wins}/{c.losses}/{c.ties}</td>"
        f"<td class='l {_CLASS[c.verdict]}'>{_e(c.verdict)}</td></tr>"
        for c in result.comparisons
    ]
    ths = "".join(
        f"<th class=l>{h}</th>" if h in ("system", "metric", "verdict") else f"<th>{h}</th>"
        for h in head
    )
    return (
        f"<table id=aggregate><thead><tr>{ths}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _power_table(result: ComparisonResult) -> str:
    rows = "".join(
        f"<tr><td class=l>{_e(p.candidate)}</td><td class=l>{_e(p.metric)}</td><td>{p.n}</td>"
        f"<td>{num(p.sd_diff)}</td><td>{num(p.min_detectable_delta)}</td>"
        f"<td>{p.queries_needed}</td></tr>"
        for p in result.power
    )
    return (
        "<table id=power><thead><tr><th class=l>system</th><th class=l>metric</th><th>n</th>"
        "<th>sd of diffs</th><th>min detectable delta</th><th>queries for 0.02</th></tr>"
        f"</thead><tbody>{rows}</tbody></table>"
    )


def _forest(result: ComparisonResult, metric: str) -> Any:
    import plotly.graph_objects as go

    items = [
        (f"{c.candidate} · all (n={c.n})", c) for c in result.comparisons if c.metric == metric
    ]
    items += [
        (f"{s.candidate} · {s.field}={s.value} (n={s.n})", s)
        for s in result.slices
        if s.metric == metric
    ]
    labels = [label for label, _ in items][::-1]
    stats = [s for _, s in items][::-1]
    colour = {"better": "#0a7a28", "worse": "#b3141b", "no detectable difference": "#777"}
    fig = go.Figure(
        go.Scatter(
            x=[s.delta for s in stats],
            y=labels,
            mode="markers",
            marker={"size": 9, "color": [colour[s.verdict] for s in stats]},
            error_x={
                "type": "data",
                "symmetric": False,
                "array": [s.ci_high - s.delta for s in stats],
                "arrayminus": [s.delta - s.ci_low for s in stats],
            },
            hovertext=[f"{s.verdict}, p (Holm) {pval(s.p_adjusted)}" for s in stats],
        )
    )
    fig.add_vline(x=0, line_dash="dash", line_color="#999")
    fig.update_layout(
        title=f"{metric}: delta vs {result.baseline} with 95% CI",
        height=160 + 28 * len(stats),
        margin={"l": 260, "r": 30, "t": 50, "b": 40},
        xaxis_title="candidate − baseline",
    )
    return fig


def _sorted_deltas(result: ComparisonResult, candidate: str, metric: str) -> Any:
    import plotly.graph_objects as go

    pairs = sorted((q.deltas[candidate][metric], q.query_id) for q in result.per_query)
    fig = go.Figure(
        go.Scatter(
            x=list(range(1, len(pairs) + 1)),
            y=[d for d, _ in pairs],
            text=[qid for _, qid in pairs],
            mode="lines+markers" if len(pairs) <= 500 else "lines",
            line={"shape": "hv", "color": "#3465a4"},
            hovertemplate="query %{text}<br>delta %{y:.4f}<extra></extra>",
        )
    )
    fig.add_hline(y=0, line_dash="dash", line_color="#999")
    fig.update_layout(
        title=f"Per-query delta, sorted: {candidate} − {result.baseline}, {metric}",
        height=320,
        margin={"l": 60, "r": 30, "t": 50, "b": 40},
        xaxis_title="queries (sorted by delta)",
        yaxis_title="delta",
    )
    return fig


def _per_query_table(result: ComparisonResult) -> str:
    systems = [s.name for s in result.systems]
    fields = list(result.settings.by)
    head = ["query_id", "text", *fields]
    head += [f"{m} [{s}]" for m in result.metrics for s in systems]
    head += [f"Δ {m} [{c}]" for m in result.metrics for c in result.candidates]
    head += [f"rank [{s}]" for s in systems]
    body = []
    for q in result.per_query:
        cells = [f"<td class=l>{_e(q.query_id)}</td>", f"<td class=l>{_e(q.text)}</td>"]
        cells += [f"<td class=l>{_e(q.slices.get(f) or '')}</td>" for f in fields]
        cells += [f"<td>{num(q.values[s][m])}</td>" for m in result.metrics for s in systems]
        cells += [
            f"<td>{signed(q.deltas[c][m])}</td>" for m in result.metrics for c in result.candidates
        ]
        cells += [f"<td>{_e(q.first_rel_rank.get(s) or '–')}</td>" for s in systems]
        body.append(f"<tr>{''.join(cells)}</tr>")
    ths = "".join(f"<th>{_e(h)}</th>" for h in head)
    return (
        "<p><input id=filter type=search placeholder='filter queries (id, text, slice)' "
        f"oninput='assayFilter()'> <span id=shown>{len(result.per_query)}</span> shown</p>"
        f"<table id=per-query><thead><tr>{ths}</tr></thead><tbody>{''.join(body)}</tbody></table>"
    )


def render_html(result: ComparisonResult) -> str:
    """The whole report as one HTML document with plotly.js inline."""
    from plotly.offline import get_plotlyjs

    figures = [_forest(result, m) for m in result.metrics]
    pairs = [(c, m) for c in result.candidates for m in result.metrics][:MAX_DELTA_CHARTS]
    figures += [_sorted_deltas(result, c, m) for c, m in pairs]
    divs = [
        fig.to_html(
            full_html=False,
            include_plotlyjs=False,
            div_id=f"chart-{i}",
            config={"displaylogo": False},
        )
        for i, fig in enumerate(figures)
    ]
    n_forest = len(result.metrics)
    warnings = "".join(f"<p class=warn>⚠ {_e(w)}</p>" for w in result.warnings)
    title = f"assay compare: vs {result.baseline} on {result.judgments_name}"
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{_e(title)}</title><style>{_CSS}</style>"
        f"<script type='text/javascript'>{get_plotlyjs()}</script>"
        f"<script>{_FILTER_JS}</script></head><body>"
        f"<h1>{_e(title)}</h1>"
        f"<p>Judgments {_e(result.judgments_name)} version <code>{_e(result.judgments_version)}"
        f"</code>; systems: {_e(', '.join(s.name for s in result.systems))}.</p>"
        f"<p>{_e(settings_line(result))}</p>{warnings}"
        f"<h2>Aggregate</h2>{_aggregate_table(result)}"
        f"<h2>Deltas with confidence intervals</h2>{''.join(divs[:n_forest])}"
        f"<h2>Per-query deltas</h2>{''.join(divs[n_forest:])}"
        f"<h2>Power</h2><p>{_e(result.settings.power_method)}</p>{_power_table(result)}"
        f"<h2>Per query</h2>{_per_query_table(result)}"
        "</body></html>\n"
    )
