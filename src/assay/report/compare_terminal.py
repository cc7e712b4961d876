"""Render a :class:`ComparisonResult` as rich tables for the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.compare_common import interval, num, pval, settings_line, signed
from assay.stats.models import ComparisonResult

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

_STYLE = {"better": "bold green", "worse": "bold red", "no detectable difference": "dim"}


def render_terminal(result: ComparisonResult, console: Console | None = None) -> None:
    """Print the aggregate table, slices, biggest changes and power to ``console``."""
    from rich.console import Console
    from rich.table import Table

    out = console or Console()
    if not out.is_terminal and out.width < 120:
        out = Console(file=out.file, width=120, no_color=out.no_color, highlight=False)
    title = f"{result.judgments_name} (judgments {result.judgments_version})"
    table = Table(
        title=f"Comparison vs {result.baseline} — {title}",
        title_justify="left",
        box=None,
        header_style="bold",
    )
    for col in ("system", "metric", "base", "cand", "Δ", "95% CI", "p adj", "W/L/T"):
        left = col in ("system", "metric")
        table.add_column(
            col,
            justify="left" if left else "right",
            no_wrap=not left,
            min_width=6 if left else None,
        )
    table.add_column("verdict", min_width=7)
    table.caption = "p adj: Holm-adjusted p; W/L/T: queries won/lost/tied by the candidate"
    for c in result.comparisons:
        table.add_row(
            c.candidate,
            c.metric,
            num(c.baseline_mean),
            num(c.candidate_mean),
            signed(c.delta),
            interval(c, 3),
            pval(c.p_adjusted),
            f"{c.wins}/{c.losses}/{c.ties}",
            f"[{_STYLE[c.verdict]}]{c.verdict}[/]",
        )
    out.print(table)
    out.print(f"[dim]{settings_line(result)}[/dim]")
    for w in result.warnings:
        out.print(f"[yellow]warning:[/yellow] {w}")

    if result.slices:
        st = Table(title="Per slice", title_justify="left", box=None, header_style="bold")
        for col in ("slice", "n", "system", "metric", "delta", "95% CI", "p (Holm)", "verdict"):
            numeric = col in ("n", "delta", "95% CI", "p (Holm)")
            st.add_column(col, no_wrap=col != "verdict", justify="right" if numeric else "left")
        for s in result.slices:
            st.add_row(
                f"{s.field}={s.value}",
                str(s.n),
                s.candidate,
                s.metric,
                signed(s.delta),
                interval(s),
                pval(s.p_adjusted),
                f"[{_STYLE[s.verdict]}]{s.verdict}[/]",
            )
        out.print(st)

    for c in result.comparisons:
        if not (c.top_losses or c.top_gains):
            continue
        qt = Table(
            title=f"Largest changes: {c.candidate} {c.metric}",
            title_justify="left",
            box=None,
            header_style="bold",
        )
        for col in ("", "query", "text", "baseline", "candidate", "delta", "first rel rank"):
            qt.add_column(col, no_wrap=col != "text", overflow="fold")
        for label, rows in (("loss", c.top_losses), ("gain", c.top_gains)):
            for q in rows:
                qt.add_row(
                    label,
                    q.query_id,
                    q.text[:60],
                    num(q.baseline),
                    num(q.candidate),
                    signed(q.delta),
                    f"{q.baseline_rank or '–'} → {q.candidate_rank or '–'}",
                )
        out.print(qt)

    pt = Table(
        title=f"Power ({result.settings.power_method})",
        title_justify="left",
        box=None,
        header_style="bold",
    )
    for col in ("system", "metric", "n", "sd of diffs", "min detectable delta", "queries for 0.02"):
        left = col in ("system", "metric")
        pt.add_column(col, justify="left" if left else "right", no_wrap=True)
    for p in result.power:
        pt.add_row(
            p.candidate,
            p.metric,
            str(p.n),
            num(p.sd_diff),
            num(p.min_detectable_delta),
            str(p.queries_needed),
        )
    out.print(pt)
