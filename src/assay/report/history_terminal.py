"""Terminal rendering of a :class:`~assay.store.history.HistoryReport`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

    from assay.store.history import HistoryReport


def _short(version: str | None) -> str:
    if not version:
        return "-"
    return version.removeprefix("sha256:")[:10]


def render_terminal(report: HistoryReport, console: Console) -> None:
    """One row per recorded result, oldest first; a version change is flagged with ``*``."""
    from rich.markup import escape
    from rich.table import Table

    if not report.rows:
        console.print(f"no results recorded in {escape(report.store)} match the filters")
        return
    table = Table(show_edge=False)
    for name in ("run", "created", "kind", "system", "judgments", "version", "git"):
        table.add_column(name)
    for m in report.metrics:
        table.add_column(m, justify="right")
    for r in report.rows:
        version = _short(r.judgments_version)
        if r.version_changed:
            version = f"[bold yellow]*{version}[/]"
        git = (r.git_commit or "-")[:8] + ("+dirty" if r.dirty else "")
        cells = [
            str(r.run_id),
            escape(r.created_at or "-"),
            r.kind,
            escape(r.system or "-"),
            escape(r.judgments_name or "-"),
            version,
            git,
        ]
        cells += [f"{r.metrics[m]:.4f}" if m in r.metrics else "" for m in report.metrics]
        table.add_row(*cells)
    console.print(table)
    if report.version_changes:
        console.print(
            f"[yellow]*[/] judgment-set version changed ({report.version_changes}x): "
            "scores before and after a change are not comparable"
        )
