"""``assay history``: recorded runs over time, with judgment-set version changes marked."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app

FORMATS = ("table", "plain", "json", "html")


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
    fmt: o.format_option(*FORMATS) = None,  # type: ignore[valid-type]
    output: o.output_option(*FORMATS) = None,  # type: ignore[valid-type]
) -> None:
    """List recorded results over time; --format html adds a trend chart."""
    from assay.cli.common import finish, resolve_format
    from assay.store.history import read_history

    fmt = resolve_format(fmt, output, FORMATS)
    report = read_history(store, system=system, judgments=judgments, metrics=metric, kind=kind)
    finish(report, fmt, output, emitter=_emit)


def _emit(report: Any, fmt: str, output: Any) -> None:
    """The history in ``fmt``: the table, JSON, or the HTML page with its trend chart."""
    from assay.cli.common import emit
    from assay.report.history_terminal import render_terminal

    def text(f: str) -> str:
        if f == "json":
            return report.to_json()
        from assay.report.html.export import render_history_html

        return render_history_html(report)

    emit(
        fmt,
        output,
        text=text,
        table=lambda c: render_terminal(report, c),
        choices=FORMATS,
        kind=report.kind,
    )
