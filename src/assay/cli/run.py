"""``assay run``: send every query of a judgment set to a system and write the run."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.app import app

RUN_FORMATS = ("trec", "jsonl")


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
    :mod:`assay.failures`), 2 on invalid input.
    """
    from assay.errors import UsageError
    from assay.progress import set_quiet
    from assay.systems.runner import run_system

    set_quiet(quiet)
    if fmt is not None and fmt not in RUN_FORMATS:
        raise UsageError(f"--format must be one of {', '.join(RUN_FORMATS)}; got {fmt!r}")
    from assay.bounds import at_least

    at_least("k", k)
    from assay.cli.common import check_max_failed_option, exit_if_failed

    check_max_failed_option(max_failed)
    if retries is not None:
        from assay.systems.limits import retries as checked_retries

        checked_retries(retries, "--retries")
    at_least("max_consecutive_failures", max_consecutive_failures, 0)
    at_least("concurrency", concurrency)
    from assay.cli.common import load_cli_judgments

    judgment_set = load_cli_judgments(judgments, judgments_format, queries=queries, split=split)
    from assay.judgments.beir import corpus_of

    corpus = corpus_of(judgments, corpus)
    sut = _build(system, config, corpus, id_field, text_field, corpus_format, offline)
    from assay.cli.common import run_cache

    cache = run_cache(no_cache, cache_dir)
    outcome = run_system(
        sut,
        judgment_set,
        k,
        retries=retries,
        max_consecutive_failures=max_consecutive_failures,
        concurrency=concurrency,
        progress=progress,
        cache=cache,
    )
    sidecar = outcome.metadata()
    sidecar["judgments"] = str(judgments)
    abstention = None
    if abstain_below is not None:
        from assay.systems.abstain import abstention_report

        abstention = abstention_report(
            outcome.run, judgment_set, abstain_below, failed=outcome.failed_ids
        )
        sidecar["abstention"] = abstention.to_dict()
    _write(outcome.run, output, fmt, sidecar, tag=name or sut.name)
    _summary(outcome, output, abstention)
    exit_if_failed([(outcome.system_name, outcome.failed_ids)], max_failed)


def _build(
    spec: str,
    config: Path | None,
    corpus: Path | None,
    id_field: str | None,
    text_fields: list[str] | None,
    corpus_format: str | None,
    offline: bool = False,
) -> Any:
    from assay.systems.cache import deferred_system
    from assay.systems.config import build_system

    overrides: dict[str, Any] = {
        "id_field": id_field,
        "text_fields": list(text_fields) if text_fields else None,
        "corpus_format": corpus_format,
    }

    def build() -> Any:
        return build_system(
            spec,
            config_path=config,
            corpus=str(corpus) if corpus is not None else None,
            overrides=overrides,
        )

    given = {key: value for key, value in overrides.items() if value is not None}
    system = deferred_system(spec, build, config_path=config, corpus=corpus, overrides=given)
    if offline and callable(getattr(system, "set_offline", None)):
        system.set_offline(True)  # endpoint embeddings replay their cache
    return system


def _write(run: Any, output: Path, fmt: str | None, sidecar: dict[str, Any], tag: str) -> None:
    from assay.runs.sidecar import write_run_pair

    path, side = write_run_pair(run, output, sidecar, format=fmt, tag=tag)
    from assay.cli.common import say_wrote
    from assay.formats import format_from_name

    say_wrote(path, "run", fmt or format_from_name(output, "run") or "trec")
    say_wrote(side, "run sidecar", "json")


def _summary(outcome: Any, output: Path, abstention: Any) -> None:
    from rich.console import Console
    from rich.markup import escape

    console = Console(highlight=False, soft_wrap=True)
    lat = outcome.latency_ms
    ok = outcome.queries - len(outcome.failures)
    cached = " (from cache)" if outcome.cached else ""
    console.print(
        f"{escape(outcome.system_name)}: {ok}/{outcome.queries} queries, k={outcome.k}, "
        f"config {outcome.config_hash}{cached}"
    )
    if lat.get("p50") is not None:
        console.print(f"latency p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms")
    if outcome.corpus_version:
        console.print(f"corpus {outcome.corpus_version}, judgments {outcome.judgments_version}")
    for f in outcome.failures[:10]:
        console.print(
            f"[red]failed[/red] {escape(f.query_id)} after {f.attempts} attempts: {escape(f.error)}"
        )
    over = outcome.extra.get("over_depth_queries")
    if over:
        console.print(
            f"[yellow]warning[/yellow] {over} queries returned more than k={outcome.k} "
            "results; the first k were kept (over_depth_queries in the sidecar)"
        )
    if len(outcome.failures) > 10:
        console.print(f"... and {len(outcome.failures) - 10} more failures (see the sidecar)")
    if abstention is not None:
        acc, far = abstention.abstention_accuracy, abstention.false_abstention_rate
        console.print(
            f"abstention below {abstention.threshold:g}: "
            f"{abstention.no_answer_abstained}/{abstention.no_answer_queries} no-answer queries"
            f"{'' if acc is None else f' ({acc:.2f})'}, false abstention "
            f"{abstention.answerable_abstained}/{abstention.answerable_queries}"
            f"{'' if far is None else f' ({far:.2f})'}"
        )
