"""Helpers shared by CLI commands: loading inputs, building systems, emitting reports."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from assay.cli.flags import flag_warnings, flags
from assay.core.errors import AssayError, UsageError
from assay.core.failures import check_max_failed, failed_messages
from assay.io.fileio import write_bytes_atomic, write_text_atomic
from assay.report.github import reporting
from assay.report.kinds import TABLE_FORMATS, View, formats_of, kind_formats
from assay.report.render import print_terminal, render, render_bytes

M = TypeVar("M", bound=BaseModel)


def validate_choice(option: str, value: str, choices: Sequence[str]) -> None:
    """Raise a UsageError unless ``value`` is one of ``choices``."""
    if value not in choices:
        raise UsageError(f"{option} must be one of {', '.join(choices)}; got {value!r}")


#: Output format implied by the suffix of ``-o`` when ``--format`` is not given.
SUFFIX_FORMATS = {
    ".json": "json",
    ".csv": "csv",
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".txt": "plain",
    ".xml": "junit",
    ".jsonl": "jsonl",
    ".parquet": "parquet",
    ".tex": "latex",
}
#: Formats written as bytes, to a file only (``-o FILE``).
BINARY_FORMATS = ("parquet",)
#: ``-o -``: stdout, as one of the outputs (the table beside files; alone, as without ``-o``).
STDOUT = "-"


def _paths(output: Path | Sequence[Path] | None) -> list[Path]:
    if output is None:
        return []
    return [Path(output)] if isinstance(output, str | Path) else [Path(p) for p in output]


def _is_stdout(path: Path) -> bool:
    return str(path) == STDOUT


def _suffix_means(suffix: str, choices: Sequence[str]) -> str | None:
    """The format ``suffix`` names for a command writing ``choices`` (.txt is the table)."""
    implied = SUFFIX_FORMATS.get(suffix.lower())
    if implied == "plain" and "plain" not in choices and "table" in choices:
        implied = "table"
    return implied


def accepted_suffixes(choices: Sequence[str]) -> list[str]:
    """Every ``-o`` suffix a command writing ``choices`` accepts (what its help lists)."""
    return [s for s in SUFFIX_FORMATS if _suffix_means(s, choices) in choices]


def refuse_directory(path: Path, choices: Sequence[str]) -> None:
    """Refuse ``-o DIR``: say it is a directory and show a file name that would do."""
    if not _is_stdout(path) and path.is_dir():
        example = path / ("result" + (accepted_suffixes(choices) or [".json"])[0])
        raise UsageError(f"-o {path}: is a directory; give a file name, such as {example}")


def suffix_format(path: Path, choices: Sequence[str]) -> str:
    """The format the suffix of ``-o path`` names (``-o -``: stdout, the table); refused
    when the command cannot write it."""
    if _is_stdout(path):
        return "table"
    refuse_directory(path, choices)
    implied = _suffix_means(path.suffix, choices)
    if implied is None or implied not in choices:
        known = accepted_suffixes(choices)
        what = f"cannot write {implied}" if implied else f"does not know the suffix {path.suffix!r}"
        raise UsageError(
            f"-o {path}: this command {what}; use a suffix among {', '.join(known)} "
            "or pass --format"
        )
    return implied


def resolve_format(
    fmt: str | None, output: Path | Sequence[Path] | None, choices: Sequence[str]
) -> str:
    """``--format`` if given, else the one implied by the ``-o`` suffix, else ``table``.

    ``output`` may be several files (``-o a.json -o a.md``): each is written in the
    format its suffix names, so ``--format`` is refused with more than one.
    """
    paths = _paths(output)
    if fmt is not None:
        validate_choice("--format", fmt, choices)
        for path in paths:
            refuse_directory(path, choices)
        if len(paths) > 1:
            raise UsageError(
                "with several -o files, each is written in the format its suffix names; "
                "drop --format"
            )
        return fmt
    formats = [suffix_format(p, choices) for p in paths]
    return formats[0] if len(formats) == 1 else "table"


def emit(
    fmt: str,
    output: Path | Sequence[Path] | None,
    *,
    text: Callable[[str], str],
    table: Callable[[Any], None],
    choices: Sequence[str],
    kind: str = "result",
    binary: Callable[[str], bytes] | None = None,
    pipe_width: int | None = None,
) -> str | None:
    """Write a result to each ``-o`` file (atomically), once per format, or to stdout;
    the format written to stdout (``None``: nothing was).

    The one rule for stdout: without ``-o`` the result goes to stdout in ``fmt``;
    with ``-o FILE`` it goes to the files only, each said on stderr (:func:`say_wrote`,
    naming ``kind``), and stdout stays empty unless ``-o -`` is among the outputs
    (alone: ``fmt``, as without ``-o``; beside files: the table).

    ``text(format)`` renders a text format; ``table(console)`` prints the table;
    ``binary(format)`` renders a :data:`BINARY_FORMATS` format (a file only). The
    table goes to a terminal sized to it (off a terminal ``pipe_width`` wide, when
    given), and as plain text to a file and with ``--format plain``.
    """
    paths = _paths(output)
    files = [p for p in paths if not _is_stdout(p)]
    shown = None if files and len(files) == len(paths) else fmt if len(paths) < 2 else "table"
    if shown in BINARY_FORMATS or (fmt in BINARY_FORMATS and binary is None):
        raise UsageError(f"--format {fmt} is written to a file: add -o FILE.{fmt}")
    for path in files:
        file_fmt = fmt if len(paths) == 1 else suffix_format(path, choices)
        if file_fmt in BINARY_FORMATS and binary is not None:
            write_bytes_atomic(path, binary(file_fmt))
        else:
            write_text_atomic(path, _ensure_newline(_render(file_fmt, text, table)))
        say_wrote(path, kind, file_fmt)
    if shown == "table":
        table(_stdout_console(pipe_width))
    elif shown is not None:
        sys.stdout.write(_ensure_newline(_render(shown, text, table)))
    return shown


def _stdout_console(pipe_width: int | None) -> Any:
    """The console of the table on stdout (``pipe_width`` wide off a terminal, when given)."""
    from rich.console import Console

    if pipe_width is None:
        return Console(highlight=False)
    console = Console(highlight=False, soft_wrap=True)
    if not console.is_terminal:
        console.width = pipe_width
    return console


def say_wrote(path: Path | str, kind: str, fmt: str) -> None:
    """``wrote FILE (kind, format)`` on stderr: the one line every ``-o`` file gets."""
    name = "text" if fmt in TABLE_FORMATS else fmt
    sys.stderr.write(f"wrote {path} ({kind}, {name})\n")


def emit_result(
    result: Any, fmt: str, output: Path | Sequence[Path] | None, *, view: View | None = None
) -> str | None:
    """:func:`emit` for a registered result kind, rendered by its renderers of
    :data:`assay.report.kinds.KINDS` (the table with warnings naming flags, as every
    command prints them); the format written to stdout, if any."""
    view = view or View()
    return emit(
        fmt,
        output,
        text=lambda f: render(result, f, view=view),
        table=lambda c: print_terminal(flag_warnings(result), c, view),
        choices=formats_of(result.kind),
        kind=result.kind,
        binary=lambda f: render_bytes(result, f, view=view),
        pipe_width=kind_formats(result.kind).pipe_width,
    )


def data_file(output: Sequence[Path], what: str) -> tuple[Path, list[Path]]:
    """The one ``-o`` file that is ``what`` (JSONL, or a suffix no result format has), and
    the result files beside it (``judge llm -o labels.jsonl -o job.json``)."""
    data = [
        p
        for p in output
        if not _is_stdout(p) and SUFFIX_FORMATS.get(p.suffix.lower(), "jsonl") == "jsonl"
    ]
    for path in data:
        refuse_directory(path, ("jsonl",))
    if len(data) != 1:
        raise UsageError(f"give one -o FILE.jsonl for the {what} (other -o files get the result)")
    return data[0], [p for p in output if p != data[0]]


def deprecated_flag(old: str, new: str) -> None:
    """Warn on stderr that ``old`` is an alias kept for one release: use ``new``."""
    sys.stderr.write(f"warning: {old} is deprecated and will be removed; use {new}\n")


def _render(fmt: str, text: Callable[[str], str], table: Callable[[Any], None]) -> str:
    if fmt not in TABLE_FORMATS:
        return text(fmt)
    from rich.console import Console

    buf = io.StringIO()
    table(Console(file=buf, force_terminal=False, no_color=True, highlight=False))
    return buf.getvalue()


def _ensure_newline(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def run_cache(no_cache: bool, cache_dir: Path | None) -> Any:
    """The run cache of ``--no-cache``/``--cache-dir`` (``assay run``'s), or ``None``."""
    if no_cache:
        return None
    from assay.systems.cache import RunCache

    return RunCache(cache_dir)


def load_cli_judgments(
    path: Path,
    fmt: str | None,
    *,
    queries: Path | None = None,
    split: str = "test",
    corpus_ids: frozenset[str] | None = None,
    prefer: str | None = None,
) -> Any:
    """Load a judgment set (or pair-label file) with the CLI's options; see ``as_judgments``."""
    from assay.procedures.arguments import as_judgments

    kwargs: dict[str, Any] = {"split": split}
    if queries is not None:
        kwargs["queries"] = queries
    if corpus_ids is not None:
        kwargs["corpus_ids"] = corpus_ids
    return as_judgments(path, fmt, prefer=prefer, **kwargs)


def build_cli_system(
    spec: str,
    *,
    config: Path | None = None,
    corpus: Path | None = None,
    id_field: str | None = None,
    text_fields: Sequence[str] | None = None,
    judgments: Path | None = None,
    offline: bool = False,
) -> Any:
    """Build a system from ``--system`` and the corpus options (``offline``: ``--offline``),
    with :func:`assay.procedures.live.live_system` (a BEIR folder's corpus when no
    ``--corpus`` is given)."""
    from assay.procedures.live import live_system
    from assay.procedures.options import SourceOptions

    options = SourceOptions(
        config=config,
        corpus=corpus,
        id_field=id_field,
        text_fields=tuple(text_fields) if text_fields else None,
        offline=offline,
    )
    return live_system(spec, options, judgments)


def corpus_options(
    judgments: Path | None, id_field: str | None, text_fields: Sequence[str] | None
) -> dict[str, Any]:
    """The corpus keywords of :func:`build_cli_system` from a command's shared options."""
    return {"judgments": judgments, "id_field": id_field, "text_fields": text_fields}


def options_from(model: type[M], params: Mapping[str, Any], **renamed: str | None) -> M:
    """``model`` (an option model) from a command's parsed parameters of the same names.

    The one way a command builds the option objects its procedure takes.
    ``renamed`` maps a field to the parameter that sets it where the names
    differ (``text_fields="text_field"``), or to ``None`` where a parameter of
    the field's name means something else; fields no parameter sets, and fields
    whose parameter was left unset (``None``: a repeatable option not given)
    where the field's default is not ``None``, keep their defaults, so the
    library and the command line decide each option once.
    """
    fields = model.model_fields
    names = {field: renamed.get(field, field) for field in fields}
    values = {f: params[n] for f, n in names.items() if n is not None and n in params}
    return model(**{f: v for f, v in values.items() if v is not None or fields[f].default is None})


def record_result(result: Any, store: str | None) -> None:
    """Record a result in the history store; a store failure only warns.

    ``ASSAY_RECORD=0`` in the environment turns default recording off.
    """
    if os.environ.get("ASSAY_RECORD", "1").strip().lower() in ("0", "false", "no", "off"):
        return
    from assay.store.api import record_quietly

    record_quietly(result, store)


def check_max_failed_option(value: int) -> None:
    """``--max-failed``: a whole number, at least 0 (exit 2 otherwise)."""
    check_max_failed(value)


def exit_if_failed(
    runs: list[tuple[str, list[str]]], max_failed: int, what: str = "failed queries"
) -> None:
    """Apply :mod:`assay.core.failures`: name runs over ``--max-failed`` on stderr, exit 1
    (``what`` failed: queries, or model calls)."""
    messages = failed_messages(runs, max_failed, what)
    if not messages:
        return
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True, highlight=False, soft_wrap=True)
    for message in messages:
        console.print(f"[bold red]{what}:[/bold red] {escape(flags(message))}")
    raise SystemExit(1)


