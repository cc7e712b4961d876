"""``assay judge export``: the people's final grades as a judgment set (JSONL or TREC qrels)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.judge import judge_app


@judge_app.command("export")
def export(
    store: Annotated[
        str, typer.Option("--store", help="Judging store: a SQLite path or a PostgreSQL URL.")
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Judgment file to write.")],
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            "-f",
            help="Output format: jsonl (with every assessor's grade), trec or review.",
        ),
    ] = "jsonl",
    base: Annotated[
        Path | None,
        typer.Option(
            "--base", help="Judgment set the pool came from: write it with the people's grades."
        ),
    ] = None,
    queries: o.Queries = None,
) -> None:
    """Write per pair the final grade: adjudicated, else majority, else the single grade."""
    from assay.procedures.judging_files import export_store

    summary = export_store(store, output, fmt, base=base, queries=queries)
    _say_exported(summary)


def _say_exported(summary: Any) -> None:
    """What the export wrote, on stderr (:func:`assay.report.judges_text.export_lines`)."""
    from assay.cli.common import say_wrote
    from assay.procedures.judging_files import ReviewExport
    from assay.report.judges_text import export_lines

    review = isinstance(summary, ReviewExport)
    say_wrote(summary.path, *(("review", "jsonl") if review else ("judgments", summary.format)))
    for line in export_lines(summary):
        typer.echo(line, err=True)
