"""``assay verify-suite``: a deliberately degraded system must score significantly lower."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app

FORMATS = ("table", "json")


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
    fmt: o.format_option(*FORMATS) = None,  # type: ignore[valid-type]
    output: o.output_option(*FORMATS) = None,  # type: ignore[valid-type]
    store: o.Store = None,
    record: o.Record = True,
    retries: o.Retries = None,
    no_cache: o.NoCache = False,
    cache_dir: o.CacheDir = None,
    max_failed: o.MaxFailed = 0,
    executor: o.Executor = None,
) -> None:
    """Run a system and a degraded variant; exit 1 unless the variant scores significantly lower."""
    from assay.cli.common import (
        build_cli_system,
        check_max_failed_option,
        corpus_options,
        exit_if_failed,
        load_cli_judgments,
        record_result,
        resolve_format,
        run_cache,
    )
    from assay.errors import UsageError
    from assay.procedures.verification import SHUFFLE, verify_suite

    check_max_failed_option(max_failed)
    fmt = resolve_format(fmt, output, FORMATS)
    if not system or not degraded:
        raise UsageError("give --system NAME and --degraded NAME (or --degraded shuffle)")
    js = load_cli_judgments(judgments, judgments_format, queries=queries, split=split)
    corpus_args = corpus_options(judgments, id_field, text_field)
    sys_obj = build_cli_system(system, config=config, corpus=corpus, **corpus_args)
    worse = (
        SHUFFLE
        if degraded == SHUFFLE
        else build_cli_system(degraded, config=config, corpus=corpus, **corpus_args)
    )
    result = verify_suite(
        js,
        sys_obj,
        worse,
        metric or ["nDCG@10"],
        alpha=alpha,
        seed=seed,
        missing=missing,
        ties=ties,
        k=k,
        retries=retries,
        cache=run_cache(no_cache, cache_dir),
    )
    if record:
        record_result(result, store)  # a store error warns; the verdict stands
    _emit(result, fmt, output)
    exit_if_failed(list(result.failed_queries.items()), max_failed)
    if not result.passed:
        raise typer.Exit(1)


def _emit(result: Any, fmt: str, output: Any) -> None:
    """The result in ``fmt`` to stdout or to each ``-o`` file; the verdict on the terminal too."""
    from assay.cli.common import emit
    from assay.report.render import print_terminal, render

    def table(console: Any) -> None:
        print_terminal(result, console)

    emit(fmt, output, text=lambda f: render(result, f), table=table, choices=FORMATS, kind="verify")
    if output:  # files written: the verdict still shows where the command ran
        emit("table", None, text=lambda f: render(result, f), table=table, choices=FORMATS)
