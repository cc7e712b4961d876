"""Renderers of the judge, history and implicit-judgment result kinds, by format.

:mod:`assay.report.render` dispatches here for these kinds, so a command and
``assay report`` render them with the same functions. They read the result only.
"""

from __future__ import annotations

from typing import Any

#: Formats of the kinds rendered here (``table`` prints the ``plain`` text on a terminal).
FORMATS: dict[str, tuple[str, ...]] = {
    "history": ("table", "plain", "json", "html"),
    "agreement": ("table", "plain", "json"),
    "calibration": ("table", "plain", "json"),
    "model_judgments": ("table", "plain", "json"),
    "model_claims": ("table", "plain", "json"),
    "model_answers": ("table", "plain", "json"),
    "rubric_judge": ("table", "plain", "json"),
    "pairwise_judge": ("table", "plain", "json"),
    "implicit_judgments": ("table", "plain", "json", "csv", "jsonl"),
    "synthetic-queries": ("table", "plain", "json"),
}


def plain_text(result: Any) -> str | None:
    """The text form of a judge result (what its ``table`` prints); ``None`` for other kinds."""
    from assay.report import judges_text as jt

    kind = result.kind
    if kind == "agreement":
        return jt.render_agreement(result)
    if kind == "calibration":
        return jt.render_calibration(result)
    if kind == "model_answers":
        return jt.render_answer_grades(result)
    if kind == "model_judgments":
        return jt.render_grading(result.run, result.output)
    if kind in ("rubric_judge", "pairwise_judge"):
        from assay.report.declared_judges_text import render_declared

        return render_declared(result)
    if kind == "synthetic-queries":
        from assay.report.generate_text import render_queries

        return render_queries(result)
    if kind == "model_claims":
        lines = [jt.render_grading(result.run, result.output)]
        lines.append(f"support judgments filled by the model: {result.filled}")
        lines.extend(f"  left for people: {line}" for line in result.left_for_people)
        return "\n".join(lines)
    return None


def render_text(result: Any, fmt: str) -> str:
    """``result`` (a kind of :data:`FORMATS`) in a non-table text format other than JSON."""
    if result.kind == "history":
        from assay.report.html.export import render_history_html

        return render_history_html(result)
    from assay.behavior.implicit import implicit_jsonl, stats_csv

    return stats_csv(result) if fmt == "csv" else implicit_jsonl(result)[0]


def print_table(result: Any, console: Any) -> None:
    """Print ``result`` (a kind of :data:`FORMATS`) with rich to ``console``."""
    if result.kind == "history":
        from assay.report.history_terminal import render_terminal

        render_terminal(result, console)
    elif result.kind == "implicit_judgments":
        from assay.report.implicit_terminal import render_implicit

        render_implicit(result, console)
    else:
        console.print(plain_text(result), markup=False, highlight=False, soft_wrap=True)
