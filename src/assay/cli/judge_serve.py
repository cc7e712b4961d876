"""``assay judge serve``: a web page where people grade a pool's pairs with the keyboard."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from assay.cli import options as o
from assay.cli.judge import judge_app
from assay.errors import UsageError


@judge_app.command("serve")
def serve(
    pool: Annotated[
        Path | None, typer.Argument(help="Pool file (JSONL) from `assay judge pool`.")
    ] = None,
    review: Annotated[
        Path | None,
        typer.Option("--review", help="Review model grades: a review file (judge sample)."),
    ] = None,
    show_model_grades: Annotated[
        bool,
        typer.Option(
            "--show-model-grades/--blind",
            help="With --review: show the model's grade (accept with a, override with a reason).",
        ),
    ] = False,
    store: Annotated[
        str, typer.Option("--store", help="Judging store: a SQLite path or a PostgreSQL URL.")
    ] = "judging.db",
    assessors: Annotated[
        str, typer.Option("--assessors", help="Comma-separated assessor names.")
    ] = "",
    overlap: Annotated[
        int, typer.Option("--overlap", help="How many assessors grade each pair.")
    ] = 1,
    adjudicators: Annotated[
        str,
        typer.Option("--adjudicators", help="Comma-separated names who may set final grades."),
    ] = "",
    guidelines: Annotated[
        Path | None, typer.Option("--guidelines", help="Guidelines shown beside every pair.")
    ] = None,
    corpus: o.Corpus = None,
    id_field: o.IdField = None,
    text_field: o.TextFields = None,
    host: Annotated[
        str, typer.Option("--host", help="Interface to listen on (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", "-p", help="TCP port to listen on.")] = 8765,
    log_level: Annotated[
        str, typer.Option("--log-level", help="Server log level: warning, info or debug.")
    ] = "warning",
) -> None:
    """Serve the judging page; print each person's login link; Ctrl-C to stop."""
    import uvicorn

    from assay.cli.serve import _is_loopback
    from assay.judging.serve import prepare

    if not 0 < port < 65536:
        raise UsageError(f"--port must be between 1 and 65535; got {port}")
    app, links = prepare(
        pool,
        store,
        assessors=[a.strip() for a in assessors.split(",") if a.strip()],
        overlap=overlap,
        adjudicators=[a.strip() for a in adjudicators.split(",") if a.strip()],
        guidelines=guidelines,
        corpus=corpus,
        id_field=id_field,
        text_fields=text_field,
        base_url=f"http://{host}:{port}",
        review=review,
        show_model_grades=show_model_grades,
    )
    if not _is_loopback(host):
        typer.echo(
            f"warning: listening on {host}: use the login links only over a trusted network",
            err=True,
        )
    what = f"reviewing {review}" if review is not None else f"judging {pool}"
    typer.echo(f"{what} on http://{host}:{port} (store {store}); Ctrl-C to stop", err=True)
    for name, link in links.items():
        typer.echo(f"login {name}: {link}", err=True)
    uvicorn.run(app, host=host, port=port, log_level=log_level, lifespan="off")
