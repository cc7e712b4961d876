"""The typer application and the error boundary shared by every command."""

from __future__ import annotations

import contextlib
import sys
from typing import Any

import typer

from assay.cli.flags import FLAGS as FLAGS
from assay.cli.flags import flag_warnings as flag_warnings
from assay.cli.flags import flags
from assay.cli.options import plain_help

app = typer.Typer(
    name="assay",
    help="Evaluate search and RAG systems with versioned judgments, exact metrics and statistics.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},  # = options.CONTEXT_SETTINGS
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
    "assay.cli.judge_declared",
    "assay.cli.judge_clicks",
    "assay.cli.trec_eval",
    "assay.cli.fuse",
    "assay.cli.judge_pool",
    "assay.cli.judge_serve",
    "assay.cli.judge_export",
    "assay.cli.matrix",
    "assay.cli.tune",
    "assay.cli.generate",
    "assay.cli.schema",
    "assay.cli.view",
)


#: The modules that define each top-level command: ``assay evaluate ...`` imports one
#: module, not all of them (help, ``--version`` and unknown names load every module).
_MODULES_OF = {
    **{
        m.rsplit(".", 1)[1].replace("_", "-"): (m,)
        for m in _COMMAND_MODULES
        if not m.startswith(("assay.cli.judge", "assay.cli.verify"))
    },
    "verify-suite": ("assay.cli.verify",),
    "judge": tuple(m for m in _COMMAND_MODULES if m.startswith("assay.cli.judge")),
}


def _load_commands(argv: list[str] | None = None) -> None:
    """Import the command modules: those of the command ``argv`` names first, or all."""
    import importlib

    name = argv[0] if argv else None
    for module in _MODULES_OF.get(name, _COMMAND_MODULES) if name else _COMMAND_MODULES:
        importlib.import_module(module)


def _command() -> Any:
    """The click command of ``app`` with help in plain words (see ``options.plain_help``)."""
    from typer.main import get_command

    command = get_command(app)
    plain_help(command)
    return command


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``message`` to stderr and return an Exit with ``code`` (raise it)."""
    from rich.console import Console

    Console(stderr=True, highlight=False, soft_wrap=True).print(
        f"[bold red]error:[/bold red] {message}", markup=True
    )
    return typer.Exit(code)


#: Exit codes of every command (documented in README "Exit codes").
EXIT_OK, EXIT_FAILED, EXIT_INVALID, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 1, 2, 130, 141


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``assay`` script: run the app, map errors to exit codes.

    0 success; 1 a regression, failed queries over ``--max-failed``, a failed
    verification, or an unexpected error (a bug: a short message, never a
    traceback); 2 invalid input or usage; 130 interrupted; 141 broken pipe
    (the reader of the output went away, as in ``assay ... | head``).
    """
    try:
        raise SystemExit(_dispatch(argv))
    except KeyboardInterrupt:
        _say(INTERRUPTED)
        raise SystemExit(EXIT_INTERRUPTED) from None
    except BrokenPipeError:
        _silence_stdout()
        raise SystemExit(EXIT_BROKEN_PIPE) from None
    except (SystemExit, GeneratorExit):
        raise
    except BaseException as exc:  # a bug: say so briefly, never a traceback
        raise SystemExit(_unexpected(exc)) from None


def script() -> None:
    """The ``assay`` program (its console script and ``python -m assay``): :func:`main`,
    then a quick exit.

    Once the command has finished, the interpreter's own teardown (freeing
    every module object and array one by one) only delays the exit: about
    0.2 s after a 10-million-line evaluation. So, after what a normal exit
    does first (non-daemon threads joined, ``atexit`` handlers run, standard
    streams flushed), the process ends with ``os._exit`` and the same code.
    An exit that is not a number, or an interpreter without those hooks,
    exits the usual way.
    """
    try:
        main()
    except SystemExit as done:
        if done.code is not None and not isinstance(done.code, int):
            raise
        _quick_exit(done.code or 0)
    _quick_exit(0)


def _quick_exit(code: int) -> None:
    """Finish as the interpreter would, then ``os._exit(code)`` (see :func:`script`)."""
    import atexit
    import os
    import threading

    join_threads = getattr(threading, "_shutdown", None)
    run_handlers = getattr(atexit, "_run_exitfuncs", None)
    if join_threads is None or run_handlers is None:  # pragma: no cover - other interpreters
        raise SystemExit(code)
    join_threads()
    run_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BrokenPipeError:  # the reader went away: nothing more can reach it
            _silence_stdout()
            code = code or EXIT_BROKEN_PIPE
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)


