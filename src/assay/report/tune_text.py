"""A :class:`~assay.tuning.result.TuningResult` on a terminal and in Markdown: the grid (in
sample), each fold's choice, the optimism, the recommended set with its honest score, and
the held-out comparison as ``assay compare`` prints it. Read only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from assay.report.compare_terminal import render_terminal as comparison
from assay.report.escape import md_cell
from assay.report.table import Column, Table, markdown_table, print_line, print_table
from assay.tuning.space import label

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.4f}"


def signed(value: float) -> str:
    """A difference with its sign; rounding noise (under 1e-12) shows as +0.0000."""
    return f"{0.0 if abs(value) < 1e-12 else value:+.4f}"


def _set(params: dict[str, Any]) -> str:

    return label(params)


def headline(result: Any) -> str:
    """One line: what was tuned, on what, how."""
    how = "grid" if result.search == "grid" else "random sample"
    strata = f", stratified by {result.by}" if result.by else ""
    return (
        f"tuning {result.system} ({result.system_type}) on {result.judgments_name}: "
        f"{len(result.grid)} sets ({how}), {result.n_queries} queries in {result.n_folds} "
        f"folds{strata}, objective {result.objective}; runs computed {result.computed}, "
        f"cached {result.cached}"
    )


def grid_table(result: Any) -> Table:
    """Every set with its in-sample means; the recommended one marked."""
    keys = list(result.parameters)
    table = Table(
        [Column(k, key=True) for k in keys]
        + [Column(m, "right") for m in result.metrics]
        + [Column("")],
        title="Grid (means over every query: in sample, optimistic)",
    )
    for i, point in enumerate(result.grid):
        mark = "recommended" if i == result.recommended.index else ""
        cells = [_set({k: point.params[k]}).split("=", 1)[1] for k in keys]
        table.add_row(*cells, *(_num(point.means.get(m)) for m in result.metrics), mark)
    return table


def folds_table(result: Any) -> Table:
    """Each fold: its size, the set chosen on the others, training and held-out scores."""
    obj = result.objective
    table = Table(
        [
            Column("fold", "right", key=True),
            Column("queries", "right"),
            Column("chosen"),
            Column(f"train {obj}", "right"),
            Column(f"held-out {obj}", "right"),
        ],
        title="Folds (each chosen on the other folds)",
    )
    for f in result.folds:
        table.add_row(
            str(f.fold),
            str(len(f.queries)),
            _set(f.chosen),
            _num(f.train_score),
            _num(f.held_out_score),
        )
    return table


def summary_table(result: Any) -> Table:
    """Per measure: the recommended set's honest and in-sample scores, and the optimism."""
    rec = result.recommended
    table = Table(
        [
            Column("measure", key=True),
            Column("honest (held-out)", "right"),
            Column("in sample", "right"),
            Column("optimism", "right"),
        ],
        title=f"Recommended: {_set(rec.params)}",
    )
    for m in result.metrics:
        table.add_row(
            m,
            _num(rec.honest_score.get(m)),
            _num(rec.in_sample_score.get(m)),
            signed(result.optimism.get(m, 0.0)),
        )
    return table


def render_terminal(result: Any, console: Console) -> None:
    """The tables, then the held-out comparison as ``assay compare`` prints it."""

    print_line(console, headline(result))
    for table in (grid_table(result), folds_table(result), summary_table(result)):
        console.print()
        print_table(table, console)
    console.print()
    print_line(console, "Held out: the system as configured vs the cross-validated choice")
    comparison(result.held_out, console)


def render_markdown(result: Any) -> str:
    """The same in Markdown."""
    from assay.report.compare_markdown import render_markdown as comparison

    parts = [f"## assay tune: {md_cell(result.system)}", "", md_cell(headline(result)), ""]
    for table in (summary_table(result), folds_table(result), grid_table(result)):
        parts += [markdown_table(table), ""]
    parts += ["**Held out: the system as configured vs the cross-validated choice**", ""]
    parts.append(comparison(result.held_out))
    return "\n".join(parts)
