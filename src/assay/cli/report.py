"""``assay report``: render a saved result file again, in any format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app


@app.command()
def report(
    result_file: Annotated[
        Path, typer.Argument(help="A result file written with -o FILE.json by any command.")
    ],
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            help="Output format: table, plain, json, csv, jsonl, markdown, html or junit, as "
            "the result's kind allows (default: from the -o suffix, else table).",
        ),
    ] = None,
    output: o.Output = None,
) -> None:
    """Render any result file again (evaluation, comparison, answers, gate, verify, matrix,
    history, judge and implicit-judgment results), in every format its command writes."""
    from assay.cli.common import emit_result, resolve_format
    from assay.report.render import FORMATS_BY_KIND
    from assay.results import read_result_file

    result = read_result_file(result_file)
    fmt = resolve_format(fmt, output, FORMATS_BY_KIND[result.kind])
    emit_result(result, fmt, output)
