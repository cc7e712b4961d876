"""The HTML report of a generation matrix: one self-contained file, plotly.js inline.

The page holds the case x variant grid (each cell coloured by its pass rate,
flaky cells marked), a bar chart of pass rate and pass^N per variant, the
variant table with tokens and cost, the comparisons and every failing repeat
with its reasons. Tables scroll inside their container.
"""

from __future__ import annotations

from html import escape
from typing import Any

from assay.matrix.result import Cell, MatrixResult
from assay.report.matrix_terminal import cell_text, fmt, footer

_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;margin:1rem 0;font-size:.9rem}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:right;white-space:nowrap}
th{background:#f3f3f3}td.l,th.l{text-align:left}td.text{white-space:normal;max-width:40rem}
.scroll{max-width:100%;overflow-x:auto}.pass{background:#d7f0dc}.fail{background:#f6d5d5}
.flaky{background:#fbecc4}.better{color:#0a7a28}.worse{color:#b3141b}.note{color:#555}
"""


def _e(value: Any) -> str:
    return escape(str(value))


def _class(cell: Cell | None) -> str:
    if cell is None or cell.n == 0:
        return ""
    return "pass" if cell.pass_all else ("flaky" if cell.flaky else "fail")


def _grid(result: MatrixResult) -> str:
    names = [v.variant for v in result.variants]
    head = "".join(f"<th>{_e(n)}</th>" for n in names)
    rows = []
    for cid in result.case_ids:
        tds = []
        for n in names:
            cell = result.cell(n, cid)
            tds.append(
                f"<td class='{_class(cell)}' data-variant='{_e(n)}'>{_e(cell_text(cell))}</td>"
            )
        kind = _e(result.case_kinds.get(cid, ""))
        rows.append(f"<tr><td class=l>{_e(cid)}</td><td class=l>{kind}</td>{''.join(tds)}</tr>")
    return (
        "<div class=scroll><table id=grid><thead><tr><th class=l>case</th><th class=l>kind</th>"
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _variants(result: MatrixResult) -> str:
    rows = "".join(
        f"<tr><td class=l>{_e(v.variant)}</td><td class=l>{_e(v.provider_kind)}</td>"
        f"<td>{fmt(v.pass_rate)}</td><td>{fmt(v.pass_all_rate)}</td><td>{v.flaky_cells}</td>"
        f"<td>{v.usage.input_tokens}/{v.usage.output_tokens}</td><td>{v.usage.cost:.6f}</td>"
        f"<td>{fmt(v.latency_mean)}</td></tr>"
        for v in result.variants
    )
    return (
        "<div class=scroll><table id=variants><thead><tr><th class=l>variant</th>"
        "<th class=l>provider</th><th>pass rate</th><th>pass^N</th><th>flaky</th>"
        "<th>tokens in/out</th><th>cost USD</th><th>mean latency s</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
    )


def _comparisons(result: MatrixResult) -> str:
    if not result.comparisons:
        return ""
    rows = "".join(
        f"<tr><td class=l>{_e(c.candidate)}</td><td>{c.baseline_only}</td>"
        f"<td>{c.candidate_only}</td><td>{c.delta:+.3f}</td><td>{c.p_value:.4f}</td>"
        f"<td>{c.p_adjusted:.4f}</td><td class='l {c.verdict.split()[0]}'>{_e(c.verdict)}</td>"
        "</tr>"
        for c in result.comparisons
    )
    return (
        f"<h2>Against {_e(result.baseline)}</h2><div class=scroll><table id=comparisons>"
        "<thead><tr><th class=l>candidate</th><th>only baseline</th><th>only candidate</th>"
        "<th>delta pass^N</th><th>p</th><th>p (Holm)</th><th class=l>verdict</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
    )


def _failures(result: MatrixResult) -> str:
    rows = "".join(
        f"<tr><td class=l>{_e(c.variant)}</td><td class=l>{_e(c.case_id)}</td>"
        f"<td>{a.repeat + 1}</td><td class=text>{_e('; '.join(a.reasons))}</td></tr>"
        for c in result.cells
        for a in c.attempts
        if not a.passed
    )
    if not rows:
        return "<p>Every repeat of every cell passed.</p>"
    return (
        "<div class=scroll><table id=failures><thead><tr><th class=l>variant</th>"
        "<th class=l>case</th><th>repeat</th><th class=l>reasons</th></tr></thead>"
        f"<tbody>{rows}</tbody></table></div>"
    )


def _chart(result: MatrixResult) -> str:
    import plotly.graph_objects as go

    names = [v.variant for v in result.variants]
    fig = go.Figure(
        [
            go.Bar(name="pass rate", x=names, y=[v.pass_rate for v in result.variants]),
            go.Bar(name="pass^N", x=names, y=[v.pass_all_rate for v in result.variants]),
        ]
    )
    fig.update_layout(barmode="group", yaxis={"range": [0, 1]}, height=360)
    from assay.report.plotly_page import chart_html

    return chart_html(fig, "chart-pass")


def render_html(result: MatrixResult) -> str:
    """The whole matrix report as one HTML document with plotly.js inline."""
    from assay.report.plotly_page import plotly_script

    title = f"assay matrix: {result.name}"
    notes = "".join(f"<p class=note>{_e(line)}</p>" for line in footer(result))
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{_e(title)}</title><style>{_CSS}</style>"
        f"{plotly_script()}</head><body>"
        f"<h1>{_e(title)}</h1><p>{len(result.case_ids)} cases x {len(result.variants)} "
        f"variants x {result.repeats} repeats; cases <code>{_e(result.cases_version)}</code>. "
        "A cell shows passing repeats / repeats.</p>"
        f"<h2>Grid</h2>{_grid(result)}<h2>Pass rates</h2>{_chart(result)}"
        f"<h2>Variants</h2>{_variants(result)}{_comparisons(result)}"
        f"<h2>Failing repeats</h2>{_failures(result)}{notes}</body></html>\n"
    )
