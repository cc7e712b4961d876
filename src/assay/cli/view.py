"""``assay view``: browse the history store and result files in a local web app (read-only)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app


@app.command()
def view(
    results: Annotated[
        list[Path] | None,
        typer.Argument(help="Result files (JSON) to show besides the store's results."),
    ] = None,
    store: o.Store = None,
    corpus: o.Corpus = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8766,
) -> None:
    """Browse results down to the documents: a read-only local web app with a JSON API."""
    from assay.view.launch import ViewOptions, open_view

    options = ViewOptions(
        store=store, corpus=corpus, id_field=id_field, host=host, port=port,
        text_fields=tuple(text_field) if text_field else None,
    )  # fmt: skip
    viewer = open_view(results or [], options)
    if not viewer.loopback:
        typer.echo(
            f"warning: listening on {host}: anyone who can reach it sees the results", err=True
        )
    typer.echo(f"assay view on {viewer.url}/ (read-only); Ctrl-C to stop", err=True)
    viewer.run()