def finish(
    result: Any,
    fmt: str,
    output: Path | Sequence[Path] | None,
    *,
    max_failed: int = 0,
    record: bool = False,
    store: str | None = None,
    emitter: Callable[..., None] | None = None,
) -> None:
    """The end of every command: record the result (when asked), render it (``emitter``,
    default :func:`emit_result`), name runs over ``--max-failed`` and exit 1, then exit
    with :meth:`~assay.results.models.ResultModel.exit_code` (and its ``exit_message`` as an
    ``error:`` line, when it has one). A result's ``failed_what`` names what its failures
    are (model calls; queries by default)."""
    if record:
        record_result(result, store)
    # GitHub Actions: commands off while the table prints, then the job summary and one
    # annotation per failing check (to stderr when stdout carries JSON, JUnit...)
    table = fmt in TABLE_FORMATS
    with reporting(result, None if table else sys.stderr, guard=table):
        (emitter or emit_result)(result, fmt, output)
    exit_if_failed(result.failed_runs(), max_failed, result.failed_what)
    code = result.exit_code()
    if code and (message := result.exit_message()):
        error = AssayError(message)
        error.exit_code = code
        raise error  # main() says it as `error: ...` and exits with code
    if code:
        import typer

        raise typer.Exit(code)  # as the commands raised it before they were thin
