"""Terminal rendering of a :class:`~assay.store.history.HistoryReport`.

Compact on purpose: minutes not seconds, short hashes, yes/no for booleans,
a gate's or verify-suite's verdict next to its kind. The table goes through
:mod:`assay.report.table`: sized to a terminal, full width on a pipe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from assay.report.digits import fmt
from assay.report.table import Cell, Column, Styled, Table, print_line, print_table
from assay.store.db import ROLE_GATE_FAILED
from assay.store.history import BOOLEAN_METRICS

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from assay.store.history import HistoryReport, HistoryRow

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


def _kind(row: HistoryRow) -> Cell:

    if row.kind == "gate" and "passed" in row.metrics:
        return "gate: pass" if row.metrics["passed"] else Styled("gate: FAIL", "red")
    if row.kind == "verify" and "passed" in row.metrics:
        return "verify: pass" if row.metrics["passed"] else Styled("verify: FAIL", "red")
    if row.role == ROLE_GATE_FAILED:
        return "evaluation (failed gate)"
    return row.kind


def _value(metric: str, row: HistoryRow) -> str:

    if metric not in row.metrics:
        return ""
    value = row.metrics[metric]
    if metric in BOOLEAN_METRICS:
        return "yes" if value else "no"

    return fmt(float(value), 4, metric)


def history_table(report: HistoryReport) -> Table:
    """The table of recorded results, oldest first; a version change is flagged with ``*``."""
    cols = [Column("run", "right", key=True), Column("created (UTC)"), Column("kind")]
    cols += [Column("system"), Column("judgments"), Column("version"), Column("git")]
    cols += [Column(m, "right") for m in report.metrics]
    table = Table(cols)
    for r in report.rows:
        version: Cell = short_hash(r.judgments_version)
        if r.version_changed:
            version = Styled(f"*{version}", "bold yellow")
        git = short_hash(r.git_commit, GIT_CHARS) + ("+dirty" if r.dirty else "")
        table.add_row(
            str(r.run_id),
            short_time(r.created_at),
            _kind(r),
            r.system or "-",
            r.judgments_name or "-",
            version,
            git,
            *[_value(m, r) for m in report.metrics],
        )
    return table


def render_terminal(report: HistoryReport, console: Console) -> None:
    """The table (see :mod:`assay.report.table`), then notes on left-out metrics and
    judgment-set version changes."""
    from rich.markup import escape

    if not report.rows:
        print_line(console, f"no results recorded in {report.store} match the filters")
        return
    print_table(history_table(report), console)
    if report.metrics_note:
        print_line(console, f"[dim]{escape(report.metrics_note)}[/]", markup=True)
    if report.version_changes:
        print_line(
            console,
            f"[yellow]*[/] judgment-set version changed ({report.version_changes}x): "
            "scores before and after a change are not comparable",
            markup=True,
        )
