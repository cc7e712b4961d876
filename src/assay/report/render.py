"""Render any saved result file (evaluation, comparison, answers, gate, verify...) again.

Result files are self-describing (``kind`` and ``schema_version``), so a report
can be produced from the file alone, in any format its kind supports.
"""

from __future__ import annotations

import io
from typing import Any

from assay.errors import UsageError
from assay.report.kinds import FORMATS as KIND_FORMATS

#: Formats each kind of result can be rendered in.
FORMATS_BY_KIND: dict[str, tuple[str, ...]] = {
    "evaluation": ("table", "plain", "json", "csv", "markdown", "latex", "parquet", "html"),
    "comparison": ("table", "plain", "json", "csv", "markdown", "latex", "html"),
    "answers": ("table", "plain", "json", "csv", "markdown"),
    "gate": ("table", "plain", "json", "markdown", "junit", "html"),
    "verify": ("table", "plain", "json"),
    "matrix": ("table", "plain", "json", "markdown", "html"),
    "validation": ("table", "plain", "json"),
    "tuning": ("table", "plain", "json", "markdown", "html"),
    **KIND_FORMATS,
}


def render(result: Any, fmt: str, *, width: int = 120) -> str:
    """Render ``result`` (any result model) in ``fmt`` as text."""
    kind = getattr(result, "kind", None)
    allowed = FORMATS_BY_KIND.get(str(kind), ())
    if fmt not in allowed:
        raise UsageError(
            f"a {kind} result renders as {', '.join(allowed) or 'nothing'}; not {fmt!r}"
        )
    if fmt == "parquet":
        raise UsageError("parquet is binary: render it with render_bytes, to a file")
    if fmt == "json":
        return result.to_json(indent=2) + "\n"
    if fmt == "html" and kind not in KIND_FORMATS:  # the page `assay view` serves, as one file
        from assay.report.html.export import render_html

        return render_html(result)
    if fmt in ("table", "plain"):
        return _terminal_text(result, width)
    if fmt == "latex":
        from assay.report import latex

        if kind == "evaluation":
            return latex.render_latex_evaluation(result)
        return latex.render_latex_comparison(result)
    if kind in KIND_FORMATS:
        from assay.report.kinds import render_text

        return render_text(result, fmt)
    if kind == "evaluation":
        from assay.report import evaluation as rep

        return rep.render_csv(result) if fmt == "csv" else rep.render_markdown(result)
    if kind == "comparison":
        from assay.report.compare_csv import render_csv
        from assay.report.compare_markdown import render_markdown

        return render_csv(result) if fmt == "csv" else render_markdown(result)
    if kind == "answers":
        from assay.report.answers_csv import answers_csv
        from assay.report.answers_markdown import answers_markdown

        return answers_csv(result) if fmt == "csv" else answers_markdown(result)
    if kind == "tuning":
        from assay.report.tune_text import render_markdown as tuning_markdown

        return tuning_markdown(result)
    if kind == "matrix":
        from assay.report.matrix_markdown import render_markdown as matrix_markdown

        return matrix_markdown(result)
    from assay.report.gate_junit import render_junit
    from assay.report.gate_markdown import render_markdown as gate_markdown

    return render_junit(result) if fmt == "junit" else gate_markdown(result)


def render_bytes(result: Any, fmt: str) -> bytes:
    """Render ``result`` in a binary format (``parquet``: an evaluation's per-query table)."""
    if fmt != "parquet" or getattr(result, "kind", None) != "evaluation":
        raise UsageError(f"a {getattr(result, 'kind', None)} result has no {fmt} form")
    return result.parquet_bytes()


def _terminal_text(result: Any, width: int) -> str:
    from rich.console import Console

    buf = io.StringIO()
    console = Console(file=buf, width=width, no_color=True, highlight=False, force_terminal=False)
    print_terminal(result, console)
    return buf.getvalue()


def print_terminal(result: Any, console: Any) -> None:
    """Print ``result`` with rich to ``console`` (the ``table`` format)."""
    kind = result.kind
    if kind in KIND_FORMATS:
        from assay.report.kinds import print_table

        print_table(result, console)
    elif kind == "evaluation":
        from assay.report.evaluation import render_terminal

        render_terminal(result, console)
    elif kind == "comparison":
        from assay.report.compare_terminal import render_terminal

        render_terminal(result, console)
    elif kind == "answers":
        from assay.report.answers_terminal import print_answers

        print_answers(result, console)
    elif kind == "gate":
        from assay.report.gate_terminal import render_terminal

        render_terminal(result, console)
    elif kind == "matrix":
        from assay.report.matrix_terminal import render_terminal

        render_terminal(result, console)
    elif kind == "tuning":
        from assay.report.tune_text import render_terminal as tuning_terminal

        tuning_terminal(result, console)
    elif kind == "validation":
        from assay.report.validation_terminal import print_validation

        print_validation(result, console)
    else:
        from assay.report.gate_terminal import render_verify_terminal

        render_verify_terminal(result, console)
