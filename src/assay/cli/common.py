"""Helpers shared by CLI commands: loading inputs, building systems, emitting reports."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from assay.errors import UsageError


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
    ".txt": "table",
}


def resolve_format(fmt: str | None, output: Path | None, choices: Sequence[str]) -> str:
    """``--format`` if given, else the one implied by the ``-o`` suffix, else ``table``."""
    if fmt is None:
        implied = SUFFIX_FORMATS.get(output.suffix.lower()) if output is not None else None
        if implied is not None and implied not in choices:
            raise UsageError(
                f"-o {output}: this command cannot write {implied}; "
                f"use a suffix for one of {', '.join(choices)} or pass --format"
            )
        fmt = implied or "table"
    validate_choice("--format", fmt, choices)
    return fmt


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
) -> Any:
    """Load a judgment set with the CLI's options (judged doc ids checked against a corpus)."""
    from assay.judges.labels import is_label_file, labels_as_judgments
    from assay.judgments.load import load_judgments

    if fmt is None and is_label_file(path):  # pair labels, as `assay judge llm` writes them
        return labels_as_judgments(path)

    kwargs: dict[str, Any] = {"split": split}
    if queries is not None:
        kwargs["queries"] = queries
    if corpus_ids is not None:
        kwargs["corpus_ids"] = corpus_ids
    return load_judgments(path, format=fmt, **kwargs)


def build_cli_system(
    spec: str,
    *,
    config: Path | None = None,
    corpus: Path | None = None,
    id_field: str | None = None,
    text_fields: Sequence[str] | None = None,
    judgments: Path | None = None,
) -> Any:
    """Build a system from ``--system`` and the corpus options.

    When the judgments are a BEIR folder and no ``--corpus`` is given, its
    ``corpus.jsonl`` is the corpus.
    """
    from assay.systems.config import build_system

    if corpus is None and judgments is not None and Path(judgments).is_dir():
        for name in ("corpus.jsonl", "corpus.jsonl.gz"):
            if (Path(judgments) / name).is_file():
                corpus = Path(judgments) / name
                break

    overrides: dict[str, Any] = {}
    if id_field:
        overrides["id_field"] = id_field
    if text_fields:
        overrides["text_fields"] = list(text_fields)
    return build_system(
        spec,
        config_path=config,
        corpus=str(corpus) if corpus is not None else None,
        overrides=overrides or None,
    )


def record_result(result: Any, store: str | None) -> None:
    """Record a result in the history store; a store failure only warns.

    ``ASSAY_RECORD=0`` in the environment turns default recording off.
    """
    import os

    if os.environ.get("ASSAY_RECORD", "1").strip().lower() in ("0", "false", "no", "off"):
        return
    from assay.store.api import record_quietly

    record_quietly(result, store)


def emit_report(
    result: Any,
    fmt: str,
    output: Path | None,
    *,
    digits: int | None = None,
    per_query: bool | None = None,
) -> None:
    """Render an evaluation result in ``fmt`` to stdout or to ``output`` (atomically)."""
    import sys

    from assay.fileio import write_text_atomic
    from assay.report import evaluation as rep

    if fmt == "table":
        from rich.console import Console

        if output is None:
            rep.render_terminal(result, Console(), digits=digits, per_query=per_query)
            return
        import io

        buf = io.StringIO()
        console = Console(file=buf, width=120, no_color=True, force_terminal=False)
        rep.render_terminal(result, console, digits=digits, per_query=per_query)
        write_text_atomic(output, buf.getvalue())
        return
    text = {
        "json": rep.render_json,
        "csv": rep.render_csv,
        "markdown": lambda r: rep.render_markdown(r, digits=digits),
    }[fmt](result)
    if output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        write_text_atomic(output, text)


def check_max_failed_option(value: int) -> None:
    """``--max-failed`` must be a whole number >= 0 (exit 2 otherwise)."""
    from assay.errors import UsageError

    if value < 0:
        raise UsageError(f"--max-failed must be a whole number >= 0, got {value}")


def exit_if_failed(runs: list[tuple[str, list[str]]], max_failed: int) -> None:
    """Apply :mod:`assay.failures`: name runs over ``--max-failed`` on stderr, exit 1."""
    from assay.failures import failed_messages

    messages = failed_messages(runs, max_failed)
    if not messages:
        return
    from rich.console import Console
    from rich.markup import escape

    console = Console(stderr=True, highlight=False, soft_wrap=True)
    for message in messages:
        console.print(f"[bold red]failed queries:[/bold red] {escape(message)}")
    raise SystemExit(1)
