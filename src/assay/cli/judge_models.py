"""``assay judge llm|claims|answers|agree|sample|calibrate``: model judges, measured against people.

Each command parses its options, calls one library function of
:mod:`assay.judges` and renders the result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli.judge import judge_app

_FORMATS = ("text", "json")


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        typer.echo(text)
    else:
        from assay.report.output import write_text_atomic

        write_text_atomic(output, text + "\n")
        typer.echo(f"wrote {output}", err=True)


@judge_app.command("agree")
def agree(
    reference: Annotated[Path, typer.Argument(help="Reference labels (people, usually).")],
    candidate: Annotated[Path, typer.Argument(help="Candidate labels (a model, a reviewer).")],
    threshold: Annotated[
        int, typer.Option("--threshold", help="Grade at or above which a pair is relevant.")
    ] = 1,
    max_grade: Annotated[
        int | None, typer.Option("--max-grade", help="Clip grades above this (a policy).")
    ] = None,
    by: Annotated[
        list[str] | None,
        typer.Option("--by", help="Query field to break down by (default language, query_class)."),
    ] = None,
    runs: Annotated[
        list[Path] | None,
        typer.Option("--runs", help="Runs to rank with both label sets (give two or more)."),
    ] = None,
    measure: Annotated[
        str, typer.Option("--measure", help="Measure of the system ranking.")
    ] = "nDCG@10",
    disagreements: Annotated[
        Path | None,
        typer.Option("--disagreements", help="Write pairs graded differently here (JSONL)."),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    output: Annotated[Path | None, typer.Option("-o", "--output", help="Write here.")] = None,
) -> None:
    """Agreement of CANDIDATE with REFERENCE: accuracy, confusion, kappa, alpha."""
    from assay.cli.common import validate_choice
    from assay.judges.agree import agreement

    validate_choice("--format", fmt, _FORMATS)
    result = agreement(
        reference,
        candidate,
        threshold=threshold,
        max_grade=max_grade,
        by=by or None,
        runs=runs or (),
        measure=measure,
        keep_disagreements=disagreements is not None,
    )
    if disagreements is not None:
        import json

        from assay.report.output import write_text_atomic

        rows = result.disagreements
        write_text_atomic(
            disagreements, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        )
        typer.echo(f"wrote {len(rows)} disagreements to {disagreements}", err=True)
    if fmt == "json":
        _emit(result.to_json(), output)
    else:
        from assay.report.judges_text import render_agreement

        _emit(render_agreement(result), output)
