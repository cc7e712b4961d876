"""``assay evaluate``: score a run file or a live system on a judgment set."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app

FORMATS = ("table", "plain", "json", "csv", "markdown", "parquet")
Format = o.format_option(*FORMATS)


@app.command()
def evaluate(
    judgments: o.Judgments,
    run: Annotated[
        Path | None,
        typer.Argument(
            help="Run file (TREC or JSONL), read strictly: a blank or '#' line or a rank that "
            "is not a number is an error (assay trec-eval skips them, as trec_eval does). "
            "Omit with --system."
        ),
    ] = None,
    system: o.SystemSpec = None,
    config: o.Config = None,
    corpus: o.Corpus = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    k: o.Depth = 100,
    metric: o.Metrics = None,
    by: o.By = None,
    fmt: Format = None,
    output: o.output_option(*FORMATS) = None,  # type: ignore[valid-type]
    missing: o.Missing = "zero",
    ties: o.Ties = "score",
    ignore_identical_ids: o.IgnoreIdenticalIds = False,
    judgments_format: o.JudgmentsFormat = None,
    queries: Annotated[
        Path | None,
        typer.Option("--queries", help="Queries file for TREC qrels (TSV id<TAB>text or JSONL)."),
    ] = None,
    split: o.Split = "test",
    digits: Annotated[
        int | None,
        typer.Option("--digits", help="Decimals in tables (default: from the number of queries)."),
    ] = None,
    per_query: Annotated[
        bool | None,
        typer.Option(
            "--per-query/--no-per-query",
            help="Show per-query rows in the table (default: up to 50 queries).",
        ),
    ] = None,
    abstain_below: o.AbstainBelow = None,
    store: o.Store = None,
    record: o.Record = True,
    retries: o.Retries = None,
    max_consecutive_failures: o.MaxConsecutiveFailures = 5,
    allow_version_mismatch: o.AllowVersionMismatch = False,
    calibrate: Annotated[
        Path | None,
        typer.Option("--calibrate", help="People's labels on a sample: add PPI++ intervals."),
    ] = None,
    no_cache: o.NoCache = False,
    cache_dir: o.CacheDir = None,
    max_failed: o.MaxFailed = 0,
    name: o.Name = None,
    prefer: Annotated[
        str | None,
        typer.Option("--prefer", help="Which labels win where a pair has a human and a model one."),
    ] = None,
    quiet: o.Quiet = False,
    executor: o.Executor = None,
    mix_synthetic: o.MixSynthetic = False,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline", help="Make no model calls: endpoint embeddings replay their cache."
        ),
    ] = False,
) -> None:
    """Score a run (or a live system) on a judgment set, overall and per group."""
    from assay.cli.common import (
        build_cli_system,
        check_max_failed_option,
        emit_report,
        load_cli_judgments,
        record_result,
        resolve_format,
        run_cache,
    )
    from assay.corpora import read_corpus_ids
    from assay.errors import UsageError
    from assay.policies import check_policies
    from assay.procedures.arguments import check_k, check_order
    from assay.procedures.evaluation import evaluate
    from assay.procedures.sources import reading_beside
    from assay.progress import set_quiet

    set_quiet(quiet)
    fmt = resolve_format(fmt, output, FORMATS)
    check_max_failed_option(max_failed)
    if digits is not None and not 0 <= digits <= 15:
        raise UsageError(f"--digits must be a whole number from 0 to 15, got {digits}")
    check_policies(missing, ties)
    check_k(k)
    if run is not None and system is not None:
        raise UsageError("give a RUN file or --system NAME, not both")
    if run is None and system is None:
        raise UsageError("give a RUN file to score, or --system NAME to run a system")
    check_order(judgments, run)
    with reading_beside(run) as source:  # the run file is read while the judgments load
        corpus_ids = read_corpus_ids(corpus, id_field=id_field) if corpus is not None else None
        js = load_cli_judgments(
            judgments,
            judgments_format,
            queries=queries,
            split=split,
            corpus_ids=corpus_ids,
            prefer=prefer,
        )
    if system is not None:
        source = build_cli_system(
            system,
            config=config,
            corpus=corpus,
            id_field=id_field,
            text_fields=text_field,
            judgments=judgments,
            offline=offline,
        )
    cache = run_cache(no_cache, cache_dir)
    if calibrate is not None:  # calibration needs the run itself: load it once, here
        from assay.procedures.sources import load_source

        source = load_source(
            source,
            js,
            k=k,
            name=name,
            progress=True,
            retries=retries,
            cache=cache,
            allow_version_mismatch=allow_version_mismatch,
            max_consecutive_failures=max_consecutive_failures,
        )
    result = evaluate(
        js,
        source,
        metric,
        by or [],
        missing=missing,
        ties=ties,
        k=k,
        name=name,
        progress=True,
        retries=retries,
        abstain_below=abstain_below,
        cache=cache,
        allow_version_mismatch=allow_version_mismatch,
        max_consecutive_failures=max_consecutive_failures,
        mix_synthetic=mix_synthetic,
        ignore_identical_ids=ignore_identical_ids,
    )
    if calibrate is not None:  # model labels on every query + people's sample
        from assay.judges.calibrate import attach_calibration
        from assay.judges.calibrate import calibrate as ppi

        cal = ppi(js, source.run, calibrate, metrics=list(result.metrics))
        result = attach_calibration(result, cal)
    if record:
        record_result(result, store)
    emit_report(result, fmt, output, digits=digits, per_query=per_query)
    if calibrate is not None and fmt == "table":
        from assay.report.judges_text import render_calibration

        typer.echo(render_calibration(cal))
    if result.judgments.queries == 0 and result.run.failed_queries:
        raise typer.Exit(1)  # every call failed: nothing was scored
    from assay.cli.common import exit_if_failed

    exit_if_failed([(result.run.name, list(result.run.failed_queries))], max_failed)
