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
    from assay.cli.common import say_wrote
    from assay.procedures.fusion import FuseOptions, fuse

    options = FuseOptions(
        method=method, k_rrf=k_rrf, weights=weights, alpha=alpha, depth=depth, limit=limit,
        tag=tag, format=fmt,
    )  # fmt: skip
    fused = fuse(runs, output, options)
    typer.echo(f"fused {fused.inputs} runs ({fused.method})", err=True)
    say_wrote(fused.path, "run", fused.format)
