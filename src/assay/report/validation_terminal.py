"""The ``assay validate`` report: a table of what each valid file holds, and each invalid
file's problems on stderr.

``assay validate`` and ``assay report validation.json`` print a
:class:`~assay.procedures.validation.ValidationResult` with :func:`print_validation`,
so both print the same tables. It reads the result only.
"""

from __future__ import annotations

from typing import Any

from assay.core.words import count
from assay.report.table import Column, Table, print_line, print_table


def print_validation(result: Any, out: Any, err: Any = None) -> None:
    """Print each valid file's summary as a table to ``out`` (a rich console), and each
    invalid file's problems to ``err`` (default: a console on stderr)."""
    if err is None:
        from rich.console import Console

        err = Console(stderr=True, highlight=False, soft_wrap=True)
    for report in result.reports:
        if report.ok:
            _print_summary(report, out)
        else:
            _print_problems(report, err)


def _print_problems(report: Any, err: Any) -> None:
    from rich.markup import escape

    err.print(
        f"[bold red]error:[/bold red] {escape(report.path)} "
        f"({report.kind or 'unknown kind'}): {count(len(report.problems), 'problem')}"
    )
    for problem in report.problems:
        err.print(f"  {escape(problem)}")
    if report.truncated:
        err.print(f"  ... stopped after {len(report.problems)} problems")


def _print_summary(report: Any, out: Any) -> None:
    from rich.markup import escape

    table = Table(
        [Column("field", key=True), Column("value", wrap=True)],
        title=f"{report.path} ({report.kind}): OK",
    )
    summary = report.summary or {}
    for key, value in summary.items():
        if key in ("path", "warnings"):
            continue
        if isinstance(value, dict):
            value = ", ".join(f"grade {k}: {v}" for k, v in value.items()) or "-"
        elif isinstance(value, list):
            value = ", ".join(map(str, value)) or "-"
        table.add_row(key.replace("_", " "), str(value))
    print_table(table, out)
    for warning in summary.get("warnings", []):
        print_line(out, f"[yellow]warning:[/yellow] {escape(warning)}", markup=True)
