"""``assay evaluate``: score a run file or a live system on a judgment set."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.common import emit_result, finish, options_from, resolve_format
from assay.core.errors import UsageError
from assay.report.kinds import formats_of


def _check_digits(value: int | None) -> int | None:
    """``--digits``: a whole number from 0 to 15, checked as click parses it."""

    if value is not None and not 0 <= value <= 15:
        raise UsageError(f"--digits must be a whole number from 0 to 15, got {value}")
    return value


Run = Annotated[
    Path | None,
    typer.Argument(
        help="Run file (TREC or JSONL), read strictly: a blank or '#' line or a rank that "
        "is not a number is an error (assay trec-eval skips them, as trec_eval does). "
        "Omit with --system."
    ),
]
Queries = Annotated[
    Path | None,
    typer.Option(
        "--queries", help="Queries for TREC qrels (TSV id<TAB>text, JSONL, or irds:NAME)."
    ),
]
Digits = Annotated[
    int | None,
    typer.Option(
        "--digits",
        help="Decimals in tables (default: from the number of queries).",
        callback=_check_digits,
    ),
]
PerQuery = Annotated[
    bool | None,
    typer.Option(
        "--per-query/--no-per-query",
        help="Show per-query rows in the table (default: up to 50 queries).",
    ),
]
Calibrate = Annotated[
    Path | None,
    typer.Option("--calibrate", help="People's labels on a sample: add PPI++ intervals."),
]
Prefer = Annotated[
    str | None,
    typer.Option("--prefer", help="Which labels win where a pair has a human and a model one."),
]
Offline = Annotated[
    bool,
    typer.Option("--offline", help="Make no model calls: endpoint embeddings replay their cache."),
]


@app.command()
def evaluate(
    judgments: o.Judgments,
    run: Run = None,
    system: o.SystemSpec = None,
    config: o.Config = None,
    corpus: o.Corpus = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    k: o.Depth = 100,
    metric: o.Metrics = None,
    by: o.By = None,
    fmt: o.kind_format("evaluation") = None,  # type: ignore[valid-type]
    output: o.kind_output("evaluation") = None,  # type: ignore[valid-type]
    missing: o.Missing = "zero",
    ties: o.Ties = "score",
    ignore_identical_ids: o.IgnoreIdenticalIds = False,
    memory: o.Memory = 1024,
    judgments_format: o.JudgmentsFormat = None,
    queries: Queries = None,
    split: o.Split = "test",
    digits: Digits = None,
    per_query: PerQuery = None,
    abstain_below: o.AbstainBelow = None,
    store: o.Store = None,
    record: o.Record = True,
    retries: o.Retries = None,
    max_consecutive_failures: o.MaxConsecutiveFailures = 5,
    allow_version_mismatch: o.AllowVersionMismatch = False,
    calibrate: Calibrate = None,
    no_cache: o.NoCache = False,
    cache_dir: o.CacheDir = None,
    max_failed: o.MaxFailed = 0,
    name: o.Name = None,
    prefer: Prefer = None,
    quiet: o.Quiet = False,
    executor: o.Executor = None,
    mix_synthetic: o.MixSynthetic = False,
    offline: Offline = False,
) -> None:
    """Score a run (or a live system) on a judgment set, overall and per group."""
    from assay.procedures.evaluation import evaluate as run_evaluation
    from assay.procedures.options import ScoringOptions, SourceOptions
    from assay.procedures.procedure_options import EvaluationOptions

    fmt = resolve_format(fmt, output, formats_of("evaluation"))
    progress = True  # a live system's run shows its progress
    params = locals()
    result = run_evaluation(
        judgments,
        run,
        metric,
        by or [],
        options_from(ScoringOptions, params),
        source=options_from(SourceOptions, params, text_fields="text_field"),
        evaluation=options_from(EvaluationOptions, params),
    )
    emitter = partial(_emit, digits=digits, per_query=per_query)
    finish(result, fmt, output, max_failed=max_failed, record=record, store=store, emitter=emitter)


def _emit(
    result: Any, fmt: str, output: Any, *, digits: int | None, per_query: bool | None
) -> None:
    """The evaluation in ``fmt``; in the table on stdout, the calibration's intervals after it."""
    from assay.procedures.calibration import CalibrationResult
    from assay.report.judges_text import render_calibration
    from assay.report.kinds import View

    shown = emit_result(result, fmt, output, view=View(digits=digits, per_query=per_query))
    calibration = getattr(result, "calibration", None)
    if calibration is not None and shown == "table":
        typer.echo(render_calibration(CalibrationResult.model_validate(calibration)))
