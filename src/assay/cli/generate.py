"""``assay generate queries``: synthetic test queries from corpus passages, marked as a model's."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.cli.common import data_file, deprecated_flag, finish, resolve_format
from assay.cli.model_options import CostOpt, MaxFailedCalls, calls_emitter, model_calls
from assay.cli.options import Executor
from assay.report.kinds import formats_of

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
    fmt: o.kind_format("synthetic-queries") = None,  # type: ignore[valid-type]
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
    from assay.procedures.generation import QueryGenerationOptions, generate_query_file

    calls = model_calls(model, config, cache_dir, offline, False, max_cost, max_failed)
    queries_file, results = data_file(output, "queries")
    fmt = resolve_format(fmt, results, formats_of("synthetic-queries"))
    if json_report is not None:
        deprecated_flag("--report", "-o FILE.json")
        results.append(json_report)
    options = QueryGenerationOptions(
        n=n, seed=seed, human=human, id_field=id_field, text_fields=text_field
    )
    result = generate_query_file(corpus, queries_file, calls=calls, options=options)
    emitter = calls_emitter(queries_file, "synthetic queries")
    finish(result, fmt, results, max_failed=max_failed, emitter=emitter)
