"""Render any saved result file (evaluation, comparison, answers, gate, verify...) again.

Result files are self-describing (``kind`` and ``schema_version``), so a report
can be produced from the file alone, in any format its kind supports: the
formats and their renderers are the one table of :mod:`assay.report.kinds`.
"""

from __future__ import annotations

import io
from typing import Any

from assay.core.errors import UsageError
from assay.report.kinds import KINDS, TABLE_FORMATS, View, formats_of, print_table, renderer

#: Formats each kind of result can be rendered in (read from :data:`~assay.report.kinds.KINDS`).
FORMATS_BY_KIND: dict[str, tuple[str, ...]] = {kind: e.formats for kind, e in KINDS.items()}


def render(result: Any, fmt: str, *, width: int = 120, view: View | None = None) -> str:
    """Render ``result`` (any result model) in ``fmt`` as text (the table ``width`` wide)."""
    kind = str(getattr(result, "kind", None))
    if fmt in TABLE_FORMATS and fmt in formats_of(kind):
        return _terminal_text(result, width, view)
    found, binary = renderer(kind, fmt)
    if binary:
        raise UsageError(f"{fmt} is binary: render it with render_bytes, to a file")
    return str(found(result, view=view or View()))


def render_bytes(result: Any, fmt: str, *, view: View | None = None) -> bytes:
    """Render ``result`` in a binary format (``parquet``: an evaluation's per-query table)."""
    kind = str(getattr(result, "kind", None))
    found, binary = renderer(kind, fmt)
    if not binary:
        raise UsageError(f"a {kind} result has no binary {fmt} form")
    return bytes(found(result, view=view or View()))


def _terminal_text(result: Any, width: int, view: View | None) -> str:
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, width=width, no_color=True, highlight=False, force_terminal=False)
    print_terminal(result, console, view)
    return buf.getvalue()


def print_terminal(result: Any, console: Any, view: View | None = None) -> None:
    """Print ``result`` with rich to ``console`` (the ``table`` format)."""
    print_table(result, console, view)
