"""``assay report``: render a saved result file again, in any format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.common import emit_result, resolve_format
from assay.report.kinds import View, all_formats, formats_of


@app.command()
def report(
    result_file: Annotated[
        Path, typer.Argument(help="A result file written with -o FILE.json by any command.")
    ],
    fmt: o.format_option(*all_formats()) = None,  # type: ignore[valid-type]
    output: Annotated[
        list[Path] | None,
        typer.Option(
            "--output",
            "-o",
            help="Write the report to this file, in the format its suffix names, among those "
            "the result's kind renders in (see -f). Repeatable.",
        ),
    ] = None,
) -> None:
    """Render any result file again (evaluation, comparison, answers, gate, verify, matrix,
    history, validation, judge and implicit-judgment results), in every format its command
    writes."""
    from assay.procedures.result_files import read_result

    result = read_result(result_file)
    fmt = resolve_format(fmt, output, formats_of(result.kind))
    # rendered only: a failed gate or failed queries in the file do not fail `report`;
    # a matrix page reads the cases beside the result file
    emit_result(result, fmt, output, view=View(folders=(result_file.resolve().parent,)))
