"""The typer application and the error boundary shared by every command."""

from __future__ import annotations

import sys

import typer

app = typer.Typer(
    name="assay",
    help="Evaluate search and RAG systems with versioned judgments, exact metrics and statistics.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        from assay import __version__

        typer.echo(f"assay {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", help="Print the version and exit.", callback=_version, is_eager=True
    ),
) -> None:
    """Evaluate search and RAG systems with versioned judgments, exact metrics and statistics."""


# Command modules register themselves on ``app`` when imported.
_COMMAND_MODULES = (
    "assay.cli.validate",
    "assay.cli.evaluate",
    "assay.cli.run",
    "assay.cli.serve",
    "assay.cli.compare",
    "assay.cli.answers",
    "assay.cli.gate",
    "assay.cli.history",
    "assay.cli.verify",
    "assay.cli.report",
    "assay.cli.judge",
    "assay.cli.judge_models",
    "assay.cli.judge_clicks",
    "assay.cli.matrix",
    "assay.cli.generate",
)


def _load_commands() -> None:
    import importlib
    import importlib.util

    for name in _COMMAND_MODULES:
        if importlib.util.find_spec(name) is not None:
            importlib.import_module(name)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``message`` to stderr and return an Exit with ``code`` (raise it)."""
    from rich.console import Console

    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"[bold red]error:[/bold red] {message}", markup=True
    )
    return typer.Exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``assay`` script: run the app, map errors to exit codes."""
    from assay.errors import AssayError

    _load_commands()
    try:
        rc = app(args=argv, standalone_mode=False, prog_name="assay")
    except AssayError as exc:
        raise SystemExit(_report(exc)) from None
    except typer.Exit as exc:
        raise SystemExit(exc.exit_code) from None
    except KeyboardInterrupt:
        raise SystemExit(130) from None
    except OSError as exc:  # an unwritable -o path, a vanished file: input, not a crash
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        raise SystemExit(_report(AssayError(f"{where}{exc.strerror or exc}"))) from None
    except Exception as exc:  # click/typer usage errors and friends
        if _is_usage_error(exc):
            exc.show()  # type: ignore[attr-defined]
            raise SystemExit(2) from None
        if type(exc).__name__ == "Abort":
            raise SystemExit(130) from None
        raise
    raise SystemExit(rc if isinstance(rc, int) else 0)


def _is_usage_error(exc: Exception) -> bool:
    """True for click's (or typer's vendored click's) usage exceptions."""
    classes: list[type] = []
    try:
        import click

        classes.append(click.exceptions.ClickException)
    except ImportError:  # pragma: no cover
        pass
    try:
        from typer._click import exceptions as vendored

        classes.append(vendored.ClickException)
    except ImportError:  # pragma: no cover
        pass
    if classes and isinstance(exc, tuple(classes)):
        return True
    return hasattr(exc, "show") and isinstance(getattr(exc, "exit_code", None), int)


def _report(exc: Exception) -> int:
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True, highlight=False, soft_wrap=True)
    lines = str(exc).splitlines() or [type(exc).__name__]
    console.print(f"[bold red]error:[/bold red] {escape(lines[0])}")
    for line in lines[1:]:
        console.print(f"  {escape(line)}")
    return getattr(exc, "exit_code", 2)


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
