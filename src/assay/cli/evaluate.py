"""``assay evaluate``: score a run file or a live system on a judgment set."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app

FORMATS = ("table", "plain", "json", "csv", "markdown")
Format = o.format_option(*FORMATS)


@app.command()
def evaluate(
    judgments: o.Judgments,
    run: Annotated[
        Path | None, typer.Argument(help="Run file (TREC or JSONL). Omit with --system.")
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
    output: o.Output = None,
    missing: o.Missing = "zero",
    ties: o.Ties = "score",
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
    abstain_below: Annotated[
        float | None,
        typer.Option(
            "--abstain-below",
            help="Top score below which a system counts as returning nothing confident.",
        ),
    ] = None,
    store: o.Store = None,
    record: o.Record = True,
    retries: Annotated[
        int, typer.Option("--retries", help="Retries of a failed system call (with backoff).")
    ] = 2,
    allow_version_mismatch: o.AllowVersionMismatch = False,
    name: o.Name = None,
    quiet: o.Quiet = False,
) -> None:
    """Score a run (or a live system) on a judgment set, overall and per group."""
    from assay.cli.common import (
        build_cli_system,
        check_not_swapped,
        corpus_ids_for,
        emit_report,
        load_cli_judgments,
        resolve_format,
        validate_choice,
    )
    from assay.errors import UsageError
    from assay.evaluation import run_live, score_run
    from assay.metrics.measures import parse_measures
    from assay.progress import set_quiet

    set_quiet(quiet)
    fmt = resolve_format(fmt, output, FORMATS)
    validate_choice("--missing", missing, ("zero", "skip"))
    validate_choice("--ties", ties, ("score", "given"))
    if k < 1:
        raise UsageError(f"-k must be a whole number >= 1, got {k}")
    if run is not None and system is not None:
        raise UsageError("give a RUN file or --system NAME, not both")
    if run is None and system is None:
        raise UsageError("give a RUN file to score, or --system NAME to run a system")
    check_not_swapped(judgments, run)
    measures = parse_measures(metric)
    corpus_ids = corpus_ids_for(corpus, id_field) if corpus is not None else None
    js = load_cli_judgments(
        judgments, judgments_format, queries=queries, split=split, corpus_ids=corpus_ids
    )
    by_fields = list(by or [])
    for field_name in by_fields:
        js.groups(field_name)
    if run is not None:
        from assay.runs.io import load_run
        from assay.runs.sidecar import run_info_from_sidecar

        info = run_info_from_sidecar(run, js.version, allow_version_mismatch=allow_version_mismatch)
        the_run = load_run(run)
        info.update({"name": the_run.name, "path": str(run)})
    else:
        sys_obj = build_cli_system(
            system,
            config=config,
            corpus=corpus,
            id_field=id_field,
            text_fields=text_field,
            judgments=judgments,
        )
        if retries < 0:
            raise UsageError(f"--retries must be >= 0, got {retries}")
        the_run, info = run_live(sys_obj, js, k=k, progress=True, retries=retries)
    if name is not None:
        info["name"] = name
    result = score_run(the_run, js, measures, by_fields, missing=missing, ties=ties, info=info)
    if abstain_below is not None:
        from assay.systems.abstain import abstention_report

        report = abstention_report(
            the_run, js, abstain_below, failed=info.get("failed_query_ids", [])
        )
        result = result.model_copy(update={"abstention": report.to_dict()})
    if record:
        from assay.cli.common import record_result

        record_result(result, store)
    emit_report(result, fmt, output, digits=digits, per_query=per_query)
    if result.judgments.queries == 0 and result.run.failed_queries:
        raise typer.Exit(1)  # every call failed: nothing was scored
