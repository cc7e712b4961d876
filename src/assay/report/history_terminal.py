"""Terminal rendering of a :class:`~assay.store.history.HistoryReport`.

Compact on purpose: minutes not seconds, short hashes, yes/no for booleans,
a gate's verdict next to its kind. Written to a pipe or a file, the console is
as wide as the table needs, between :data:`MIN_PIPE_WIDTH` and
:data:`MAX_PIPE_WIDTH` columns; long metric names wrap in the header, numbers
are never cut.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.table import Table

    from assay.store.history import HistoryReport, HistoryRow

#: Width bounds when the output is not a terminal (a pipe, a CI log, a file).
MIN_PIPE_WIDTH = 120
MAX_PIPE_WIDTH = 160
#: Room for a value such as ``-0.0714``.
VALUE_CHARS = 7
#: Characters of a judgment-set version (content hash) and of a git commit shown.
HASH_CHARS = 8
GIT_CHARS = 7


def short_hash(value: str | None, chars: int = HASH_CHARS) -> str:
    """``sha256:aed657d0...`` -> ``aed657d0``; ``-`` when absent."""
    if not value:
        return "-"
    return value.split(":", 1)[-1][:chars]


def short_time(created_at: str | None) -> str:
    """``2024-01-01T10:20:30+00:00`` -> ``2024-01-01 10:20`` (times are recorded in UTC)."""
    if not created_at:
        return "-"
    return created_at.replace("T", " ")[:16]


def _kind(row: HistoryRow) -> str:
    from assay.store.db import ROLE_GATE_FAILED

    if row.kind == "gate" and "passed" in row.metrics:
        return "gate: pass" if row.metrics["passed"] else "[red]gate: FAIL[/]"
    if row.role == ROLE_GATE_FAILED:
        return "evaluation [dim](failed gate)[/]"
    return row.kind


def _value(metric: str, row: HistoryRow) -> str:
    from assay.store.history import BOOLEAN_METRICS

    if metric not in row.metrics:
        return ""
    value = row.metrics[metric]
    if metric in BOOLEAN_METRICS:
        return "yes" if value else "no"
    return f"{value:.4f}"


def history_table(report: HistoryReport) -> Table:
    """The table of recorded results, oldest first; a version change is flagged with ``*``."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(show_edge=False)
    table.add_column("run", no_wrap=True)
    table.add_column("created (UTC)", min_width=10)  # wraps between date and time
    table.add_column("kind", min_width=10)
    table.add_column("system", overflow="fold", min_width=8)
    table.add_column("judgments", overflow="fold", min_width=8)
    table.add_column("version", no_wrap=True)
    table.add_column("git", no_wrap=True)
    for m in report.metrics:
        table.add_column(escape(m), justify="right", overflow="fold", min_width=VALUE_CHARS)
    for r in report.rows:
        version = short_hash(r.judgments_version)
        if r.version_changed:
            version = f"[bold yellow]*{version}[/]"
        git = short_hash(r.git_commit, GIT_CHARS) + ("+dirty" if r.dirty else "")
        table.add_row(
            str(r.run_id),
            short_time(r.created_at),
            _kind(r),
            escape(r.system or "-"),
            escape(r.judgments_name or "-"),
            version,
            git,
            *[_value(m, r) for m in report.metrics],
        )
    return table


def render_terminal(report: HistoryReport, console: Console) -> None:
    """The table, then notes on left-out metrics and judgment-set version changes.

    When ``console`` is not a terminal its width is set to what the table
    needs, within :data:`MIN_PIPE_WIDTH` .. :data:`MAX_PIPE_WIDTH`. A console
    narrower than the table's minimum is widened to it (the terminal wraps the
    lines) rather than letting columns disappear.
    """
    from rich.markup import escape

    if not report.rows:
        console.print(f"no results recorded in {escape(report.store)} match the filters")
        return
    table = history_table(report)
    size = console.measure(table, options=console.options.update_width(10_000))
    if not console.is_terminal:
        console.width = min(max(MIN_PIPE_WIDTH, size.maximum), MAX_PIPE_WIDTH)
    console.width = max(console.width, size.minimum)
    console.print(table)
    if report.metrics_note:
        console.print(f"[dim]{escape(report.metrics_note)}[/]")
    if report.version_changes:
        console.print(
            f"[yellow]*[/] judgment-set version changed ({report.version_changes}x): "
            "scores before and after a change are not comparable"
        )
