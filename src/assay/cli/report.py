"""``assay report``: render a saved result file again, in any format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app

#: Every format some result kind renders in (each kind allows its own: see ``FORMATS_BY_KIND``).
REPORT_FORMATS = ("table", "plain", "json", "csv", "jsonl", "markdown", "html", "junit", "parquet")


@app.command()
def report(
    result_file: Annotated[
        Path, typer.Argument(help="A result file written with -o FILE.json by any command.")
    ],
    fmt: o.format_option(*REPORT_FORMATS) = None,  # type: ignore[valid-type]
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
    history, judge and implicit-judgment results), in every format its command writes."""
    from assay.cli.common import emit_result, resolve_format
    from assay.report.render import FORMATS_BY_KIND, render
    from assay.results import read_result_file

    result = read_result_file(result_file)
    fmt = resolve_format(fmt, output, FORMATS_BY_KIND[result.kind])

    def text(f: str) -> str:
        if f == "html" and result.kind != "history":  # `assay view`'s page, one file
            from assay.report.html.export import render_html

            return render_html(result, folders=[result_file.resolve().parent])
        return render(result, f)

    emit_result(result, fmt, output, text=text)
