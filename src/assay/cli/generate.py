"""``assay generate queries``: synthetic test queries from corpus passages, marked as a model's."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli.app import app
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
    output: Annotated[Path, typer.Option("-o", "--output", help="Write the queries (JSONL).")],
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
    max_cost: Annotated[
        float | None, typer.Option("--max-cost", help="USD budget for the calls.")
    ] = None,
    json_report: Annotated[
        Path | None, typer.Option("--report", help="Also write the full result (JSON).")
    ] = None,
    executor: Executor = None,
) -> None:
    """Ask a model for one query per sampled passage; dedupe; compare with human queries."""
    import json

    from assay.corpora.load import load_corpus
    from assay.fileio import write_text_atomic
    from assay.generate.queries import generate_queries
    from assay.providers.cache import CallCache
    from assay.providers.client import ChatClient
    from assay.providers.config import get_model

    judgments = None
    if human is not None:
        from assay.judgments.load import load_judgments

        judgments = load_judgments(human)
    client = ChatClient(get_model(model, config), cache=CallCache(cache_dir), offline=offline)
    with client:
        result = generate_queries(
            load_corpus(corpus), client, n=n, seed=seed, human=judgments, max_cost=max_cost
        )
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in result.rows)
    write_text_atomic(output, lines)
    if json_report is not None:
        write_text_atomic(json_report, result.to_json() + "\n")
    from assay.report.generate_text import render_queries

    typer.echo(render_queries(result, str(output)))
