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
    import uvicorn

    from assay.cli.serve import _is_loopback
    from assay.errors import UsageError
    from assay.view import make_app

    if not 0 < port < 65536:
        raise UsageError(f"--port must be between 1 and 65535; got {port}")
    hosts = ["127.0.0.1", "localhost", "[::1]", "::1"] if _is_loopback(host) else None
    web = make_app(
        results or [],
        store=store,
        corpus=corpus,
        id_field=id_field,
        text_fields=text_field,
        allowed_hosts=hosts,
    )
    if hosts is None:
        typer.echo(
            f"warning: listening on {host}: anyone who can reach it sees the results", err=True
        )
    typer.echo(f"assay view on http://{host}:{port}/ (read-only); Ctrl-C to stop", err=True)
    uvicorn.run(web, host=host, port=port, log_level="warning")
