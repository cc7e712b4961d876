"""``assay validate``: check judgment sets, runs, corpora, answer cases, assay.toml files
and result files without evaluating."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app

OUTPUT_FORMATS = ("table", "plain", "json")


@app.command()
def validate(
    files: Annotated[
        list[Path],
        typer.Argument(
            help="Judgment sets (JSONL, CSV, JSON, TREC, BEIR folder), runs, corpora, answer "
            "cases, assay.toml files or result files."
        ),
    ],
    judgments_format: Annotated[
        str | None,
        typer.Option(
            "--judgments-format",
            help="Judgment format: jsonl, csv, json, trec or beir (default: detected).",
        ),
    ] = None,
    queries: Annotated[
        Path | None, typer.Option("--queries", help="Queries file of TREC qrels (TSV or JSONL).")
    ] = None,
    split: Annotated[str, typer.Option("--split", help="BEIR split.")] = "test",
    corpus: Annotated[
        Path | None,
        typer.Option("--corpus", help="Corpus (JSONL or BEIR folder): judged doc ids must exist."),
    ] = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    kind: Annotated[
        str | None,
        typer.Option(
            "--kind",
            help="Kind of file: judgments, run, corpus, answers, config or result "
            "(default: detected).",
        ),
    ] = None,
    fmt: o.format_option(*OUTPUT_FORMATS) = None,  # type: ignore[valid-type]
    output: o.output_option(*OUTPUT_FORMATS) = None,  # type: ignore[valid-type]
) -> None:
    """Check files and print a summary of each; exit 2 when any has problems."""
    from assay.cli.common import emit, resolve_format
    from assay.errors import AssayError
    from assay.procedures.validation import ValidateOptions, validate_files

    fmt = resolve_format(fmt, output, OUTPUT_FORMATS)
    options = ValidateOptions(
        kind=kind, judgments_format=judgments_format, queries=queries, split=split,
        corpus=corpus, id_field=id_field, text_fields=tuple(text_field) if text_field else None,
    )  # fmt: skip
    checked = validate_files(files, options)
    emit(
        fmt,
        output,
        text=lambda f: checked.to_json(),
        table=lambda console: _print_tables(checked.reports, console),
        choices=OUTPUT_FORMATS,
        kind="validation",
    )
    failure = checked.failure()
    if failure:  # an AssayError (not typer.Exit) so that main() exits with code 2
        raise AssayError(failure)


def _print_tables(reports: list[Any], out: Any) -> None:
    from rich.console import Console
    from rich.markup import escape

    from assay.report.table import Column, Table, print_line, print_table
    from assay.words import count

    err = Console(stderr=True, highlight=False, soft_wrap=True)
    for report in reports:
        if not report.ok:
            err.print(
                f"[bold red]error:[/bold red] {escape(report.path)} "
                f"({report.kind or 'unknown kind'}): {count(len(report.problems), 'problem')}"
            )
            for problem in report.problems:
                err.print(f"  {escape(problem)}")
            if report.truncated:
                err.print(f"  ... stopped after {len(report.problems)} problems")
            continue
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
