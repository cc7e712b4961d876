"""``assay serve``: expose a system over HTTP (``/search`` and ``/health``)."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.app import app
from assay.errors import UsageError


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
    import uvicorn

    from assay.cli.common import build_cli_system
    from assay.systems.base import config_hash
    from assay.systems.server import create_app

    if not 0 < port < 65536:
        raise UsageError(f"--port must be between 1 and 65535; got {port}")
    if config is None and Path("assay.toml").is_file():
        config = Path("assay.toml")
    elif config is not None and not config.is_file():
        raise UsageError(f"--config {config}: no such file")
    built = build_cli_system(
        system, config=config, corpus=corpus, id_field=id_field, text_fields=text_field
    )
    if not _is_loopback(host):
        typer.echo(
            f"warning: listening on {host}: anyone who can reach it can query {built.name!r}",
            err=True,
        )
    typer.echo(
        f"serving {built.name!r} ({config_hash(built.config)}) on http://{host}:{port}"
        " - GET /search?q=...&k=10, GET /health; Ctrl-C to stop",
        err=True,
    )
    from assay.systems.server import DEFAULT_MAX_QUEUE, DEFAULT_WORKERS

    uvicorn.run(
        create_app(built),
        host=host,
        port=port,
        log_level=log_level,
        lifespan="off",
        # connections beyond the workers, the bounded queue and some slack get 503
        limit_concurrency=DEFAULT_WORKERS + DEFAULT_MAX_QUEUE + 16,
    )


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
