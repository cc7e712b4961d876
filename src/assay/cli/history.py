"""``assay history``: recorded runs over time, with judgment-set version changes marked."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli.app import app

FORMATS = ("table", "json", "html")


def _metric_name(text: str) -> str:
    """A measure's canonical name (``ndcg_cut_10`` -> ``nDCG@10``), else ``text`` as recorded
    (``passed``, ``delta nDCG@10``, an answer score)."""
    from assay.errors import UsageError
    from assay.metrics.measures import parse_measure

    try:
        return parse_measure(text).name
    except UsageError:
        return text


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
        typer.Option("--kind", help="evaluation | comparison | answers | gate | verify | all."),
    ] = "evaluation",
    fmt: Annotated[str, typer.Option("--format", "-f", help="table | json | html")] = "table",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of stdout.")
    ] = None,
) -> None:
    """List recorded results over time; --format html adds a trend chart."""
    import sys

    from assay.cli.common import validate_choice
    from assay.fileio import write_text_atomic
    from assay.store.api import open_store
    from assay.store.history import build_history

    validate_choice("--format", fmt, FORMATS)
    metrics = [_metric_name(m) for m in dict.fromkeys(metric)] if metric else None
    with open_store(store) as st:
        entries = st.list(system=system, judgments=judgments, kind=None if kind == "all" else kind)
        where = repr(st)
    if metrics:
        entries = [e for e in entries if any(m in e.metrics for m in metrics)]
    report = build_history(
        entries,
        store=where,
        metrics=metrics,
        filters={"system": system, "judgments": judgments, "kind": kind},
    )
    if fmt == "table":
        from rich.console import Console

        from assay.report.history_terminal import render_terminal

        # not a terminal (a pipe, a file): render_terminal widens the console to fit
        if output is None:
            render_terminal(report, Console(highlight=False))
            return
        import io

        buf = io.StringIO()
        render_terminal(report, Console(file=buf, no_color=True, highlight=False))
        write_text_atomic(output, buf.getvalue())
        return
    if fmt == "json":
        text = report.to_json()
    else:
        from assay.report.history_html import render_html

        text = render_html(report)
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        write_text_atomic(output, text)
