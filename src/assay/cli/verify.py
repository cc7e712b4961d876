"""``assay verify-suite``: a deliberately degraded system must score significantly lower."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.common import finish, options_from, resolve_format
from assay.report.kinds import formats_of


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
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    k: o.Depth = 100,
    metric: Annotated[
        list[str] | None,
        typer.Option("--metric", "-m", help="Metric (repeatable; every one must drop)."),
    ] = None,
    alpha: Annotated[float, typer.Option("--alpha", help="Significance level.")] = 0.05,
    seed: Annotated[int, typer.Option("--seed", help="Seed for the test and the shuffle.")] = 0,
    judgments_format: o.JudgmentsFormat = None,
    queries: o.Queries = None,
    split: o.Split = "test",
    missing: o.Missing = "zero",
    ties: o.Ties = "score",
    fmt: o.kind_format("verify") = None,  # type: ignore[valid-type]
    output: o.kind_output("verify") = None,  # type: ignore[valid-type]
    store: o.Store = None,
    record: o.Record = True,
    retries: o.Retries = None,
    no_cache: o.NoCache = False,
    cache_dir: o.CacheDir = None,
    max_failed: o.MaxFailed = 0,
    executor: o.Executor = None,
) -> None:
    """Run a system and a degraded variant; exit 1 unless the variant scores significantly lower."""
    from assay.procedures.options import ScoringOptions, SourceOptions
    from assay.procedures.procedure_options import PairedTestOptions
    from assay.procedures.verification import verify_suite

    fmt = resolve_format(fmt, output, formats_of("verify"))
    params = locals()
    result = verify_suite(
        judgments,
        None,  # the system is --system, in the source options
        degraded,
        metric or ["nDCG@10"],
        options_from(ScoringOptions, params),
        statistics=options_from(PairedTestOptions, params),
        source=options_from(SourceOptions, params, text_fields="text_field"),
    )
    finish(result, fmt, output, max_failed=max_failed, record=record, store=store)
