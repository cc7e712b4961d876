"""``assay generate queries``: synthetic test queries from corpus passages, marked as a model's."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.model_options import CostOpt, MaxFailedCalls, check_model_options
from assay.cli.options import Executor

generate_app = typer.Typer(
    help="Generate test material with a model (always marked source = model).",
    no_args_is_help=True,
)
app.add_typer(generate_app, name="generate")


@generate_app.command("queries")
def queries(
    corpus: Annotated[Path, typer.Option("--corpus", help="Corpus to sample passages from.")],
    model: Annotated[str, typer.Option("--model", help="A [models.NAME] of assay.toml.")],
    output: Annotated[
        list[Path],
        typer.Option(
            "-o",
            "--output",
            help="The queries: FILE.jsonl; repeatable: FILE.json, FILE.txt get the result.",
        ),
    ],
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    n: Annotated[int, typer.Option("-n", help="Passages to sample.")] = 50,
    seed: Annotated[int, typer.Option("--seed", help="Sampling seed.")] = 0,
    human: Annotated[
        Path | None,
        typer.Option("--judgments", help="Human queries and judgments to compare with."),
    ] = None,
    config: Annotated[
        Path | None, typer.Option("--config", help="The assay.toml declaring the model.")
    ] = None,
    cache_dir: Annotated[
        Path | None, typer.Option("--cache-dir", help="Folder of the model-call cache.")
    ] = None,
    offline: Annotated[bool, typer.Option("--offline", help="Replay the cache only.")] = False,
    max_cost: CostOpt = None,
    fmt: o.format_option("table", "plain", "json") = None,  # type: ignore[valid-type]
    json_report: Annotated[
        Path | None, typer.Option("--report", hidden=True, help="Deprecated: -o FILE.json.")
    ] = None,
    max_failed: MaxFailedCalls = 0,
    executor: Executor = None,
) -> None:
    """Ask a model for one query per sampled passage; dedupe; compare with human queries.

    Exit 1 when the budget stopped the run, more calls failed than --max-failed,
    or no query could be written.
    """
    import json

    from assay.cli.common import data_file, deprecated_flag, emit_beside, resolve_format, say_wrote
    from assay.cli.model_options import exit_if_calls_failed
    from assay.corpora.load import load_corpus
    from assay.fileio import write_text_atomic
    from assay.generate.queries import generate_queries
    from assay.providers.client import open_client

    check_model_options(max_cost, max_failed)
    queries_file, results = data_file(output, "queries")
    fmt = resolve_format(fmt, results, ("table", "plain", "json"))
    if json_report is not None:
        deprecated_flag("--report", "-o FILE.json")
        results.append(json_report)
    judgments = None
    if human is not None:
        from assay.judgments.load import load_judgments

        judgments = load_judgments(human)
    client = open_client(model, config_path=config, cache_dir=cache_dir, offline=offline)
    with client:
        result = generate_queries(
            load_corpus(corpus, id_field=id_field, text_fields=text_field),
            client,
            n=n,
            seed=seed,
            human=judgments,
            max_cost=max_cost,
        )
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in result.rows)
    write_text_atomic(queries_file, lines)
    say_wrote(queries_file, "synthetic queries", "jsonl")
    result.output = str(queries_file)
    emit_beside(result, fmt, results)
    if result.stopped_at_budget:
        raise typer.Exit(1)
    if result.circuit_open is not None:
        typer.echo(f"generate queries: {result.circuit_open}", err=True)
        raise typer.Exit(1)
    exit_if_calls_failed(
        result.failed_calls,
        max_failed,
        f"generate queries --model {model}",
        nothing_scored=result.requested > 0 and not result.rows,
    )
