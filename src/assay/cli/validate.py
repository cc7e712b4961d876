"""``assay validate``: check judgment sets, runs, corpora, answer cases, assay.toml files
and result files without evaluating."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.common import finish, resolve_format
from assay.report.kinds import formats_of


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
    fmt: o.kind_format("validation") = None,  # type: ignore[valid-type]
    output: o.kind_output("validation") = None,  # type: ignore[valid-type]
) -> None:
    """Check files and print a summary of each; exit 2 when any has problems."""
    from assay.procedures.validation import ValidateOptions, validate_files

    fmt = resolve_format(fmt, output, formats_of("validation"))
    options = ValidateOptions(
        kind=kind, judgments_format=judgments_format, queries=queries, split=split,
        corpus=corpus, id_field=id_field, text_fields=tuple(text_field) if text_field else None,
    )  # fmt: skip
    finish(validate_files(files, options), fmt, output)  # not recorded in the history store
