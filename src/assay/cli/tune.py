"""``assay tune``: choose a system's parameters by cross-validation, judged on held-out queries."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.common import finish, options_from, resolve_format
from assay.report.kinds import formats_of


@app.command()
def tune(
    judgments: o.Judgments,
    system: o.SystemSpec = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            metavar="KEY=V1,V2",
            help="KEY=V1,V2,... (repeatable): values of a key of the system's table, as TOML; "
            "a dotted key reaches a nested table (params.seed, weights.bm25).",
        ),
    ] = None,
    metric: Annotated[
        list[str] | None,
        typer.Option("--metric", "-m", help="Measure (repeatable); the first is the objective."),
    ] = None,
    folds: Annotated[int, typer.Option("--folds", help="Folds over queries.")] = 5,
    seed: Annotated[int, typer.Option("--seed", help="Seed of folds, sample, tests.")] = 0,
    by: Annotated[
        str | None, typer.Option("--by", help="Query field the folds are stratified by.")
    ] = None,
    search: Annotated[
        str,
        typer.Option(
            "--search", metavar="grid|random", help="Grid (every set) or random (--trials sets)."
        ),
    ] = "grid",
    trials: Annotated[
        int | None, typer.Option("--trials", help="Sets drawn by --search random (20).")
    ] = None,
    test: Annotated[
        str, typer.Option("--test", help="Paired test: randomization, t, wilcoxon or bootstrap.")
    ] = "randomization",
    alpha: Annotated[float, typer.Option("--alpha", help="Level of the adjusted p.")] = 0.05,
    correction: o.Correction = None,
    config: o.Config = None,
    corpus: o.Corpus = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    k: o.Depth = 100,
    fmt: o.kind_format("tuning") = None,  # type: ignore[valid-type]
    output: o.kind_output("tuning") = None,  # type: ignore[valid-type]
    judgments_format: o.JudgmentsFormat = None,
    queries: o.Queries = None,
    split: o.Split = "test",
    missing: o.Missing = "zero",
    ties: o.Ties = "score",
    retries: o.Retries = None,
    no_cache: o.NoCache = False,
    cache_dir: o.CacheDir = None,
    store: o.Store = None,
    record: o.Record = True,
    quiet: o.Quiet = False,
    executor: o.Executor = None,
) -> None:
    """Choose parameters by cross-validation over queries; judge the choice on held-out ones.

    Each set's run is computed once (run cache); each fold's choice is made on the
    other folds; the tuned system is compared with the system as configured on
    held-out scores only, and the optimism of the in-sample best is reported.
    """
    from assay.procedures.options import ScoringOptions, SourceOptions
    from assay.procedures.tuning import TuneOptions
    from assay.procedures.tuning import tune as run_tune

    fmt = resolve_format(fmt, output, formats_of("tuning"))
    params, metrics = tuple(param or ()), tuple(metric or ())
    options = options_from(TuneOptions, locals())
    source = options_from(SourceOptions, locals(), text_fields="text_field")
    result = run_tune(judgments, options, source, options_from(ScoringOptions, locals()))
    finish(result, fmt, output, record=record, store=store)
