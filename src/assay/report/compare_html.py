"""Render a :class:`ComparisonResult` as one self-contained HTML file.

plotly.js is embedded inline (no network needed to view the file). The page
holds the aggregate table, a forest plot of deltas with CIs per metric (overall
and per slice), a sorted per-query delta chart per candidate x metric, the
queries with the largest losses and gains, power, and the per-query table with
a text filter. Every table sits in a scrolling container so a wide table never
widens the page (the charts keep the window's width).
"""

from __future__ import annotations

from html import escape
from typing import Any

from assay.report.compare_common import (
    effect,
    interval,
    num,
    power_cells,
    pval,
    settings_line,
    signed,
)
from assay.report.policies import policy_lines
from assay.stats.models import ComparisonResult

#: At most this many sorted-delta charts (candidate x metric) are drawn.
MAX_DELTA_CHARTS = 12
#: Largest-change tables all start expanded when there are at most this many
#: (otherwise only those of comparisons with a verdict other than no difference).
OPEN_CHANGES = 6

_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:right}
th{background:#f3f3f3}td{white-space:nowrap}
td.l,th.l{text-align:left}td.text{white-space:normal;min-width:20rem;max-width:36rem}
.scroll{max-width:100%;overflow-x:auto;margin:1rem 0}.scroll>table{margin:0}
.scroll.tall{max-height:80vh;overflow-y:auto}
.scroll.tall thead th{position:sticky;top:0;z-index:1;box-shadow:0 1px 0 #ccc}
details{margin:.5rem 0}summary{cursor:pointer;font-weight:600}
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


def _scroll(table: str, *, tall: bool = False) -> str:
    """``table`` inside a container that scrolls instead of widening the page."""
    return f"<div class='scroll{' tall' if tall else ''}'>{table}</div>"


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
        "n",
    )
    rows = [
        "<tr>"
        f"<td class=l>{_e(c.candidate)}</td><td class=l>{_e(c.metric)}</td>"
        f"<td>{num(c.baseline_mean, metric=c.metric)}</td>"
        f"<td>{num(c.candidate_mean, metric=c.metric)}</td>"
        f"<td>{signed(c.delta, metric=c.metric)}</td><td>{interval(c)}</td>"
        f"<td>{pval(c.p_value)}</td>"
        f"<td>{pval(c.p_adjusted)}</td><td>{effect(c.effect_size)}</td>"
        f"<td>{c.wins}/{c.losses}/{c.ties}</td>"
        f"<td class='l {_CLASS[c.verdict]}'>{_e(c.verdict)}</td><td>{c.n}</td></tr>"
        for c in result.comparisons
    ]
    ths = "".join(
        f"<th class=l>{h}</th>" if h in ("system", "metric", "verdict") else f"<th>{h}</th>"
        for h in head
    )
    return _scroll(
        f"<table id=aggregate><thead><tr>{ths}</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _power_table(result: ComparisonResult) -> str:
    rows = "".join(
        f"<tr><td class=l>{_e(p.candidate)}</td><td class=l>{_e(p.metric)}</td><td>{p.n}</td>"
        + "".join(f"<td>{_e(cell)}</td>" for cell in power_cells(p))
        + "</tr>"
        for p in result.power
    )
    return _scroll(
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
        cells = [f"<td class=l>{_e(q.query_id)}</td>", f"<td class='l text'>{_e(q.text)}</td>"]
        cells += [f"<td class=l>{_e(q.slices.get(f) or '')}</td>" for f in fields]
        cells += [
            f"<td>{num(q.values[s][m], metric=m)}</td>" for m in result.metrics for s in systems
        ]
        cells += [
            f"<td>{signed(q.deltas[c][m], metric=m)}</td>"
            for m in result.metrics
            for c in result.candidates
        ]
        cells += [f"<td>{_e(q.first_rel_rank.get(s) or '–')}</td>" for s in systems]
        body.append(f"<tr>{''.join(cells)}</tr>")
    n_text = 2 + len(fields)
    ths = "".join(
        f"<th class=l>{_e(h)}</th>" if i < n_text else f"<th>{_e(h)}</th>"
        for i, h in enumerate(head)
    )
    return (
        "<p><input id=filter type=search placeholder='filter queries (id, text, slice)' "
        f"oninput='assayFilter()'> <span id=shown>{len(result.per_query)}</span> shown</p>"
        + _scroll(
            f"<table id=per-query><thead><tr>{ths}</tr></thead>"
            f"<tbody>{''.join(body)}</tbody></table>",
            tall=True,
        )
    )


def _changes(result: ComparisonResult) -> str:
    """Per candidate x metric: the queries with the largest losses and gains."""
    shown = [c for c in result.comparisons if c.top_losses or c.top_gains]
    if not shown:
        return "<p>No query changed.</p>"
    base = _e(result.baseline)
    parts = []
    for c in shown:
        cand = _e(c.candidate)
        head = (
            "<tr><th class=l>change</th><th class=l>query</th><th class=l>text</th>"
            f"<th>{base}</th><th>{cand}</th><th>Δ</th>"
            f"<th>first rel rank [{base}]</th><th>first rel rank [{cand}]</th></tr>"
        )
        rows = "".join(
            f"<tr><td class='l {cls}'>{label}</td><td class=l>{_e(q.query_id)}</td>"
            f"<td class='l text'>{_e(q.text)}</td><td>{num(q.baseline, metric=c.metric)}</td>"
            f"<td>{num(q.candidate, metric=c.metric)}</td>"
            f"<td class={cls}>{signed(q.delta, metric=c.metric)}</td>"
            f"<td>{_rank(q.baseline_rank)}</td><td>{_rank(q.candidate_rank)}</td></tr>"
            for label, cls, items in (
                ("loss", "worse", c.top_losses),
                ("gain", "better", c.top_gains),
            )
            for q in items
        )
        table = f"<table class=changes><thead>{head}</thead><tbody>{rows}</tbody></table>"
        summary = (
            f"{_e(c.candidate)} · {_e(c.metric)}: {len(c.top_losses)} largest losses, "
            f"{len(c.top_gains)} largest gains"
        )
        few = len(shown) <= OPEN_CHANGES
        opened = " open" if few or c.verdict != "no detectable difference" else ""
        parts.append(f"<details{opened}><summary>{summary}</summary>{_scroll(table)}</details>")
    return "".join(parts)


def _rank(rank: int | None) -> str:
    return "–" if rank is None else str(rank)


def render_html(result: ComparisonResult) -> str:
    """The whole report as one HTML document with plotly.js inline."""
    from assay.report.plotly_page import chart_html, plotly_script

    figures = [_forest(result, m) for m in result.metrics]
    pairs = [(c, m) for c in result.candidates for m in result.metrics][:MAX_DELTA_CHARTS]
    figures += [_sorted_deltas(result, c, m) for c, m in pairs]
    divs = [chart_html(fig, f"chart-{i}") for i, fig in enumerate(figures)]
    n_forest = len(result.metrics)
    warnings = "".join(f"<p class=warn>⚠ {_e(w)}</p>" for w in result.warnings)
    policies = "".join(f"<li>{_e(line)}</li>" for line in policy_lines(result.policies))
    title = f"assay compare: vs {result.baseline} on {result.judgments_name}"
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{_e(title)}</title><style>{_CSS}</style>"
        f"{plotly_script()}<script>{_FILTER_JS}</script></head><body>"
        f"<h1>{_e(title)}</h1>"
        f"<p>Judgments {_e(result.judgments_name)} version <code>{_e(result.judgments_version)}"
        f"</code>; systems: {_e(', '.join(s.name for s in result.systems))}.</p>"
        f"<p>{_e(settings_line(result))}</p>{warnings}"
        f"<h2>Scoring policies</h2><ul class=policies>{policies}</ul>"
        f"<h2>Aggregate</h2>{_aggregate_table(result)}"
        f"<h2>Deltas with confidence intervals</h2>{''.join(divs[:n_forest])}"
        f"<h2>Per-query deltas</h2>{''.join(divs[n_forest:])}"
        f"<h2>Largest losses and gains</h2><p>Per candidate and metric, the queries whose "
        f"value changed most against {_e(result.baseline)}, with the rank of the first "
        f"relevant document in each system.</p>{_changes(result)}"
        f"<h2>Power</h2><p>{_e(result.settings.power_method)}</p>{_power_table(result)}"
        f"<h2>Per query</h2>{_per_query_table(result)}"
        "</body></html>\n"
    )
