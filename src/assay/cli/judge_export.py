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
    """What the export wrote, on stderr: the file, the version, how pairs were decided."""
    from assay.cli.common import say_wrote
    from assay.procedures.judging_files import ReviewExport

    if isinstance(summary, ReviewExport):
        say_wrote(summary.path, "review", "jsonl")
        typer.echo(f"review: {summary.items} reviewed items", err=True)
        return
    rules = ", ".join(f"{rule} {n}" for rule, n in sorted(summary.rules.items()))
    say_wrote(summary.path, "judgments", summary.format)
    typer.echo(
        f"judgments version {summary.version}: "
        f"{summary.pairs} pairs over {summary.queries} queries; pairs by rule: {rules}",
        err=True,
    )
    if summary.ties:
        typer.echo(
            f"note: {len(summary.ties)} tied pairs left out until adjudicated, e.g. "
            f"{summary.ties[0][0]}/{summary.ties[0][1]}",
            err=True,
        )
    if summary.kept_no_answer:
        typer.echo(
            f"note: {len(summary.kept_no_answer)} no-answer queries of --base kept no-answer "
            f"(e.g. {summary.kept_no_answer[0]}): the people's grades >= 1 for them are kept "
            "in assessments only; remove the no-answer mark in the base to make one answerable",
            err=True,
        )
    if summary.no_answer_queries:
        typer.echo(
            f"note: {len(summary.no_answer_queries)} queries have no grade >= 1 and are written "
            "with no_answer=true (ranking metrics skip them)",
            err=True,
        )
