"""``assay serve``: expose a system over HTTP (``/search`` and ``/health``)."""

from __future__ import annotations

from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.web.listen import is_loopback as _is_loopback  # noqa: F401  (judge serve's)


@app.command()
def serve(
    system: Annotated[
        str,
        typer.Option(
            "--system",
            "-s",
            help="System: a name in assay.toml, a type (keyword, bm25, vector) or module:function.",
        ),
    ],
    config: o.Config = None,
    corpus: o.Corpus = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    host: Annotated[
        str, typer.Option("--host", help="Interface to listen on (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="TCP port to listen on.")] = 8000,
    log_level: Annotated[
        str, typer.Option("--log-level", help="Uvicorn log level: warning, info, debug.")
    ] = "warning",
) -> None:
    """Serve a system: GET /search?q=...&k=10 and GET /health (ready once indexed), until Ctrl-C.

    Queries run concurrently (8 at a time, 64 more may wait; beyond that 503
    with Retry-After); query text is capped at 10,000 characters.
    """
    from assay.procedures.options import SourceOptions
    from assay.procedures.serving import ServeOptions, serve_system

    source = SourceOptions(
        system=system, config=config, corpus=corpus, id_field=id_field,
        text_fields=tuple(text_field) if text_field else None,
    )  # fmt: skip
    server = serve_system(source, ServeOptions(host=host, port=port, log_level=log_level))
    if not server.loopback:
        typer.echo(
            f"warning: listening on {host}: anyone who can reach it can query "
            f"{server.system_name!r}",
            err=True,
        )
    typer.echo(
        f"serving {server.system_name!r} ({server.config_hash}) on {server.url}"
        " - GET /search?q=...&k=10, GET /health; Ctrl-C to stop",
        err=True,
    )
    server.run()
