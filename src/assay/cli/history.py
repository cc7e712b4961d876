"""``assay history``: recorded runs over time, with judgment-set version changes marked."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.common import finish, resolve_format
from assay.report.kinds import formats_of


@app.command()
def history(
    store: Annotated[
        str | None,
        typer.Option(
            "--store", help="History store URL (default .assay/history.db or $ASSAY_STORE)."
        ),
    ] = None,
    system: Annotated[str | None, typer.Option("--system", "-s", help="Only this system.")] = None,
    judgments: Annotated[
        str | None,
        typer.Option("--judgments", "-j", help="Only this judgment set (name or version)."),
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option(
            "--metric",
            "-m",
            help="Metric to show (repeatable). Default: those common to the listed results, "
            "at most 6.",
        ),
    ] = None,
    kind: Annotated[
        str,
        typer.Option(
            "--kind", help="Kind of result: evaluation, comparison, answers, gate, verify or all."
        ),
    ] = "evaluation",
    fmt: o.kind_format("history") = None,  # type: ignore[valid-type]
    output: o.kind_output("history") = None,  # type: ignore[valid-type]
) -> None:
    """List recorded results over time; --format html adds a trend chart."""
    from assay.store.history import read_history

    fmt = resolve_format(fmt, output, formats_of("history"))
    report = read_history(store, system=system, judgments=judgments, metrics=metric, kind=kind)
    finish(report, fmt, output)
