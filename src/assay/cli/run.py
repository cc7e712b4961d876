"""``assay run``: send every query of a judgment set to a system and write the run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app


@app.command("run")
def run_command(
    judgments: Annotated[
        Path, typer.Argument(help="Judgment set (JSONL, CSV, JSON, TREC, BEIR folder).")
    ],
    system: Annotated[
        str,
        typer.Option(
            "--system",
            "-s",
            help="A [systems.NAME] of the config, a type (keyword, bm25, ...) "
            "or module.path:function / file.py:function.",
        ),
    ],
    output: Annotated[Path, typer.Option("--output", "-o", help="Run file to write.")],
    config: o.Config = None,
    corpus: o.Corpus = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    corpus_format: Annotated[
        str | None, typer.Option("--corpus-format", help="Corpus format: csv, tsv, jsonl or beir.")
    ] = None,
    k: o.Depth = 100,
    fmt: o.RunFormat = None,
    concurrency: Annotated[
        int, typer.Option("--concurrency", help="Queries in flight at once.")
    ] = 1,
    retries: o.Retries = None,
    max_consecutive_failures: o.MaxConsecutiveFailures = 5,
    no_cache: o.NoCache = False,
    cache_dir: o.CacheDir = None,
    abstain_below: o.AbstainBelow = None,
    judgments_format: o.JudgmentsFormat = None,
    queries: o.Queries = None,
    split: o.Split = "test",
    progress: Annotated[
        bool,
        typer.Option(
            "--progress/--no-progress",
            help="Show progress: a bar on a terminal, a line every few seconds elsewhere.",
        ),
    ] = True,
    max_failed: o.MaxFailed = 0,
    name: o.Name = None,
    quiet: o.Quiet = False,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline", help="Make no model calls: endpoint embeddings replay their cache."
        ),
    ] = False,
    executor: o.Executor = None,
) -> None:
    """Run every query through a system; write the run and a ``.json`` sidecar.

    The sidecar holds the system config (secrets redacted), its hash, the
    corpus and judgment-set versions, k, latency, failures and timestamps.
    Exit 1 when more queries failed than ``--max-failed`` (see
    :mod:`assay.core.failures`), 2 on invalid input.
    """
    from assay.cli.common import exit_if_failed, say_wrote
    from assay.procedures.options import ScoringOptions, SourceOptions
    from assay.procedures.running import RunOptions, run_to_file

    source = SourceOptions(
        system=system, config=config, corpus=corpus, id_field=id_field, offline=offline,
        text_fields=tuple(text_field) if text_field else None, no_cache=no_cache,
        cache_dir=cache_dir, retries=retries, max_failed=max_failed, executor=executor,
        max_consecutive_failures=max_consecutive_failures,
    )  # fmt: skip
    options = RunOptions(
        concurrency=concurrency, format=fmt, name=name, corpus_format=corpus_format,
        abstain_below=abstain_below, progress=progress,
    )  # fmt: skip
    reading = ScoringOptions(k=k, judgments_format=judgments_format, queries=queries, split=split)
    written = run_to_file(judgments, output, source, options, reading)
    say_wrote(written.path, "run", written.format)
    say_wrote(written.sidecar_path, "run sidecar", "json")
    _summary(written.outcome, written.abstention)
    exit_if_failed(written.failed_runs(), source.max_failed)


def _summary(outcome: Any, abstention: Any) -> None:
    """What the run did, on stdout (:func:`assay.report.run_terminal.run_summary_lines`)."""
    from rich.console import Console

    from assay.report.run_terminal import run_summary_lines

    console = Console(highlight=False, soft_wrap=True)
    for line in run_summary_lines(outcome, abstention):
        console.print(line)
