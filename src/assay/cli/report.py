"""``assay report``: render a saved result file again, in any format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli.app import app


@app.command()
def report(
    result_file: Annotated[
        Path, typer.Argument(help="A result file written with --format json -o FILE.json.")
    ],
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            help="Output format: table, plain, json, csv, markdown, html or junit (default: "
            "from the -o suffix, else table).",
        ),
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report here.")
    ] = None,
) -> None:
    """Render an evaluation, comparison, answers, gate, verify or matrix result file."""
    from assay.cli.common import BINARY_FORMATS, resolve_format
    from assay.errors import UsageError
    from assay.fileio import write_bytes_atomic, write_text_atomic
    from assay.report.render import FORMATS_BY_KIND, print_terminal, render, render_bytes
    from assay.results import read_result_file

    result = read_result_file(result_file)
    choices = FORMATS_BY_KIND[result.kind]
    fmt = resolve_format(fmt, output, choices)
    if fmt == "table" and output is None:
        from rich.console import Console

        print_terminal(result, Console())
        return
    if fmt in BINARY_FORMATS:
        if output is None:
            raise UsageError(f"--format {fmt} is written to a file: add -o FILE.{fmt}")
        write_bytes_atomic(output, render_bytes(result, fmt))
        return
    if fmt == "html":  # the page `assay view` serves, as one self-contained file
        from assay.report.html.export import render_html

        text = render_html(result, folders=[result_file.resolve().parent])
    else:
        text = render(result, fmt)
    if output is None:
        typer.echo(text, nl=not text.endswith("\n"))
    else:
        write_text_atomic(output, text)
