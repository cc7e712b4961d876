"""``assay verify-suite``: a deliberately degraded system must score significantly lower."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app


@app.command("verify-suite")
def verify_suite_command(
    judgments: Annotated[Path, typer.Argument(help="Judgment set.")],
    system: Annotated[str, typer.Option("--system", "-s", help="The system under test.")] = "",
    degraded: Annotated[
        str,
        typer.Option(
            "--degraded",
            help="A degraded system (name in assay.toml) or 'shuffle' (the system's own "
            "ranking shuffled, seeded).",
        ),
    ] = "",
    config: o.Config = None,
    corpus: o.Corpus = None,
    k: o.Depth = 100,
    metric: Annotated[str, typer.Option("--metric", "-m", help="Metric.")] = "nDCG@10",
    alpha: Annotated[float, typer.Option("--alpha", help="Significance level.")] = 0.05,
    seed: Annotated[int, typer.Option("--seed", help="Seed for the test and the shuffle.")] = 0,
    judgments_format: o.JudgmentsFormat = None,
    queries: o.Queries = None,
    store: o.Store = None,
    record: Annotated[
        bool, typer.Option("--record/--no-record", help="Record the verdict in the store.")
    ] = False,
    max_failed: o.MaxFailed = 0,
) -> None:
    """Run a system and a degraded variant; exit 1 unless the variant scores significantly lower."""
    from rich.console import Console

    from assay.cli.common import (
        build_cli_system,
        check_max_failed_option,
        exit_if_failed,
        load_cli_judgments,
    )
    from assay.errors import UsageError
    from assay.evaluation import run_live, score_run
    from assay.metrics.measures import parse_measures
    from assay.report.gate_terminal import render_verify_terminal
    from assay.store.verify import SHUFFLE, shuffle_run, verify_suite

    check_max_failed_option(max_failed)
    if not system or not degraded:
        raise UsageError("give --system NAME and --degraded NAME (or --degraded shuffle)")
    if k < 1:
        raise UsageError(f"-k must be a whole number >= 1, got {k}")
    measures = parse_measures([metric])
    js = load_cli_judgments(judgments, judgments_format, queries=queries)
    sys_obj = build_cli_system(system, config=config, corpus=corpus)
    ref_run, ref_info = run_live(sys_obj, js, k=k, progress=False)
    reference = score_run(ref_run, js, measures, info=ref_info)
    if degraded == SHUFFLE:
        shuffled = shuffle_run(ref_run, seed, name=f"{ref_run.name} (shuffled, seed {seed})")
        info = {**ref_info, "name": shuffled.name}
        worse = score_run(shuffled, js, measures, ties="given", info=info)
    else:
        deg_obj = build_cli_system(degraded, config=config, corpus=corpus)
        deg_run, deg_info = run_live(deg_obj, js, k=k, progress=False)
        worse = score_run(deg_run, js, measures, info=deg_info)
    result = verify_suite(reference, worse, measures[0].name, alpha=alpha, seed=seed)
    if record:
        from assay.store.api import record_quietly

        record_quietly(result, store)  # a store error warns; the verdict stands
    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:
        console.width = 120
    render_verify_terminal(result, console)
    exit_if_failed(
        [(r.run.name, list(r.run.failed_queries)) for r in (reference, worse)], max_failed
    )
    if not result.passed:
        raise typer.Exit(1)