#: What an interrupted command says (exit 130).
INTERRUPTED = "interrupted (Ctrl-C): stopped; outstanding work cancelled, no output half-written"


def _say(message: str) -> None:
    """One line on stderr, whatever state stderr is in."""
    with contextlib.suppress(Exception):
        sys.stderr.write(message + "\n")
        sys.stderr.flush()


#: Allocations between two young-generation collections in a command's process
#: (CPython's default is 700): importing pandas and pydantic and building a result make
#: millions of objects that live to the end, and collecting them every 700 cost about
#: 3% of an evaluation's CPU (``perf`` on the 10-million-line run of the benchmark).
GC_THRESHOLD = (20_000, 50, 50)


def _dispatch(argv: list[str] | None) -> int:
    """Run the command under :data:`GC_THRESHOLD`; an in-process caller (a test, a program
    calling :func:`main`) gets its own threshold back afterwards."""
    import gc

    before = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLD)
    try:
        return _run_command(argv)
    finally:
        gc.set_threshold(*before)


def _run_command(argv: list[str] | None) -> int:
    from assay.core.errors import AssayError

    _load_commands(sys.argv[1:] if argv is None else argv)
    try:
        rc = _command()(args=argv, standalone_mode=False, prog_name="assay")
    except AssayError as exc:
        return _report(exc)
    except typer.Exit as exc:
        return exc.exit_code
    except SystemExit as exc:
        if _broken_pipe(exc):
            raise BrokenPipeError from None
        raise
    except BrokenPipeError:
        raise
    except OSError as exc:  # an unwritable -o path, a vanished file: input, not a crash
        where = f"{exc.filename}: " if getattr(exc, "filename", None) else ""
        return _report(AssayError(f"{where}{exc.strerror or exc}"))
    except Exception as exc:  # click/typer usage errors and friends
        if _is_usage_error(exc):
            exc.show()  # type: ignore[attr-defined]
            return EXIT_INVALID
        if type(exc).__name__ == "Abort":  # click's word for Ctrl-C
            _say(INTERRUPTED)
            return EXIT_INTERRUPTED
        raise
    if rc == EXIT_INTERRUPTED:  # typer's answer to Ctrl-C (KeyboardInterrupt)
        _say(INTERRUPTED)
    return rc if isinstance(rc, int) else 0


def _broken_pipe(exc: SystemExit) -> bool:
    """True when ``exc`` is a library's answer to a broken pipe rather than a real exit.

    typer exits 1 after wrapping stdout in click's ``PacifyFlushWrapper``; rich's
    ``Console.on_broken_pipe`` exits 1 while handling the ``BrokenPipeError``.
    """
    if type(sys.stdout).__name__ == "PacifyFlushWrapper":
        return True
    return exc.code == 1 and isinstance(exc.__context__, BrokenPipeError)


def _silence_stdout() -> None:
    """After a broken pipe, point stdout at /dev/null so the exit flush cannot fail again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _unexpected(exc: BaseException) -> int:
    """Print a two-line bug notice for an exception assay did not expect; return 1."""
    from assay.core.redact import redact_text

    where = ""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    if tb is not None:
        where = f" at {tb.tb_frame.f_code.co_filename.rsplit('/', 1)[-1]}:{tb.tb_lineno}"
    text = redact_text(str(exc))[:300]
    try:
        sys.stderr.write(
            f"error: unexpected {type(exc).__name__}{where}: {text}\n"
            "  This is a bug in assay, not in your input: please report it to the assay\n"
            "  maintainers with the command you ran (ASSAY_DEBUG=1 shows the traceback).\n"
        )
        import os

        if os.environ.get("ASSAY_DEBUG"):
            import traceback

            traceback.print_exception(exc)
    except (OSError, ValueError):
        pass
    return EXIT_FAILED


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

    from assay.core.redact import redact_text

    console = Console(stderr=True, highlight=False, soft_wrap=True)
    lines = redact_text(flags(str(exc))).splitlines() or [type(exc).__name__]
    console.print(f"[bold red]error:[/bold red] {escape(lines[0])}")
    for line in lines[1:]:
        console.print(f"  {escape(line)}")
    return getattr(exc, "exit_code", 2)


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
