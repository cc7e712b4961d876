"""``assay report``: render a saved result file again, in any format."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

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
    history, validation, judge and implicit-judgment results), in every format its command
    writes."""
    from assay.procedures.result_files import read_result

    result = read_result(result_file)
    # rendered only: a failed gate or failed queries in the file do not fail `report`
    _emit(result, fmt, output, folder=result_file.resolve().parent)


def _emit(result: Any, fmt: str | None, output: list[Path] | None, *, folder: Path) -> None:
    """The result in ``fmt`` (else the ``-o`` suffix's), among the formats its kind renders
    in; ``html`` is ``assay view``'s page, reading files beside the result from ``folder``."""
    from assay.cli.common import emit_result, resolve_format
    from assay.report.render import FORMATS_BY_KIND, render

    fmt = resolve_format(fmt, output, FORMATS_BY_KIND[result.kind])

    def text(f: str) -> str:
        if f == "html" and result.kind != "history":  # `assay view`'s page, one file
            from assay.report.html.export import render_html

            return render_html(result, folders=[folder])
        return render(result, f)

    emit_result(result, fmt, output, text=text)
