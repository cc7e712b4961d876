"""``assay fuse``: fuse TREC run files (RRF, score fusion) into one run, as pyserini does."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app


@app.command()
def fuse(
    runs: Annotated[list[Path], typer.Argument(help="TREC run files to fuse (two or more).")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Write the fused run here.")],
    method: Annotated[
        str,
        typer.Option(
            "--method",
            help="Method: rrf | weighted | combsum | combmnz | minmax (normalize) | "
            "interpolation | "
            "average",
        ),
    ] = "rrf",
    k_rrf: Annotated[int, typer.Option("--rrf-k", help="RRF constant k.")] = 60,
    weights: Annotated[
        list[float] | None, typer.Option("--weight", help="Weight per run (weighted, minmax).")
    ] = None,
    alpha: Annotated[float, typer.Option("--alpha", help="Interpolation weight.")] = 0.5,
    depth: Annotated[int, typer.Option("--depth", help="Entries read from each run.")] = 1000,
    limit: Annotated[int, typer.Option("-k", "--limit", help="Entries kept per query.")] = 1000,
    tag: Annotated[str, typer.Option("--runtag", help="Run tag of the output.")] = "fused",
    fmt: o.RunFormat = None,
) -> None:
    """Fuse run files query by query; the rank column of each file is used, as pyserini."""
    from assay.cli.common import say_wrote, validate_choice
    from assay.errors import UsageError
    from assay.formats import format_from_name
    from assay.runs.io import FORMATS, write_run
    from assay.systems.fusion import FUSION_METHODS, fuse_files

    if fmt is not None:
        validate_choice("--format", fmt, FORMATS)
    fmt = fmt or format_from_name(output, "run") or "trec"
    if method not in FUSION_METHODS:
        raise UsageError(f"--method must be one of {', '.join(FUSION_METHODS)}; got {method!r}")
    fused = fuse_files(
        runs,
        method=method,  # type: ignore[arg-type]
        k_rrf=k_rrf,
        weights=weights,
        alpha=alpha,
        depth=depth,
        limit=limit,
        name=tag,
    )
    write_run(fused, output, format=fmt, tag=tag, ties="given")
    typer.echo(f"fused {len(runs)} runs ({method})", err=True)
    say_wrote(output, "run", fmt)
