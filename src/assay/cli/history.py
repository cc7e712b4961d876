"""``assay history``: recorded runs over time, with judgment-set version changes marked."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app

FORMATS = ("table", "plain", "json", "html")


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
        typer.Option(
            "--kind", help="Kind of result: evaluation, comparison, answers, gate, verify or all."
        ),
    ] = "evaluation",
    fmt: o.format_option(*FORMATS) = None,  # type: ignore[valid-type]
    output: o.output_option(*FORMATS) = None,  # type: ignore[valid-type]
) -> None:
    """List recorded results over time; --format html adds a trend chart."""

    from assay.cli.common import emit, resolve_format
    from assay.store.api import open_store
    from assay.store.history import build_history

    fmt = resolve_format(fmt, output, FORMATS)
    metrics = [_metric_name(m) for m in dict.fromkeys(metric)] if metric else None
    with open_store(store, read_only=True) as st:
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
