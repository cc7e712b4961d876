"""``assay judge serve``: a web page where people grade a pool's pairs with the keyboard."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from assay.cli import options as o
from assay.cli.judge import judge_app


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
    from assay.procedures.judging_files import JudgingPageOptions, judging_page

    options = JudgingPageOptions(
        assessors=assessors,
        overlap=overlap,
        adjudicators=adjudicators,
        guidelines=guidelines,
        corpus=corpus,
        id_field=id_field,
        text_fields=text_field,
        review=review,
        show_model_grades=show_model_grades,
        host=host,
        port=port,
    )
    page = judging_page(pool, store, options)
    _say_serving(page.links, options, pool, store)
    _serve(page.app, host, port, log_level)


def _say_serving(links: dict[str, str], options: Any, pool: Path | None, store: str) -> None:
    """Where the page listens (a warning off loopback) and each person's login link."""
    from assay.cli.serve import _is_loopback

    host, port = options.host, options.port
    if not _is_loopback(host):
        typer.echo(
            f"warning: listening on {host}: use the login links only over a trusted network",
            err=True,
        )
    what = f"reviewing {options.review}" if options.review is not None else f"judging {pool}"
    typer.echo(f"{what} on http://{host}:{port} (store {store}); Ctrl-C to stop", err=True)
    for name, link in links.items():
        typer.echo(f"login {name}: {link}", err=True)


def _serve(app: Any, host: str, port: int, log_level: str) -> None:
    """Run the page with uvicorn until Ctrl-C."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level=log_level, lifespan="off")
