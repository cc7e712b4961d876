"""Render a :class:`ComparisonResult` as rich tables for the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.compare_common import (
    MARKS,
    effect,
    interval,
    num,
    power_cells,
    pval,
    ranks,
    settings_line,
    signed,
)
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
    for col in ("system", "metric", "n", "base", "cand", "Δ", "95% CI", "p", "p Holm", "d"):
        left = col in ("system", "metric")
        table.add_column(
            col,
            justify="left" if left else "right",
            no_wrap=not left,
            min_width=6 if left else None,
        )
    table.add_column("W/L/T", justify="right", no_wrap=True)
    table.add_column("verdict", no_wrap=True)
    table.caption = (
        "base/cand: mean per system; p: paired test; p Holm: Holm-adjusted p (decides the "
        "verdict); d: effect size, mean Δ / sd of Δ (Cohen's d_z); W/L/T: queries won/lost/"
        "tied by the candidate; no diff: no detectable difference"
    )
    table.caption_justify = "left"
    for c in result.comparisons:
        table.add_row(
            c.candidate,
            c.metric,
            str(c.n),
            num(c.baseline_mean, 3),
            num(c.candidate_mean, 3),
            signed(c.delta),
            interval(c, 3),
            pval(c.p_value),
            pval(c.p_adjusted),
            effect(c.effect_size),
            f"{c.wins}/{c.losses}/{c.ties}",
            f"[{_STYLE[c.verdict]}]{MARKS[c.verdict]}[/]",
        )
    out.print(table)
    out.print(f"[dim]{settings_line(result)}[/dim]")
    for w in result.warnings:
        out.print(f"[yellow]warning:[/yellow] {w}")

    if result.slices:
        st = Table(title="Per slice", title_justify="left", box=None, header_style="bold")
        for col in ("slice", "n", "system", "metric", "Δ", "95% CI", "p", "p Holm", "d"):
            left = col in ("slice", "system", "metric")
            st.add_column(col, no_wrap=not left, justify="left" if left else "right")
        st.add_column("verdict", no_wrap=True)
        for s in result.slices:
            st.add_row(
                f"{s.field}={s.value}",
                str(s.n),
                s.candidate,
                s.metric,
                signed(s.delta),
                interval(s, 3),
                pval(s.p_value),
                pval(s.p_adjusted),
                effect(s.effect_size),
                f"[{_STYLE[s.verdict]}]{MARKS[s.verdict]}[/]",
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
                    ranks(q),
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
        pt.add_row(p.candidate, p.metric, str(p.n), *power_cells(p))
    out.print(pt)
