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


def load_cli_judgments(
    path: Path, fmt: str | None, *, queries: Path | None = None, split: str = "test"
) -> Any:
    """Load a judgment set with the CLI's options."""
    from assay.judgments.load import load_judgments

    kwargs: dict[str, Any] = {"split": split}
    if queries is not None:
        kwargs["queries"] = queries
    return load_judgments(path, format=fmt, **kwargs)


def build_cli_system(
    spec: str,
    *,
    config: Path | None = None,
    corpus: Path | None = None,
    id_field: str | None = None,
    text_fields: Sequence[str] | None = None,
) -> Any:
    """Build a system from ``--system`` and the corpus options."""
    from assay.systems.config import build_system

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
    """Record a result in the history store."""
    from assay.store.api import open_store

    open_store(store).record(result)


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

    from assay.report import evaluation as rep
    from assay.report.output import write_text_atomic

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
