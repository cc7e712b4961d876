"""``assay judge pool``: the unjudged pairs that runs rank near the top, for people to grade."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.judge import judge_app


@judge_app.command("pool")
def pool(
    judgments: o.Judgments,
    runs: Annotated[list[Path], typer.Argument(help="Run files (TREC or JSONL) to pool.")],
    output: Annotated[Path, typer.Option("--output", "-o", help="Pool file to write (JSONL).")],
    fmt: o.data_format_option("jsonl") = "jsonl",  # type: ignore[valid-type]
    depth: Annotated[
        int, typer.Option("--depth", "-d", help="Pool the top DEPTH documents of each run.")
    ] = 10,
    strategy: Annotated[
        str,
        typer.Option(
            "--strategy",
            help="Order: depth (query order, best rank first); rank: rank-weighted across runs; "
            "delta: documents that could most change the comparison between the runs first.",
        ),
    ] = "depth",
    budget: Annotated[
        int | None, typer.Option("--budget", help="Keep only the first N pairs of the ordering.")
    ] = None,
    judgments_format: o.JudgmentsFormat = None,
    queries: o.Queries = None,
    split: o.Split = "test",
) -> None:
    """Write the unjudged (query, doc) pairs in the top --depth of any run (TREC depth pooling)."""
    from assay.cli.common import say_wrote, validate_choice
    from assay.procedures.judging_files import PoolOptions, pool_file

    validate_choice("--format", fmt, ("jsonl",))
    options = PoolOptions(
        depth=depth,
        strategy=strategy,
        budget=budget,
        judgments_format=judgments_format,
        queries=queries,
        split=split,
    )
    pairs = pool_file(judgments, runs, output, options)
    nq = len({p.query_id for p in pairs})
    say_wrote(output, "pool", "jsonl")
    typer.echo(
        f"pool: {len(pairs)} unjudged pairs over {nq} queries "
        f"(top {depth} of {len(runs)} runs, strategy {strategy}"
        + (f", budget {budget}" if budget is not None else "")
        + ")",
        err=True,
    )
