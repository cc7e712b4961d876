"""A :class:`ComparisonResult` as tables: printed by the one table renderer, or as Markdown.

:func:`comparison_tables` describes every table once (aggregate, slices, largest
changes, power); the terminal, plain text and Markdown all show the same tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.compare_common import (
    MARKS,
    adjusted_header,
    adjusted_note,
    effect,
    interval,
    num,
    power_cells,
    pval,
    ranks,
    settings_line,
    signed,
)
from assay.report.policies import policy_lines
from assay.report.table import Column, Styled, Table, print_line, print_table
from assay.stats.models import ComparisonResult
from assay.stats.verdict import Verdict

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

_STYLE = {Verdict.BETTER: "bold green", Verdict.WORSE: "bold red", Verdict.NO_DIFFERENCE: "dim"}


def caption(result: ComparisonResult) -> str:
    """The aggregate table's caption, naming the result's correction."""

    return (
        f"base/cand: mean per system (a count's total); p: paired test; {adjusted_note(result)} "
        "(decides the verdict); d: effect size, mean Δ / sd of Δ (Cohen's d_z); W/L/T: queries "
        "won/lost/tied by the candidate; no diff: no detectable difference"
    )


def _verdict(verdict: Verdict) -> Styled:
    return Styled(MARKS[verdict], _STYLE[verdict])


def _right(*names: str) -> list[Column]:
    return [Column(n, "right") for n in names]


def aggregate_table(result: ComparisonResult, digits: int = 3) -> Table:
    """One row per candidate x metric: means, delta, CI, p, adjusted p, d, W/L/T, verdict."""

    title = f"{result.judgments_name} (judgments {result.judgments_version})"
    several = _several(result)
    cols = [Column("system", key=True), Column("metric", key=True)]
    if several:
        cols.insert(1, Column("vs", key=True))
    cols += _right("n", "base", "cand", "Δ", "95% CI", "p", adjusted_header(result), "d", "W/L/T")
    cols.append(Column("verdict"))
    against = ", ".join(_baselines(result)) if several else result.baseline
    title = f"Comparison vs {against} — {title}"
    table = Table(cols, title=title, caption=caption(result))
    for c in result.comparisons:
        table.add_row(
            c.candidate,
            *([c.baseline or result.baseline] if several else []),
            c.metric,
            str(c.n),
            num(c.baseline_mean, digits, c.metric),
            num(c.candidate_mean, digits, c.metric),
            signed(c.delta, metric=c.metric),
            interval(c, digits),
            pval(c.p_value),
            pval(c.p_adjusted),
            effect(c.effect_size),
            f"{c.wins}/{c.losses}/{c.ties}",
            _verdict(c.verdict),
        )
    return table


def _several(result: ComparisonResult) -> bool:
    """True when the comparison has several baselines (rows name their baseline)."""
    return any(c.baseline is not None for c in result.comparisons)


def _baselines(result: ComparisonResult) -> list[str]:
    return list(dict.fromkeys(c.baseline or result.baseline for c in result.comparisons))


def pairs_table(result: ComparisonResult) -> Table | None:
    """Every compared pair per metric with the better system marked (None: one baseline)."""

    if not _several(result):
        return None
    cols = [Column("metric", key=True), Column("A", key=True), Column("B", key=True)]
    cols += [*_right("mean A", "mean B", "Δ B−A", adjusted_header(result)), Column("better")]
    table = Table(cols, title="All compared pairs (better: significantly higher)")
    for c in sorted(result.comparisons, key=lambda c: result.metrics.index(c.metric)):
        better = {Verdict.BETTER: c.candidate, Verdict.WORSE: c.baseline}.get(c.verdict, "–")
        table.add_row(
            c.metric,
            c.baseline or result.baseline,
            c.candidate,
            num(c.baseline_mean, 3, c.metric),
            num(c.candidate_mean, 3, c.metric),
            signed(c.delta, metric=c.metric),
            pval(c.p_adjusted),
            Styled(f"▲ {better}", "bold green") if better != "–" else Styled("–", "dim"),
        )
    return table


def slices_table(result: ComparisonResult, digits: int = 3, *, flagged_only: bool = False) -> Table:
    """One row per slice x candidate x metric (only detectable changes with ``flagged_only``)."""

    cols = [Column("slice", key=True), Column("n", "right"), Column("system", key=True)]
    cols += [Column("metric", key=True), *_right("Δ", "95% CI", "p", adjusted_header(result), "d")]
    cols.append(Column("verdict"))
    title = "Slices with a detectable change" if flagged_only else "Per slice"
    table = Table(cols, title=title)
    for s in result.slices:
        if flagged_only and s.verdict is Verdict.NO_DIFFERENCE:
            continue
        table.add_row(
            f"{s.field}={s.value}",
            str(s.n),
            s.candidate,
            s.metric,
            signed(s.delta, metric=s.metric),
            interval(s, digits),
            pval(s.p_value),
            pval(s.p_adjusted),
            effect(s.effect_size),
            _verdict(s.verdict),
        )
    return table


def changes_tables(result: ComparisonResult) -> list[Table]:
    """Per candidate x metric, its largest losses and gains with the query text."""
    tables = []
    for c in result.comparisons:
        if not (c.top_losses or c.top_gains):
            continue
        cols = [Column(""), Column("query", key=True), Column("text", wrap=True)]
        cols += _right("baseline", "candidate", "delta", "first rel rank")
        table = Table(cols, title=f"Largest changes: {c.candidate} {c.metric}")
        for label, rows in (("loss", c.top_losses), ("gain", c.top_gains)):
            for q in rows:
                table.add_row(
                    label,
                    q.query_id,
                    q.text,
                    num(q.baseline, metric=c.metric),
                    num(q.candidate, metric=c.metric),
                    signed(q.delta, metric=c.metric),
                    ranks(q),
                )
        tables.append(table)
    return tables


def power_table(result: ComparisonResult) -> Table:
    """Per candidate x metric: sd of the differences, minimum detectable delta, queries needed."""
    cols = [Column("system", key=True), Column("metric", key=True)]
    cols += _right("n", "sd of diffs", "min detectable delta", "queries for 0.02")
    table = Table(cols, title=f"Power ({result.settings.power_method})")
    for p in result.power:
        table.add_row(p.candidate, p.metric, str(p.n), *power_cells(p))
    return table


def overlap_table(result: ComparisonResult) -> Table | None:
    """Per candidate: mean RBO and Jaccard@k with the baseline's rankings (None without)."""
    if not result.overlap:
        return None
    first = result.overlap[0]
    cols = [Column("system", key=True), *_right(f"RBO (p={first.p:g})", f"Jaccard@{first.k}")]
    table = Table(cols, title=f"Overlap with {result.baseline} (mean over the paired queries)")
    for o in result.overlap:
        table.add_row(o.candidate, f"{o.rbo:.3f}", f"{o.jaccard:.3f}")
    return table


def render_terminal(result: ComparisonResult, console: Console | None = None) -> None:
    """Print the aggregate table, slices, largest changes and power to ``console``."""
    from rich.console import Console

    out = console or Console()
    print_table(aggregate_table(result), out)
    print_line(out, f"[dim]{settings_line(result)}[/dim]", markup=True)
    for line in policy_lines(result.policies):
        print_line(out, f"policy: {line}")
    for w in result.warnings:
        print_line(out, f"[yellow]warning:[/yellow] {w}", markup=True)
    if result.slices:
        print_table(slices_table(result), out)
    for table in changes_tables(result):
        print_table(table, out)
    print_table(power_table(result), out)
    pairs = pairs_table(result)
    if pairs is not None:
        print_table(pairs, out)
    overlap = overlap_table(result)
    if overlap is not None:
        print_table(overlap, out)
